import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import type { ResponseBody } from '../../contract/types';
import { SignInSessionsService } from './sign-in-sessions.service';

/** Tag `security`: the caller's signed-in sessions, and ending them. */
@Controller('api')
export class SessionsController {
  constructor(private readonly sessions: SignInSessionsService) {}

  @Get('users/sessions')
  listSessions(@CurrentUser() user: AuthUser): Promise<ResponseBody<'listSessions', 200>> {
    return this.sessions.list(user);
  }

  @Delete('users/sessions/:id')
  @HttpCode(204)
  revokeSession(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    return this.sessions.revoke(user, id);
  }

  @Post('users/sessions/revoke-others')
  @HttpCode(204)
  revokeOtherSessions(@CurrentUser() user: AuthUser): Promise<void> {
    return this.sessions.revokeOthers(user);
  }
}
