import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { Public } from '../../auth/public.decorator';
import { clientIp, RateLimit, RateLimitRule } from '../../common/rate-limit';
import type { OAuthProviderName } from '../../config/config';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { PASSKEY_SIGN_IN_IP } from '../security/passkeys.controller';
import { AccountsService, normalizeEmail } from './accounts.service';
import { OAuthService } from './oauth.service';
import { sessionClient, SessionsService } from './sessions.service';

const bodyEmail = (req: Request) => normalizeEmail(String((req.body as { email?: string }).email ?? ''));

/**
 * Sign-in: per IP + e-mail, and per IP whatever the e-mail. Code checks per IP. Account creation and password
 * resets per IP. Code requests per IP here; codes sent per address + IP are counted where they are sent. Wrong
 * two-factor codes are counted per account and IP by the two-factor service (the account is known only there).
 */
const LOGIN: RateLimitRule = { name: 'login', limit: (c) => c.rateLimits.login, key: (req) => `${clientIp(req)}:${bodyEmail(req)}` };
const LOGIN_IP: RateLimitRule = { name: 'login-ip', limit: (c) => c.rateLimits.loginIp };
const CODE_CHECK: RateLimitRule = { name: 'code-check', limit: (c) => c.rateLimits.otpVerify };
const CODE_SEND_IP: RateLimitRule = { name: 'code-send-ip', limit: (c) => c.rateLimits.otpSendIp };
const SIGNUP: RateLimitRule = { name: 'signup', limit: (c) => c.rateLimits.signup };

/** Read once per sign-in page view: limited per IP like the site's page-view analytics. */
const OAUTH_PROVIDERS_LIST: RateLimitRule = { name: 'oauth-providers', limit: (c) => c.rateLimits.analytics };

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
  @RateLimit(LOGIN_IP, LOGIN)
  login(@Body() body: RequestBody<'login'>, @Req() req: Request): Promise<ResponseBody<'login', 200>> {
    return this.accounts.login(body, sessionClient(req));
  }

  @Public()
  @Post('users/login/2fa')
  @HttpCode(200)
  loginTwoFactor(@Body() body: RequestBody<'loginTwoFactor'>, @Req() req: Request): Promise<ResponseBody<'loginTwoFactor', 200>> {
    return this.accounts.loginTwoFactor(body, sessionClient(req));
  }

  @Public()
  @Post('users/login/passkey')
  @HttpCode(200)
  @RateLimit(PASSKEY_SIGN_IN_IP)
  loginPasskey(@Body() body: RequestBody<'loginPasskey'>, @Req() req: Request): Promise<ResponseBody<'loginPasskey', 200>> {
    return this.accounts.loginPasskey(body, sessionClient(req));
  }

  @Public()
  @Post('users/register')
  @RateLimit(SIGNUP)
  register(@Body() body: RequestBody<'register'>, @Req() req: Request): Promise<ResponseBody<'register', 201>> {
    return this.accounts.register(body, sessionClient(req));
  }

  @Public()
  @Post('users/send-otp')
  @HttpCode(202)
  @RateLimit(CODE_SEND_IP)
  sendOtp(@Body() body: RequestBody<'sendOtp'>, @Req() req: Request): Promise<ResponseBody<'sendOtp', 202>> {
    return this.accounts.sendCode(body.email, body.purpose ?? 'signup', clientIp(req));
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
  @RateLimit(SIGNUP)
  registerWithOtp(@Body() body: RequestBody<'registerWithOtp'>, @Req() req: Request): Promise<ResponseBody<'registerWithOtp', 201>> {
    return this.accounts.register(body, sessionClient(req));
  }

  @Public()
  @Post('users/reset-password')
  @HttpCode(200)
  @RateLimit(SIGNUP)
  resetPassword(@Body() body: RequestBody<'resetPassword'>, @Req() req: Request): Promise<ResponseBody<'resetPassword', 200>> {
    return this.accounts.resetPassword(body, sessionClient(req));
  }

  @Public()
  @Post('users/refresh')
  @HttpCode(200)
  refresh(@Body() body: RequestBody<'refresh'>, @Req() req: Request): Promise<ResponseBody<'refresh', 200>> {
    return this.sessions.rotate(body.refresh_token, sessionClient(req));
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
  @Get('users/oauth/providers')
  @RateLimit(OAUTH_PROVIDERS_LIST)
  listOauthProviders(): ResponseBody<'listOauthProviders', 200> {
    return this.oauth.configuredProviders();
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
  @RateLimit({ ...CODE_CHECK, name: 'oauth-callback' })
  oauthCallback(
    @Param('provider') provider: OAuthProviderName,
    @Body() body: RequestBody<'oauthCallback'>,
    @Req() req: Request,
  ): Promise<ResponseBody<'oauthCallback', 200>> {
    return this.oauth.callback(provider, body, sessionClient(req));
  }

  @Public()
  @Post('users/auth/send-deletion-otp')
  @HttpCode(202)
  @RateLimit(CODE_SEND_IP)
  sendDeletionOtp(@Body() body: RequestBody<'sendDeletionOtp'>, @Req() req: Request): Promise<ResponseBody<'sendDeletionOtp', 202>> {
    return this.accounts.sendCode(body.email, 'deletion', clientIp(req));
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
  deleteAccount(@Body() body: RequestBody<'deleteAccount'>, @Req() req: Request): Promise<ResponseBody<'deleteAccount', 200>> {
    return this.accounts.deleteAccount(body, clientIp(req));
  }
}
