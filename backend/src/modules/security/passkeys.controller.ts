import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { Public } from '../../auth/public.decorator';
import { RateLimit, type RateLimitRule } from '../../common/rate-limit';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { PasskeysService } from './passkeys.service';

/** Passkey sign-ins count toward the same per-IP sign-in allowance as password sign-ins. */
export const PASSKEY_SIGN_IN_IP: RateLimitRule = { name: 'login-ip', limit: (c) => c.rateLimits.loginIp };

/** Tag `security`: the caller's passkeys, and the options of a passkey sign-in (`loginPasskey` is in accounts). */
@Controller('api')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Get('users/passkeys')
  listPasskeys(@CurrentUser() user: AuthUser): Promise<ResponseBody<'listPasskeys', 200>> {
    return this.passkeys.list(user.id);
  }

  @Post('users/passkeys/registration-options')
  @HttpCode(200)
  getPasskeyRegistrationOptions(@CurrentUser() user: AuthUser): Promise<ResponseBody<'getPasskeyRegistrationOptions', 200>> {
    return this.passkeys.registrationOptions(user.id);
  }

  @Post('users/passkeys')
  registerPasskey(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'registerPasskey'>): Promise<ResponseBody<'registerPasskey', 201>> {
    return this.passkeys.register(user.id, body);
  }

  @Patch('users/passkeys/:id')
  renamePasskey(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Body() body: RequestBody<'renamePasskey'>,
  ): Promise<ResponseBody<'renamePasskey', 200>> {
    return this.passkeys.rename(user.id, id, body.name);
  }

  @Delete('users/passkeys/:id')
  @HttpCode(204)
  async removePasskey(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    await this.passkeys.remove(user.id, id);
  }

  @Public()
  @Post('users/passkeys/authentication-options')
  @HttpCode(200)
  @RateLimit(PASSKEY_SIGN_IN_IP)
  getPasskeyAuthenticationOptions(
    @Body() body: RequestBody<'getPasskeyAuthenticationOptions'> | undefined,
  ): Promise<ResponseBody<'getPasskeyAuthenticationOptions', 200>> {
    return this.passkeys.authenticationOptions(body);
  }
}
