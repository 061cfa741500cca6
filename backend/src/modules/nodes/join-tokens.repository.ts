import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** The node_join_tokens table: single-use pairing tokens, stored only as hashes. */
@Injectable()
export class JoinTokensRepository extends Repository {
  async create(userId: string, tokenHash: string, ttlSeconds: number, tx?: Tx): Promise<Date> {
    const row = await this.one<{ expires_at: Date }>(
      `INSERT INTO node_join_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
      [userId, tokenHash, ttlSeconds],
      tx,
    );
    return row!.expires_at;
  }

  /**
   * Uses the token up: only an unused, unexpired token of a live account is consumed, once, whatever the
   * concurrency (the row is updated conditionally). The account it belongs to, or undefined.
   */
  async consume(tokenHash: string, tx: Tx): Promise<{ id: string; userId: string } | undefined> {
    const row = await this.one<{ id: string; user_id: string }>(
      `UPDATE node_join_tokens t SET used_at = now() FROM users u
       WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > now() AND u.id = t.user_id AND u.deleted_at IS NULL
       RETURNING t.id, t.user_id`,
      [tokenHash],
      tx,
    );
    return row && { id: row.id, userId: row.user_id };
  }

  async setNode(id: string, nodeId: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE node_join_tokens SET node_id = $2 WHERE id = $1`, [id, nodeId], tx);
  }
}
