import { Injectable, NotFoundException } from '@nestjs/common';
import type { AuthUser } from '../../auth/auth-user';
import type { Schemas } from '../../contract/types';
import { SessionsRepository } from '../accounts/sessions.repository';
import { deviceName } from './device-name';

export const SESSION_NOT_FOUND = 'Session not found';

/**
 * The caller's sign-ins (token families) as sessions to see and end. Ending one revokes its refresh tokens, and
 * since every access token is checked against its family on each request, its access tokens stop working too.
 */
@Injectable()
export class SignInSessionsService {
  constructor(private readonly sessions: SessionsRepository) {}

  async list(caller: AuthUser): Promise<Schemas['SessionList']> {
    const rows = await this.sessions.liveSessionsOf(caller.id);
    return {
      sessions: rows.map((row) => ({
        id: row.id,
        device: deviceName(row.user_agent),
        user_agent: row.user_agent,
        ip: row.ip,
        created_at: row.created_at.toISOString(),
        last_used_at: row.last_used_at.toISOString(),
        current: row.id === caller.sessionId,
      })),
    };
  }

  async revoke(caller: AuthUser, sessionId: string): Promise<void> {
    if (!(await this.sessions.revokeSessionOf(caller.id, sessionId))) throw new NotFoundException(SESSION_NOT_FOUND);
  }

  async revokeOthers(caller: AuthUser): Promise<void> {
    await this.sessions.revokeAllBut(caller.id, caller.sessionId);
  }
}
