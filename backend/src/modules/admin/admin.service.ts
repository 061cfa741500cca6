import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { CookieOptions } from 'express';
import jwt from 'jsonwebtoken';
import type { AuthUser } from '../../auth/auth-user';
import { JWT_ISSUER } from '../../auth/jwt';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { ResponseBody } from '../../contract/types';
import { SessionsRepository } from '../accounts/sessions.repository';
import { UsersRepository } from '../accounts/users.repository';
import { userRole } from './admin-role';

/** Where the queue dashboard is served, and the only path its cookie is sent to. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';
export const QUEUE_DASHBOARD_COOKIE = 'glob_queue_dashboard';
/** A dashboard session lasts 15 minutes; the web app opens a new one each time its link is used. */
export const QUEUE_DASHBOARD_TTL_SECONDS = 15 * 60;
/** The dashboard token's audience: an access token is never a dashboard token, and the reverse (each checks its own). */
const QUEUE_DASHBOARD_AUDIENCE = 'glob-network-queue-dashboard';
/** What operators and everyone else are told when they may not: the same as for a route that does not exist. */
const NOT_FOUND = 'Not found';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface QueueDashboardCookie {
  name: string;
  value: string;
  options: CookieOptions;
}

/**
 * Tag `admin`: operators and the queue dashboard. The dashboard's session is a JWT (HS256, the access tokens' secret,
 * its own audience, 15 minutes) naming the account and its sign-in, kept in an httpOnly cookie. Nothing is stored:
 * every dashboard request checks the token and then the account again (still live, still an operator, its sign-in
 * not ended), so removing an address from ADMIN_EMAILS, deleting the account or signing out ends access at once.
 */
@Injectable()
export class AdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
  ) {}

  /** True when the account is an operator now (see userRole). */
  async isOperator(userId: string): Promise<boolean> {
    const user = await this.users.byId(userId);
    return user !== undefined && userRole(user, this.config.adminEmails) === 'admin';
  }

  /** An operator's dashboard session (the cookie to set and the answer); 404 for every other account. */
  async openQueueDashboard(
    caller: AuthUser,
    secure: boolean,
  ): Promise<{ cookie: QueueDashboardCookie; body: ResponseBody<'openQueueDashboard', 200> }> {
    if (!(await this.isOperator(caller.id))) throw new NotFoundException(NOT_FOUND);
    const token = jwt.sign({ sid: caller.sessionId }, this.config.jwt.accessSecret, {
      algorithm: 'HS256',
      subject: caller.id,
      audience: QUEUE_DASHBOARD_AUDIENCE,
      issuer: JWT_ISSUER,
      expiresIn: QUEUE_DASHBOARD_TTL_SECONDS,
    });
    const { exp } = jwt.decode(token) as { exp: number };
    return {
      cookie: {
        name: QUEUE_DASHBOARD_COOKIE,
        value: token,
        options: {
          httpOnly: true,
          sameSite: 'strict',
          secure,
          path: QUEUE_DASHBOARD_PATH,
          maxAge: QUEUE_DASHBOARD_TTL_SECONDS * 1000,
        },
      },
      body: { url: QUEUE_DASHBOARD_PATH, expires_at: new Date(exp * 1000).toISOString() },
    };
  }

  /** Whether a dashboard cookie's token lets its holder in now: valid and unexpired, of a current operator's live sign-in. */
  async mayUseQueueDashboard(token: string | undefined): Promise<boolean> {
    if (!token) return false;
    let claims: { sub?: unknown; sid?: unknown };
    try {
      claims = jwt.verify(token, this.config.jwt.accessSecret, {
        algorithms: ['HS256'],
        audience: QUEUE_DASHBOARD_AUDIENCE,
        issuer: JWT_ISSUER,
      }) as { sub?: unknown; sid?: unknown };
    } catch {
      return false;
    }
    const { sub, sid } = claims;
    if (typeof sub !== 'string' || typeof sid !== 'string' || !UUID.test(sub) || !UUID.test(sid)) return false;
    return (await this.isOperator(sub)) && (await this.sessions.isLive(sub, sid));
  }
}
