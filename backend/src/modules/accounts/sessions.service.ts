import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../auth/jwt';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';

/** Absolute lifetime of a sign-in: rotation keeps the family's first expiry. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const INVALID_REFRESH = 'Invalid or expired refresh token';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

interface TokenRow {
  id: string;
  family_id: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * Sessions: a short-lived JWT access token plus an opaque refresh token, stored only as a SHA-256 hash.
 * Refresh rotates the token inside its family; presenting an already-rotated token revokes the family.
 */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Starts a new token family for the user. */
  async start(userId: string, em: EntityManager = this.db.manager): Promise<Schemas['TokenPair']> {
    const familyExpiry = new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000);
    return this.issue(em, userId, randomUUID(), familyExpiry);
  }

  async rotate(refreshToken: string): Promise<Schemas['TokenPair']> {
    return this.db.transaction(async (em) => {
      const [row] = (await em.query(
        `SELECT id, family_id, user_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
        [hashToken(refreshToken)],
      )) as TokenRow[];
      if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now()) throw new UnauthorizedException(INVALID_REFRESH);
      if (row.used_at) {
        // A rotated token came back: someone holds a copy. End the whole sign-in.
        await em.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`, [row.family_id]);
        return null;
      }
      const [user] = (await em.query(`SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL`, [row.user_id])) as unknown[];
      if (!user) throw new UnauthorizedException(INVALID_REFRESH);
      await em.query(`UPDATE refresh_tokens SET used_at = now() WHERE id = $1`, [row.id]);
      return this.issue(em, row.user_id, row.family_id, row.expires_at);
    }).then((pair) => {
      // Thrown after the commit, so the family stays revoked.
      if (!pair) throw new UnauthorizedException(INVALID_REFRESH);
      return pair;
    });
  }

  /** Logout: ends the sign-in the token belongs to (silently does nothing for an unknown token). */
  async revokeFamilyOf(refreshToken: string): Promise<void> {
    await this.db.query(
      `UPDATE refresh_tokens SET revoked_at = now()
       WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $1) AND revoked_at IS NULL`,
      [hashToken(refreshToken)],
    );
  }

  async revokeAllOf(userId: string, em: EntityManager): Promise<void> {
    await em.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
  }

  private async issue(em: EntityManager, userId: string, familyId: string, expiresAt: Date): Promise<Schemas['TokenPair']> {
    const refreshToken = randomBytes(32).toString('base64url');
    await em.query(`INSERT INTO refresh_tokens (family_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`, [
      familyId,
      userId,
      hashToken(refreshToken),
      expiresAt,
    ]);
    return {
      access_token: signAccessToken(userId, this.config.jwt.accessSecret),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
    };
  }
}
