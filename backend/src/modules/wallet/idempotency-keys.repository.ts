import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** The idempotency_keys table: a retried request with the same key gets the first answer and changes nothing again. */
@Injectable()
export class IdempotencyKeysRepository extends Repository {
  /** Claims the key for this request; false when the user already used it (then `prior` has its answer). */
  async claim(userId: string, key: string, requestHash: string, tx: Tx): Promise<boolean> {
    return (
      (await this.count(
        `INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key`,
        [userId, key, requestHash],
        tx,
      )) > 0
    );
  }

  async prior<T>(userId: string, key: string, tx: Tx): Promise<{ requestHash: string; response: T | null } | undefined> {
    const row = await this.one<{ request_hash: string; response: T | null }>(
      `SELECT request_hash, response FROM idempotency_keys WHERE user_id = $1 AND key = $2`,
      [userId, key],
      tx,
    );
    return row && { requestHash: row.request_hash, response: row.response };
  }

  async save(userId: string, key: string, statusCode: number, response: unknown, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE idempotency_keys SET status_code = $3, response = $4 WHERE user_id = $1 AND key = $2`,
      [userId, key, statusCode, JSON.stringify(response)],
      tx,
    );
  }
}
