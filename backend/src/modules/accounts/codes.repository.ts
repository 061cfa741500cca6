import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';
import type { CodePurpose } from './codes.service';

/** The one_time_codes table: e-mailed codes, stored as keyed hashes. */
@Injectable()
export class CodesRepository extends Repository {
  /** Ends every live code of this address and purpose. */
  async retire(email: string, purpose: CodePurpose, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE one_time_codes SET consumed_at = now() WHERE email = $1 AND purpose = $2 AND consumed_at IS NULL`, [email, purpose], tx);
  }

  async insert(email: string, purpose: CodePurpose, codeHash: string, maxAttempts: number, ttlSeconds: number, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO one_time_codes (email, purpose, code_hash, max_attempts, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [email, purpose, codeHash, maxAttempts, ttlSeconds],
      tx,
    );
  }

  /**
   * Takes one try of the newest live code in a single conditional UPDATE, so concurrent guesses never get more
   * tries than the code allows; undefined when no code with tries left is live.
   */
  takeTry(email: string, purpose: CodePurpose, tx?: Tx): Promise<{ id: string; code_hash: string } | undefined> {
    return this.one(
      `UPDATE one_time_codes SET attempts = attempts + 1
       WHERE id = (SELECT id FROM one_time_codes WHERE email = $1 AND purpose = $2 AND consumed_at IS NULL
                   ORDER BY created_at DESC LIMIT 1)
         AND consumed_at IS NULL AND attempts < max_attempts AND expires_at > now()
       RETURNING id, code_hash`,
      [email, purpose],
      tx,
    );
  }

  /** Uses a code up; false when it was already used. */
  async consume(id: string, tx?: Tx): Promise<boolean> {
    return (await this.count(`UPDATE one_time_codes SET consumed_at = now() WHERE id = $1 AND consumed_at IS NULL RETURNING id`, [id], tx)) === 1;
  }

  /** Every code of an address (its account is deleted). */
  async removeAll(email: string, tx?: Tx): Promise<void> {
    await this.rows(`DELETE FROM one_time_codes WHERE email = $1`, [email], tx);
  }
}
