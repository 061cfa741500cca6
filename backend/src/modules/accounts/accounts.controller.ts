import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { Public } from '../../auth/public.decorator';
import { RateLimit, RateLimitRule } from '../../common/rate-limit';
import type { OAuthProviderName } from '../../config/config';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { AccountsService, normalizeEmail } from './accounts.service';
import { OAuthService } from './oauth.service';
import { SessionsService } from './sessions.service';

const bodyEmail = (req: Request) => normalizeEmail(String((req.body as { email?: string }).email ?? ''));

/** Issue 3 §6: login 10 per 15 min per IP + e-mail; code checks 30 per 5 min per IP; code sending 5 per hour per address. */
const LOGIN: RateLimitRule = { name: 'login', limit: (c) => c.rateLimits.login, key: (req) => `${req.ip}:${bodyEmail(req)}` };
const CODE_CHECK: RateLimitRule = { name: 'code-check', limit: (c) => c.rateLimits.otpVerify };
const CODE_SEND: RateLimitRule = { name: 'code-send', limit: (c) => c.rateLimits.otpSend, key: bodyEmail };

@Controller('api')
export class AccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly oauth: OAuthService,
  ) {}

  @Public()
  @Post('users/login')
  @HttpCode(200)
  @RateLimit(LOGIN)
  login(@Body() body: RequestBody<'login'>): Promise<ResponseBody<'login', 200>> {
    return this.accounts.login(body);
  }

  @Public()
  @Post('users/register')
  register(@Body() body: RequestBody<'register'>): Promise<ResponseBody<'register', 201>> {
    return this.accounts.register(body);
  }

  @Public()
  @Post('users/send-otp')
  @HttpCode(202)
  @RateLimit(CODE_SEND)
  sendOtp(@Body() body: RequestBody<'sendOtp'>): Promise<ResponseBody<'sendOtp', 202>> {
    return this.accounts.sendCode(body.email, body.purpose ?? 'signup');
  }

  @Public()
  @Post('users/verify-otp')
  @HttpCode(200)
  @RateLimit(CODE_CHECK)
  verifyOtp(@Body() body: RequestBody<'verifyOtp'>): Promise<ResponseBody<'verifyOtp', 200>> {
    return this.accounts.verifyCode(body);
  }

  @Public()
  @Post('users/register-with-otp')
  registerWithOtp(@Body() body: RequestBody<'registerWithOtp'>): Promise<ResponseBody<'registerWithOtp', 201>> {
    return this.accounts.registerWithOtp(body);
  }

  @Public()
  @Post('users/refresh')
  @HttpCode(200)
  refresh(@Body() body: RequestBody<'refresh'>): Promise<ResponseBody<'refresh', 200>> {
    return this.sessions.rotate(body.refresh_token);
  }

  @Public()
  @Post('users/logout')
  @HttpCode(204)
  async logout(@Body() body: RequestBody<'logout'>): Promise<void> {
    await this.sessions.revokeFamilyOf(body.refresh_token);
  }

  @Get('users/me')
  getMe(@CurrentUser() user: AuthUser): Promise<ResponseBody<'getMe', 200>> {
    return this.accounts.me(user.id);
  }

  @Public()
  @Get('users/oauth/auth-url/:provider')
  @RateLimit({ ...CODE_CHECK, name: 'oauth' })
  getOauthAuthUrl(@Param('provider') provider: OAuthProviderName): Promise<ResponseBody<'getOauthAuthUrl', 200>> {
    return this.oauth.authorizationUrl(provider);
  }

  @Public()
  @Post('users/oauth/callback/:provider')
  @HttpCode(200)
  oauthCallback(
    @Param('provider') provider: OAuthProviderName,
    @Body() body: RequestBody<'oauthCallback'>,
  ): Promise<ResponseBody<'oauthCallback', 200>> {
    return this.oauth.callback(provider, body.code, body.state);
  }

  @Public()
  @Post('users/auth/send-deletion-otp')
  @HttpCode(202)
  @RateLimit(CODE_SEND)
  sendDeletionOtp(@Body() body: RequestBody<'sendDeletionOtp'>): Promise<ResponseBody<'sendDeletionOtp', 202>> {
    return this.accounts.sendCode(body.email, 'deletion');
  }

  @Public()
  @Post('users/auth/verify-deletion-otp')
  @HttpCode(200)
  @RateLimit(CODE_CHECK)
  verifyDeletionOtp(@Body() body: RequestBody<'verifyDeletionOtp'>): Promise<ResponseBody<'verifyDeletionOtp', 200>> {
    return this.accounts.verifyDeletionCode(body);
  }

  @Public()
  @Delete('users/auth/delete-account')
  @HttpCode(200)
  @RateLimit(CODE_CHECK)
  deleteAccount(@Body() body: RequestBody<'deleteAccount'>): Promise<ResponseBody<'deleteAccount', 200>> {
    return this.accounts.deleteAccount(body);
  }
}
