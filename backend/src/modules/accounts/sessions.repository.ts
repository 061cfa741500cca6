import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** One refresh token of a sign-in (a token family). */
export interface RefreshTokenRow {
  id: string;
  family_id: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

/** A sign-in as its owner sees it (a row of sessions). */
export interface SessionRow {
  id: string;
  user_agent: string;
  ip: string | null;
  created_at: Date;
  last_used_at: Date;
}

/** Where a sign-in is used from: the request's IP and User-Agent (the same browser sends the same ones). */
export interface SessionClient {
  ip: string;
  userAgent: string;
}

/** Live: a token of the family neither revoked nor past the family's expiry. */
const LIVE_FAMILY = `EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = s.id AND r.revoked_at IS NULL AND r.expires_at > now())`;

/**
 * The sessions and refresh_tokens tables: a row per sign-in (token family) with where it is used from, and its
 * refresh tokens stored as SHA-256 hashes.
 */
/** A row while user $1's account is live and its sign-in $2 (a refresh-token family) has not ended. */
const LIVE_SIGN_IN = `SELECT 1 FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL
  AND EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = $2::uuid AND r.user_id = u.id AND r.revoked_at IS NULL)`;

@Injectable()
export class SessionsRepository extends Repository {
  async insertSession(familyId: string, userId: string, client: SessionClient, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO sessions (id, user_id, user_agent, ip) VALUES ($1, $2, $3, $4)`,
      [familyId, userId, client.userAgent, client.ip],
      tx,
    );
  }

  /** A refresh: the sign-in was used now, from this client. */
  async touchSession(familyId: string, client: SessionClient, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE sessions SET last_used_at = now(), user_agent = $2, ip = $3 WHERE id = $1`, [familyId, client.userAgent, client.ip], tx);
  }

  /** The user's live sign-ins, most recently used first. */
  liveSessionsOf(userId: string, tx?: Tx): Promise<SessionRow[]> {
    return this.rows(
      `SELECT s.id, s.user_agent, s.ip, s.created_at, s.last_used_at FROM sessions s
       WHERE s.user_id = $1 AND ${LIVE_FAMILY} ORDER BY s.last_used_at DESC, s.created_at DESC`,
      [userId],
      tx,
    );
  }

  /** Ends one of the user's sign-ins; false when the user has no live sign-in with this id. */
  async revokeSessionOf(userId: string, familyId: string, tx?: Tx): Promise<boolean> {
    const ended = await this.count(
      `UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now() RETURNING id`,
      [familyId, userId],
      tx,
    );
    return ended > 0;
  }

  /** Ends every sign-in of the user but one. */
  async revokeAllBut(userId: string, keepFamilyId: string, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND family_id <> $2 AND revoked_at IS NULL`,
      [userId, keepFamilyId],
      tx,
    );
  }

  async insert(familyId: string, userId: string, tokenHash: string, expiresAt: Date, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO refresh_tokens (family_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)`,
      [familyId, userId, tokenHash, expiresAt],
      tx,
    );
  }

  /** The token with this hash, locked until the transaction ends. */
  lockByHash(tokenHash: string, tx: Tx): Promise<RefreshTokenRow | undefined> {
    return this.one(
      `SELECT id, family_id, user_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
      [tokenHash],
      tx,
    );
  }

  async markUsed(id: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE refresh_tokens SET used_at = now() WHERE id = $1`, [id], tx);
  }

  async revokeFamily(familyId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`, [familyId], tx);
  }

  /** Ends the sign-in a token belongs to (nothing for an unknown token). */
  async revokeFamilyOfHash(tokenHash: string, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE refresh_tokens SET revoked_at = now()
       WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $1) AND revoked_at IS NULL`,
      [tokenHash],
      tx,
    );
  }

  async revokeAllOf(userId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId], tx);
  }

  /** True while the user's account is live and this sign-in has not ended. */
  async isLive(userId: string, familyId: string, tx?: Tx): Promise<boolean> {
    const row = await this.one(LIVE_SIGN_IN, [userId, familyId], tx);
    return row !== undefined;
  }

  /**
   * `isLive` for a request the sign-in makes: also records the use (the sessions list's "Last used"), at most once a
   * minute per sign-in, in the same round trip (a write per request would cost more than the check).
   */
  async useIfLive(userId: string, familyId: string, tx?: Tx): Promise<boolean> {
    const row = await this.one(
      `WITH live AS (${LIVE_SIGN_IN}), used AS (
         UPDATE sessions SET last_used_at = now()
          WHERE id = $2::uuid AND user_id = $1 AND last_used_at < now() - interval '1 minute' AND EXISTS (SELECT 1 FROM live)
       )
       SELECT 1 FROM live`,
      [userId, familyId],
      tx,
    );
    return row !== undefined;
  }

  /** True while the user's account is live. */
  async userIsLive(userId: string, tx?: Tx): Promise<boolean> {
    return (await this.one(`SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL`, [userId], tx)) !== undefined;
  }
}
