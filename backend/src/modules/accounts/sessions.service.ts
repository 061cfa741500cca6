import constants from '@glob/contract/constants.json';
import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';
import type Redis from 'ioredis';
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../auth/jwt';
import { clientIp } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { REDIS } from '../../redis/redis.module';
import { SessionsRepository, type SessionClient } from './sessions.repository';

/** Absolute lifetime of a sign-in: rotation keeps the family's first expiry. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Two tabs refreshing with the same token within this many seconds get the same new pair. */
export const REFRESH_GRACE_SECONDS = 10;
export const INVALID_REFRESH = 'Invalid or expired refresh token';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What is kept of a client: the spec's limits (Session.user_agent and ip). */
const SESSION = constants.fieldLimits.Session;
const stored = (client: SessionClient): SessionClient => ({
  ip: client.ip.slice(0, SESSION.ip.maxLength),
  userAgent: client.userAgent.slice(0, SESSION.user_agent.maxLength),
});

/** The client of a request as a session records it. */
export const sessionClient = (req: Request): SessionClient => ({ ip: clientIp(req), userAgent: req.get('user-agent') ?? '' });

/**
 * The pair a rotation returned, kept for the grace window encrypted under a key only the presenter of the old
 * token can derive (the server keeps just that token's hash), and bound to the client that rotated it.
 */
class GraceBox {
  private static key(token: string): Buffer {
    return createHash('sha256').update(`refresh-grace:${token}`).digest();
  }

  static seal(token: string, client: SessionClient, pair: Schemas['TokenPair']): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', GraceBox.key(token), iv);
    cipher.setAAD(Buffer.from(`${client.ip}\n${client.userAgent}`));
    const data = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
  }

  /** The pair, or null when the box was sealed for another client (the auth tag does not match). */
  static open(token: string, client: SessionClient, sealed: string): Schemas['TokenPair'] | null {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', GraceBox.key(token), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(`${client.ip}\n${client.userAgent}`));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Schemas['TokenPair'];
    } catch {
      return null;
    }
  }
}

/**
 * Sessions: a short-lived JWT access token plus an opaque refresh token, stored only as a SHA-256 hash; a
 * sign-in is a token family, and its access tokens work only while the family does. Refresh rotates the token
 * inside its family; presenting an already-rotated token revokes the family, unless the same client presents
 * it again within the grace window (two tabs refreshing at once), which gets the same new pair.
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly tokens: SessionsRepository,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  private graceKey(refreshToken: string): string {
    return `${this.config.redis.prefix}:refresh-grace:${hashToken(refreshToken)}`;
  }

  /** Starts a new token family for the user, recording the client it is used from. */
  async start(userId: string, client: SessionClient, tx?: Tx): Promise<Schemas['TokenPair']> {
    const familyExpiry = new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000);
    const familyId = randomUUID();
    await this.tokens.insertSession(familyId, userId, stored(client), tx);
    return this.issue(userId, familyId, familyExpiry, tx);
  }

  async rotate(refreshToken: string, client: SessionClient): Promise<Schemas['TokenPair']> {
    return this.transactions
      .run(async (tx) => {
        const row = await this.tokens.lockByHash(hashToken(refreshToken), tx);
        if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now()) throw new UnauthorizedException(INVALID_REFRESH);
        if (row.used_at) {
          const sealed = Date.now() - row.used_at.getTime() < REFRESH_GRACE_SECONDS * 1000 ? await this.redis.get(this.graceKey(refreshToken)) : null;
          const again = sealed ? GraceBox.open(refreshToken, client, sealed) : null;
          if (again) return again;
          // A rotated token came back from elsewhere, or late: someone holds a copy. End the whole sign-in.
          await this.tokens.revokeFamily(row.family_id, tx);
          return null;
        }
        if (!(await this.tokens.userIsLive(row.user_id, tx))) throw new UnauthorizedException(INVALID_REFRESH);
        await this.tokens.markUsed(row.id, tx);
        await this.tokens.touchSession(row.family_id, stored(client), tx);
        const pair = await this.issue(row.user_id, row.family_id, row.expires_at, tx);
        // Kept before the commit, so a second tab waiting on this row's lock finds it.
        await this.redis.set(this.graceKey(refreshToken), GraceBox.seal(refreshToken, client, pair), 'EX', REFRESH_GRACE_SECONDS);
        return pair;
      })
      .then((pair) => {
        // Thrown after the commit, so the family stays revoked.
        if (!pair) throw new UnauthorizedException(INVALID_REFRESH);
        return pair;
      });
  }

  /** Logout: ends the sign-in the token belongs to (silently does nothing for an unknown token). */
  async revokeFamilyOf(refreshToken: string): Promise<void> {
    await this.tokens.revokeFamilyOfHash(hashToken(refreshToken));
  }

  async revokeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.tokens.revokeAllOf(userId, tx);
  }

  private async issue(userId: string, familyId: string, expiresAt: Date, tx?: Tx): Promise<Schemas['TokenPair']> {
    const refreshToken = randomBytes(32).toString('base64url');
    await this.tokens.insert(familyId, userId, hashToken(refreshToken), expiresAt, tx);
    return {
      access_token: signAccessToken(userId, familyId, this.config.jwt.accessSecret),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
    };
  }
}
