import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { notYetAvailable } from '../../contract/errors';

/**
 * The accounts operations of the spec. Not live yet: each answers 501 with the Error body until the
 * accounts issue lands (request validation against the spec already applies).
 */
@Controller('api')
export class AccountsController {
  /** Sign in with e-mail and password */
  @Post('users/login')
  @HttpCode(200)
  login(): never {
    return notYetAvailable();
  }

  /** Create an account with e-mail and password (no code) */
  @Post('users/register')
  register(): never {
    return notYetAvailable();
  }

  /** E-mail a one-time code */
  @Post('users/send-otp')
  @HttpCode(202)
  sendOtp(): never {
    return notYetAvailable();
  }

  /** Check an e-mailed code */
  @Post('users/verify-otp')
  @HttpCode(200)
  verifyOtp(): never {
    return notYetAvailable();
  }

  /** Create an account after verifying the e-mail */
  @Post('users/register-with-otp')
  registerWithOtp(): never {
    return notYetAvailable();
  }

  /** Exchange a refresh token for a new token pair */
  @Post('users/refresh')
  @HttpCode(200)
  refresh(): never {
    return notYetAvailable();
  }

  /** Sign out (revoke a refresh token family) */
  @Post('users/logout')
  @HttpCode(204)
  logout(): never {
    return notYetAvailable();
  }

  /** The signed-in user */
  @Get('users/me')
  getMe(): never {
    return notYetAvailable();
  }

  /** Start a social sign-in */
  @Get('users/oauth/auth-url/:provider')
  getOauthAuthUrl(): never {
    return notYetAvailable();
  }

  /** Complete a social sign-in */
  @Post('users/oauth/callback/:provider')
  @HttpCode(200)
  oauthCallback(): never {
    return notYetAvailable();
  }

  /** E-mail an account-deletion code */
  @Post('users/auth/send-deletion-otp')
  @HttpCode(202)
  sendDeletionOtp(): never {
    return notYetAvailable();
  }

  /** Check an account-deletion code */
  @Post('users/auth/verify-deletion-otp')
  @HttpCode(200)
  verifyDeletionOtp(): never {
    return notYetAvailable();
  }

  /** Delete the account proved by a deletion code */
  @Delete('users/auth/delete-account')
  deleteAccount(): never {
    return notYetAvailable();
  }
}
