import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** A key as its owner's list shows it, with today's spending (replies still running counted at their hold). */
export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  daily_limit_units: string | null;
  spent_today_units: string;
  requests: string;
  tokens: string;
  spent_units: string;
}

/** What a valid key proves on a /v1 request. */
export interface ApiKeyIdentity {
  id: string;
  userId: string;
}

const ROW = `k.id, k.name, k.prefix, k.created_at, k.last_used_at, k.daily_limit_units, k.requests, k.tokens, k.spent_units`;

/**
 * Today's (UTC) spending of key `k`: what its replies completed today were charged, plus the holds of its replies
 * still running (they may be charged up to that).
 */
const SPENT_TODAY = `(
  SELECT coalesce(sum(CASE WHEN t.status IN ('queued', 'running') THEN coalesce(h.amount, 0) ELSE coalesce(t.charged_units, 0) END), 0)
  FROM inference_tasks t LEFT JOIN ledger_transactions h ON h.id = t.hold_id AND h.status = 'pending'
  WHERE t.api_key_id = k.id AND t.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
)`;

/** The api_keys table: keys stored as hashes, their owner, limit and usage counters. */
@Injectable()
export class ApiKeysRepository extends Repository {
  async insert(k: { userId: string; name: string; prefix: string; keyHash: string; dailyLimitUnits: number | null }, tx?: Tx): Promise<string> {
    const [row] = await this.rows<{ id: string }>(
      `INSERT INTO api_keys (user_id, name, prefix, key_hash, daily_limit_units) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [k.userId, k.name, k.prefix, k.keyHash, k.dailyLimitUnits],
      tx,
    );
    return row!.id;
  }

  /** Locks the owner's account row so that concurrent creations count the keys one at a time. */
  async countActiveLocked(userId: string, tx: Tx): Promise<number> {
    await this.rows(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId], tx);
    const [row] = await this.rows<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`, [userId], tx);
    return row!.n;
  }

  listActive(userId: string, tx?: Tx): Promise<ApiKeyRow[]> {
    return this.rows<ApiKeyRow>(
      `SELECT ${ROW}, ${SPENT_TODAY} AS spent_today_units FROM api_keys k
       WHERE k.user_id = $1 AND k.revoked_at IS NULL ORDER BY k.created_at DESC, k.id`,
      [userId],
      tx,
    );
  }

  byId(id: string, tx?: Tx): Promise<ApiKeyRow | undefined> {
    return this.one<ApiKeyRow>(`SELECT ${ROW}, ${SPENT_TODAY} AS spent_today_units FROM api_keys k WHERE k.id = $1`, [id], tx);
  }

  /** Revokes the owner's live key; false when there is none (another user's, unknown or already revoked). */
  async revoke(userId: string, id: string, tx?: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`,
        [id, userId],
        tx,
      )) > 0
    );
  }

  /** The live key with this hash whose owner's account still exists. */
  async byHash(keyHash: string, tx?: Tx): Promise<ApiKeyIdentity | undefined> {
    const [row] = await this.rows<{ id: string; user_id: string }>(
      `SELECT k.id, k.user_id FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND u.deleted_at IS NULL`,
      [keyHash],
      tx,
    );
    return row ? { id: row.id, userId: row.user_id } : undefined;
  }

  /** Records a use, at most once a minute per key (a write per request would cost more than the request). */
  async touch(id: string, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
      tx,
    );
  }

  /**
   * Locks the key (every reservation on it takes this lock first, so two replies can never both take the last of
   * its daily limit) and answers what it may still reserve today: null without a limit, undefined when revoked.
   */
  async lockAllowance(id: string, tx: Tx): Promise<number | null | undefined> {
    const [key] = await this.rows<{ revoked: boolean; daily_limit_units: string | null }>(
      `SELECT revoked_at IS NOT NULL AS revoked, daily_limit_units FROM api_keys WHERE id = $1 FOR UPDATE`,
      [id],
      tx,
    );
    if (!key || key.revoked) return undefined;
    if (key.daily_limit_units === null) return null;
    const [spent] = await this.rows<{ units: string }>(`SELECT ${SPENT_TODAY} AS units FROM api_keys k WHERE k.id = $1`, [id], tx);
    return Math.max(0, Number(key.daily_limit_units) - Number(spent!.units));
  }

  /** Locks a key's row until the transaction ends. */
  async lock(id: string, tx: Tx): Promise<void> {
    await this.rows(`SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE`, [id], tx);
  }

  /** Counts a completed reply on its key, in the transaction that settles it. */
  async recordUsage(id: string, tokens: number, units: number, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE api_keys SET requests = requests + 1, tokens = tokens + $2, spent_units = spent_units + $3 WHERE id = $1`,
      [id, tokens, units],
      tx,
    );
  }

  /** Open replies of a key (to stop when it is revoked). */
  openStreams(id: string, tx?: Tx): Promise<Array<{ stream_id: string; user_id: string }>> {
    return this.rows(`SELECT stream_id, user_id FROM inference_tasks WHERE api_key_id = $1 AND status IN ('queued', 'running')`, [id], tx);
  }

  /**
   * For ledger:check: keys whose counters differ from their completed replies, or from the spending their holds
   * settled to; and days on which a key's replies were charged more than its daily limit.
   */
  async usageMismatches(tx?: Tx): Promise<
    Array<{
      id: string;
      requests: string;
      tokens: string;
      spent_units: string;
      task_requests: string;
      task_tokens: string;
      task_units: string;
      settled_units: string;
    }>
  > {
    return this.rows(
      `SELECT k.id, k.requests, k.tokens, k.spent_units, t.task_requests, t.task_tokens, t.task_units, t.settled_units
       FROM api_keys k CROSS JOIN LATERAL (
         SELECT count(*) AS task_requests,
                coalesce(sum(t.prompt_tokens + t.completion_tokens), 0) AS task_tokens,
                coalesce(sum(t.charged_units), 0) AS task_units,
                coalesce(sum(h.amount) FILTER (WHERE h.status = 'completed'), 0) AS settled_units
         FROM inference_tasks t LEFT JOIN ledger_transactions h ON h.id = t.hold_id
         WHERE t.api_key_id = k.id AND t.status = 'completed'
       ) t
       WHERE k.requests <> t.task_requests OR k.tokens <> t.task_tokens OR k.spent_units <> t.task_units OR k.spent_units <> t.settled_units`,
      [],
      tx,
    );
  }

  overLimitDays(tx?: Tx): Promise<Array<{ id: string; day: string; units: string; daily_limit_units: string }>> {
    return this.rows(
      `SELECT k.id, to_char(date_trunc('day', t.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, sum(t.charged_units) AS units, k.daily_limit_units
       FROM api_keys k JOIN inference_tasks t ON t.api_key_id = k.id
       WHERE k.daily_limit_units IS NOT NULL AND t.status = 'completed'
       GROUP BY k.id, day, k.daily_limit_units HAVING sum(t.charged_units) > k.daily_limit_units`,
      [],
      tx,
    );
  }
}
