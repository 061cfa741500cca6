import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { clientIp } from '../../common/rate-limit';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { TwoFactorService } from './two-factor.service';

/** Tag `security`: the caller's two-factor sign-in. Wrong codes are limited per account and IP in the service. */
@Controller('api')
export class SecurityController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Get('users/2fa')
  getTwoFactorStatus(@CurrentUser() user: AuthUser): Promise<ResponseBody<'getTwoFactorStatus', 200>> {
    return this.twoFactor.status(user.id);
  }

  @Post('users/2fa/totp/setup')
  @HttpCode(200)
  startTotpSetup(@CurrentUser() user: AuthUser): Promise<ResponseBody<'startTotpSetup', 200>> {
    return this.twoFactor.startSetup(user.id);
  }

  @Post('users/2fa/totp/confirm')
  @HttpCode(200)
  confirmTotpSetup(
    @CurrentUser() user: AuthUser,
    @Body() body: RequestBody<'confirmTotpSetup'>,
    @Req() req: Request,
  ): Promise<ResponseBody<'confirmTotpSetup', 200>> {
    return this.twoFactor.confirmSetup(user.id, body.code, clientIp(req));
  }

  @Post('users/2fa/totp/disable')
  @HttpCode(200)
  disableTotp(
    @CurrentUser() user: AuthUser,
    @Body() body: RequestBody<'disableTotp'>,
    @Req() req: Request,
  ): Promise<ResponseBody<'disableTotp', 200>> {
    return this.twoFactor.disable(user.id, body, clientIp(req));
  }

  @Post('users/2fa/recovery-codes')
  @HttpCode(200)
  regenerateRecoveryCodes(
    @CurrentUser() user: AuthUser,
    @Body() body: RequestBody<'regenerateRecoveryCodes'>,
    @Req() req: Request,
  ): Promise<ResponseBody<'regenerateRecoveryCodes', 200>> {
    return this.twoFactor.regenerateRecoveryCodes(user.id, body, clientIp(req));
  }
}
