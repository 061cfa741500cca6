import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** A user's authenticator, as stored. */
export interface TwoFactorRow {
  userId: string;
  /** The sealed secret (see TwoFactorKeys). */
  sealedSecret: string;
  /** Null while the setup waits for its first code. */
  enabledAt: Date | null;
}

interface Row {
  user_id: string;
  totp_secret: string;
  enabled_at: Date | null;
}

const toRow = (r: Row): TwoFactorRow => ({ userId: r.user_id, sealedSecret: r.totp_secret, enabledAt: r.enabled_at });

/** The two-factor tables: user_two_factor (one authenticator per user) and recovery_codes. */
@Injectable()
export class TwoFactorRepository extends Repository {
  /** The user's authenticator, pending or on; `forUpdate` locks it until the transaction ends. */
  async byUser(userId: string, forUpdate: boolean, tx?: Tx): Promise<TwoFactorRow | undefined> {
    const row = await this.one<Row>(
      `SELECT user_id, totp_secret, enabled_at FROM user_two_factor WHERE user_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [userId],
      tx,
    );
    return row && toRow(row);
  }

  /** Keeps a pending secret, replacing a pending one; false (nothing written) while two-factor sign-in is on. */
  async savePending(userId: string, sealedSecret: string, tx?: Tx): Promise<boolean> {
    return (
      (await this.count(
        `INSERT INTO user_two_factor (user_id, totp_secret) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET totp_secret = EXCLUDED.totp_secret, last_step = NULL, created_at = now(), updated_at = now()
           WHERE user_two_factor.enabled_at IS NULL
         RETURNING user_id`,
        [userId, sealedSecret],
        tx,
      )) === 1
    );
  }

  /** Turns on the pending secret that was checked (not one a later setup put in its place), its code's step used. */
  async enable(userId: string, sealedSecret: string, step: number, tx: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE user_two_factor SET enabled_at = now(), last_step = $3, updated_at = now()
         WHERE user_id = $1 AND totp_secret = $2 AND enabled_at IS NULL RETURNING user_id`,
        [userId, sealedSecret, step],
        tx,
      )) === 1
    );
  }

  /** Records a code's step as used; false when that step, or a later one, was used already (a replay). */
  async useStep(userId: string, step: number, tx?: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE user_two_factor SET last_step = $2, updated_at = now()
         WHERE user_id = $1 AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < $2) RETURNING user_id`,
        [userId, step],
        tx,
      )) === 1
    );
  }

  /** Every earlier recovery code goes; these hashes take their place. */
  async replaceRecoveryCodes(userId: string, hashes: string[], tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId], tx);
    await this.rows(`INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])`, [userId, hashes], tx);
  }

  /** Uses a recovery code up; false when the user has no such unused code. Exactly once, even under races. */
  async useRecoveryCode(userId: string, hash: string, tx?: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING id`,
        [userId, hash],
        tx,
      )) === 1
    );
  }

  async recoveryCodesLeft(userId: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ n: number }>(`SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL`, [userId], tx);
    return row?.n ?? 0;
  }

  /** Two-factor sign-in off: the secret and every recovery code go. */
  async removeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId], tx);
    await this.rows(`DELETE FROM user_two_factor WHERE user_id = $1`, [userId], tx);
  }
}
