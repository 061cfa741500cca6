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

/** The refresh_tokens table: refresh tokens stored as SHA-256 hashes, grouped by sign-in. */
@Injectable()
export class SessionsRepository extends Repository {
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
    const row = await this.one(
      `SELECT 1 FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL
         AND EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = $2::uuid AND r.user_id = u.id AND r.revoked_at IS NULL)`,
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
