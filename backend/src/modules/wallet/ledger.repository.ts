import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import type { Cursor } from '../../common/cursor';
import { Repository, type Tx } from '../../database/repository';

type TxType = Schemas['TransactionType'];
export type PlatformAccount = 'platform:bonus' | 'platform:sales' | 'platform:emission' | 'platform:rewards' | 'platform:spending';

/**
 * The mints: the only accounts that issue GLOB (their balance is minus what they issued), each by one type of
 * transaction. Every other account, platform:rewards and platform:spending included, only holds what it received.
 */
export const MINTS: Record<Extract<PlatformAccount, 'platform:bonus' | 'platform:sales' | 'platform:emission'>, TxType[]> = {
  'platform:sales': ['purchase'],
  'platform:bonus': ['welcome_bonus', 'bonus'],
  'platform:emission': ['reward'],
};
const MINT_CODES = Object.keys(MINTS);

/** A ledger account's money, in units; `held` is reserved by holds, `bonus` the welcome bonus part of the balance. */
export interface Funds {
  balance: number;
  held: number;
  bonus: number;
}

export interface LedgerAccount extends Funds {
  id: string;
  userId: string | null;
  address: string;
  updatedAt: Date;
}

export interface Hold {
  amount: number;
  accountId: string;
  status: Schemas['TransactionStatus'];
}

export interface HistoryRow {
  id: string;
  type: TxType;
  status: Schemas['TransactionStatus'];
  description: string;
  reference: string | null;
  created_at: Date;
  /** Signed, as this wallet saw it. */
  amount: string;
  counterparty: string | null;
}

interface AccountRow {
  id: string;
  user_id: string | null;
  address: string;
  balance: string;
  held: string;
  bonus: string;
  updated_at: Date;
}

const ACCOUNT = 'a.id, a.user_id, a.address, a.balance, a.held, a.bonus, a.updated_at';
const toAccount = (r: AccountRow): LedgerAccount => ({
  id: r.id,
  userId: r.user_id,
  address: r.address,
  balance: Number(r.balance),
  held: Number(r.held),
  bonus: Number(r.bonus),
  updatedAt: r.updated_at,
});
const toFunds = (r: Record<'balance' | 'held' | 'bonus', string | number>): Funds => ({
  balance: Number(r.balance),
  held: Number(r.held),
  bonus: Number(r.bonus),
});

export interface PostedLine {
  accountId: string;
  amount: number;
  /**
   * The part of `amount` that is welcome bonus; null: as much of a debit as the account's bonus covers, read from its
   * locked funds in the statement (spending on the network uses the bonus first), so only on an account's first line.
   */
  bonus: number | null;
  /** What the line releases from the account's holds (a settling hold). */
  release: number;
}

/**
 * One of the completed transactions post writes together: a new one with its id (made by the caller), or, with
 * `hold`, the pending hold `id` completed as a spending (its type, description and reference stay the hold's).
 */
export interface NewPosting {
  id: string;
  hold?: boolean;
  type: TxType;
  amount: number;
  description: string;
  reference: string | null;
  lines: PostedLine[];
}

export interface PostResult {
  ok: boolean;
  /** When the new transactions were written (null when none was). */
  createdAt: Date | null;
  /** Per posting, in order: its lines' accounts' funds after it (and every posting before it); empty when not ok. */
  after: Array<Map<string, Funds>>;
  /** When not ok: the accounts' funds as locked, before the postings, and the accounts that cannot pay a line. */
  funds: Map<string, Funds>;
  refused: string[];
}

// Postings in one statement (see LedgerRepository.post). $1..$5: the lines' postings (1-based), accounts, amounts,
// bonus parts (null: the bonus first, from the locked funds) and releases, in posting order; $6: the mints;
// $7..$12: the postings' ids, whether each completes the pending hold of that id, types, amounts, descriptions and
// references. A line is checked against its account's funds after its own posting and every earlier one (a running
// sum per account), as if the postings were written one after another.
const POST = `WITH
  locked AS (SELECT a.id, a.kind, a.code, a.balance, a.held, a.bonus FROM ledger_accounts a WHERE a.id = ANY($2::uuid[]) ORDER BY a.id FOR UPDATE),
  l AS (SELECT l.posting, l.account_id, l.amount, l.release,
               coalesce(l.bonus, CASE WHEN l.amount < 0 THEN -least(k.bonus, -l.amount) ELSE 0 END) AS bonus
        FROM unnest($1::int[], $2::uuid[], $3::bigint[], $4::bigint[], $5::bigint[]) AS l(posting, account_id, amount, bonus, release)
        LEFT JOIN locked k ON k.id = l.account_id),
  run AS (
    SELECT l.posting, l.account_id, k.kind, k.code, k.held - sum(l.release) OVER w AS held,
           k.balance + sum(l.amount) OVER w AS balance, k.bonus + sum(l.bonus) OVER w AS bonus
    FROM l JOIN locked k ON k.id = l.account_id
    WINDOW w AS (PARTITION BY l.account_id ORDER BY l.posting)),
  pays AS (
    SELECT run.*, CASE WHEN kind = 'platform' THEN code = ANY($6::text[]) OR balance >= 0 ELSE balance - held >= 0 AND balance >= bonus END AS pays
    FROM run),
  ok AS (SELECT count(*) = cardinality($2::uuid[]) AND coalesce(bool_and(pays), false) AS ok FROM pays),
  p AS (SELECT * FROM unnest($7::uuid[], $8::bool[], $9::text[], $10::bigint[], $11::text[], $12::text[])
         WITH ORDINALITY AS p(id, hold, type, amount, description, reference, posting)),
  ins AS (INSERT INTO ledger_transactions (id, type, status, amount, description, reference, completed_at)
          SELECT p.id, p.type, 'completed', p.amount, p.description, p.reference, now() FROM p WHERE NOT p.hold AND (SELECT ok FROM ok)
          RETURNING id, created_at),
  done AS (UPDATE ledger_transactions h SET status = 'completed', amount = p.amount, completed_at = now()
           FROM p WHERE p.hold AND h.id = p.id AND h.status = 'pending' AND (SELECT ok FROM ok)
           RETURNING h.id),
  t AS (SELECT id FROM ins UNION ALL SELECT id FROM done),
  net AS (SELECT account_id, sum(amount) AS amount, sum(bonus) AS bonus, sum(release) AS release FROM l GROUP BY account_id),
  moved AS (
    UPDATE ledger_accounts a SET balance = a.balance + n.amount, held = a.held - n.release, bonus = a.bonus + n.bonus, updated_at = now()
    FROM net n
    WHERE a.id = n.account_id AND (SELECT ok FROM ok)
      AND CASE WHEN a.kind = 'platform' THEN a.code = ANY($6::text[]) OR a.balance + n.amount >= 0
               ELSE a.balance - a.held + n.amount + n.release >= 0 AND a.balance + n.amount >= a.bonus + n.bonus END
    RETURNING a.id),
  e AS (INSERT INTO ledger_entries (transaction_id, account_id, amount, bonus)
        SELECT t.id, l.account_id, l.amount, l.bonus FROM l JOIN p USING (posting) JOIN t ON t.id = p.id ORDER BY l.posting, l.account_id)
  SELECT ok.ok, (SELECT count(*) FROM t)::int AS written, (SELECT min(created_at) FROM ins) AS created_at,
         (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM net)::int AS accounts,
         (SELECT json_agg(json_build_object('posting', x.posting, 'id', x.account_id, 'balance', x.balance, 'held', x.held, 'bonus', x.bonus)) FROM pays x) AS after,
         CASE WHEN NOT ok.ok THEN (SELECT json_agg(json_build_object('id', k.id, 'balance', k.balance, 'held', k.held, 'bonus', k.bonus)) FROM locked k) END AS funds,
         CASE WHEN NOT ok.ok THEN (SELECT json_agg(DISTINCT x.account_id) FROM pays x WHERE NOT x.pays) END AS refused
  FROM ok`;

/** The ledger's tables: ledger_accounts, ledger_transactions and ledger_entries. */
@Injectable()
export class LedgerRepository extends Repository {
  async platformAccountId(code: PlatformAccount, tx?: Tx): Promise<string | undefined> {
    return (await this.one<{ id: string }>(`SELECT id FROM ledger_accounts WHERE code = $1`, [code], tx))?.id;
  }

  async walletOf(userId: string, tx?: Tx): Promise<LedgerAccount | undefined> {
    const row = await this.one<AccountRow>(`SELECT ${ACCOUNT} FROM ledger_accounts a WHERE a.user_id = $1`, [userId], tx);
    return row && toAccount(row);
  }

  /** A live user's wallet by its address. */
  async liveWalletAt(address: string, tx?: Tx): Promise<LedgerAccount | undefined> {
    const row = await this.one<AccountRow>(
      `SELECT ${ACCOUNT} FROM ledger_accounts a JOIN users u ON u.id = a.user_id AND u.deleted_at IS NULL
       WHERE a.address = $1 AND a.kind = 'user'`,
      [address],
      tx,
    );
    return row && toAccount(row);
  }

  /** Opens a user's wallet unless one exists (two first uses at once both end with the same wallet). */
  async openWallet(userId: string, address: string, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO ledger_accounts (kind, user_id, address) VALUES ('user', $1, $2) ON CONFLICT (user_id) DO NOTHING`,
      [userId, address],
      tx,
    );
  }

  async addHeld(accountId: string, units: number, tx: Tx): Promise<void> {
    await this.rows(`UPDATE ledger_accounts SET held = held + $2, updated_at = now() WHERE id = $1`, [accountId, units], tx);
  }

  /** The accounts' funds, each locked until the transaction ends, locked in id order in one statement. */
  async lockAll(accountIds: string[], tx: Tx): Promise<Map<string, Funds>> {
    const rows = await this.rows<{ id: string; balance: string; held: string; bonus: string }>(
      `SELECT id, balance, held, bonus FROM ledger_accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      [accountIds],
      tx,
    );
    return new Map(rows.map((r) => [r.id, toFunds(r)]));
  }

  /**
   * Writes completed transactions in one statement, in order, all of them or none: locks their lines' accounts in id
   * order, checks every line against its account's funds after its own posting and every earlier one (a user account
   * only while its free balance, less holds and plus what the line releases, stays ≥ 0 and, for the part that is not
   * bonus, what is left still covers the bonus; a platform account that is not a mint stays at or above zero), and only
   * when every line passes inserts the new transactions (or completes the pending holds), moves each account once by
   * its net and writes every posting's entries (each posting a balanced transaction of its own, its entries checked by
   * the deferred trigger at commit). `ok` false: nothing was written; `funds` and `refused` say why.
   */
  async post(postings: NewPosting[], tx: Tx): Promise<PostResult> {
    const lines = postings.flatMap((p, i) => p.lines.map((l) => ({ ...l, posting: i + 1 })));
    // A bonus read from the locked funds (null) is the funds before the statement: right only on the account's first line.
    const seen = new Set<string>();
    for (const l of lines) {
      if (l.bonus === null && seen.has(l.accountId)) throw new Error(`Posting ${l.posting} reads the bonus of ${l.accountId} after an earlier line`);
      seen.add(l.accountId);
    }
    type FundsRow = { id: string; balance: number; held: number; bonus: number };
    const row = await this.one<{
      ok: boolean;
      written: number;
      created_at: Date | null;
      moved: number;
      accounts: number;
      after: Array<FundsRow & { posting: number }> | null;
      funds: FundsRow[] | null;
      refused: string[] | null;
    }>(
      POST,
      [
        lines.map((l) => l.posting),
        lines.map((l) => l.accountId),
        lines.map((l) => l.amount),
        lines.map((l) => l.bonus),
        lines.map((l) => l.release),
        MINT_CODES,
        postings.map((p) => p.id),
        postings.map((p) => !!p.hold),
        postings.map((p) => p.type),
        postings.map((p) => p.amount),
        postings.map((p) => p.description),
        postings.map((p) => p.reference),
      ],
      tx,
    );
    if (!row!.ok) {
      return {
        ok: false,
        createdAt: null,
        after: [],
        funds: new Map((row!.funds ?? []).map((r) => [r.id, toFunds(r)])),
        refused: row!.refused ?? [],
      };
    }
    // A hold no longer pending, or an account whose guarded update did not run, would leave the ledger unbalanced.
    if (row!.written !== postings.length || row!.moved !== row!.accounts) {
      throw new Error(`Ledger posting wrote ${row!.written} of ${postings.length} transactions, moved ${row!.moved} of ${row!.accounts} accounts`);
    }
    const after = postings.map(() => new Map<string, Funds>());
    for (const r of row!.after ?? []) after[r.posting - 1]!.set(r.id, toFunds(r));
    return { ok: true, createdAt: row!.created_at, after, funds: new Map(), refused: [] };
  }

  /**
   * Reserves up to `units` of the free balance of the user's wallet in one statement (the wallet locked until the
   * transaction ends; without `tx`, the statement is its own transaction): a pending spending on it and its `held`
   * raised by as much. Null when the user has no wallet yet.
   */
  async reserve(
    userId: string,
    units: number,
    description: string,
    reference: string,
    tx?: Tx,
  ): Promise<{ holdId: string | null; reserved: number } | null> {
    const row = await this.one<{ hold_id: string | null; reserved: string }>(
      `WITH w AS (SELECT id, least($2::bigint, balance - held) AS reserved FROM ledger_accounts WHERE user_id = $1 FOR UPDATE),
       h AS (UPDATE ledger_accounts a SET held = a.held + w.reserved, updated_at = now() FROM w WHERE a.id = w.id AND w.reserved > 0 RETURNING a.id),
       t AS (INSERT INTO ledger_transactions (type, status, amount, description, reference, hold_account_id)
             SELECT 'spending', 'pending', w.reserved, $3, $4, w.id FROM w WHERE w.reserved > 0 RETURNING id)
       SELECT (SELECT id FROM t) AS hold_id, w.reserved FROM w`,
      [userId, units, description, reference],
      tx,
    );
    return row ? { holdId: row.hold_id, reserved: Number(row.reserved) } : null;
  }

  /** The user's wallet and the live user's wallet at `address`, in one read (either undefined when missing). */
  async transferEnds(userId: string, address: string, tx?: Tx): Promise<{ from?: LedgerAccount; to?: LedgerAccount }> {
    const rows = await this.rows<AccountRow & { side: 'from' | 'to' }>(
      `SELECT 'from' AS side, ${ACCOUNT} FROM ledger_accounts a WHERE a.user_id = $1
       UNION ALL
       SELECT 'to', ${ACCOUNT} FROM ledger_accounts a JOIN users u ON u.id = a.user_id AND u.deleted_at IS NULL
       WHERE a.address = $2 AND a.kind = 'user'`,
      [userId, address],
      tx,
    );
    const side = (s: 'from' | 'to') => {
      const r = rows.find((x) => x.side === s);
      return r && toAccount(r);
    };
    return { from: side('from'), to: side('to') };
  }

  /** A hold (a pending spending), locked until the transaction ends. */
  async lockHold(holdId: string, tx: Tx): Promise<Hold | undefined> {
    const row = await this.one<{ amount: string; hold_account_id: string; status: Hold['status'] }>(
      `SELECT amount, hold_account_id, status FROM ledger_transactions WHERE id = $1 FOR UPDATE`,
      [holdId],
      tx,
    );
    return row && { amount: Number(row.amount), accountId: row.hold_account_id, status: row.status };
  }

  async endTransaction(id: string, status: 'completed' | 'failed', amount: number | null, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE ledger_transactions SET status = $2, amount = coalesce($3, amount), completed_at = now() WHERE id = $1`,
      [id, status, amount],
      tx,
    );
  }

  async setDescription(id: string, description: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE ledger_transactions SET description = $2 WHERE id = $1`, [id, description], tx);
  }

  async transactionAt(id: string, tx?: Tx): Promise<{ description: string; createdAt: Date } | undefined> {
    const row = await this.one<{ description: string; created_at: Date }>(
      `SELECT description, created_at FROM ledger_transactions WHERE id = $1`,
      [id],
      tx,
    );
    return row && { description: row.description, createdAt: row.created_at };
  }

  // ---- the emission ----

  /** The emission's state, locked until the transaction ends (one accrual at a time). */
  // ---- reads for the wallet ----

  /** Rewards recorded for the user's nodes and not yet paid (nor withheld after a failed spot check), in units. */
  async pendingRewards(userId: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ sum: string }>(
      `SELECT coalesce(sum(units), 0) AS sum FROM node_rewards WHERE owner_id = $1 AND paid_at IS NULL AND withheld_at IS NULL`,
      [userId],
      tx,
    );
    return Number(row!.sum);
  }

  /** Completed totals of one account: everything earned, spent, and earned over the last 30 UTC days. */
  async totals(accountId: string, tx?: Tx): Promise<{ earned: number; spent: number; recent: number; transactions: number }> {
    const row = await this.one<{ earned: string; spent: string; recent: string; transactions: number }>(
      `SELECT
         coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward','bonus','welcome_bonus') AND e.amount > 0), 0) AS earned,
         coalesce(-sum(e.amount) FILTER (WHERE (t.type = 'spending' AND e.amount < 0) OR (t.type = 'refund' AND e.amount > 0)), 0) AS spent,
         coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward') AND e.amount > 0
                                          AND t.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '29 days'), 0) AS recent,
         (SELECT count(*)::int FROM (
            SELECT transaction_id FROM ledger_entries WHERE account_id = $1
            UNION SELECT id FROM ledger_transactions WHERE hold_account_id = $1) x) AS transactions
       FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE e.account_id = $1 AND t.status = 'completed'`,
      [accountId],
      tx,
    );
    return { earned: Number(row!.earned), spent: Number(row!.spent), recent: Number(row!.recent), transactions: row!.transactions };
  }

  /** The account's transactions and open holds, newest first, `limit` rows after the keyset cursor. */
  history(accountId: string, limit: number, after: Cursor | null, type: TxType | undefined, tx?: Tx): Promise<HistoryRow[]> {
    const params: unknown[] = [accountId, limit];
    const filters: string[] = [];
    if (type) filters.push(`type = $${params.push(type)}`);
    if (after) filters.push(`(created_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`);
    return this.rows<HistoryRow>(
      `SELECT * FROM (
         SELECT t.id, t.type, t.status, t.description, t.reference, t.created_at, e.amount::text AS amount,
                (SELECT a.address FROM ledger_entries o JOIN ledger_accounts a ON a.id = o.account_id
                 WHERE o.transaction_id = t.id AND o.account_id <> e.account_id AND a.kind = 'user' LIMIT 1) AS counterparty
         FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
         WHERE e.account_id = $1
         UNION ALL
         SELECT t.id, t.type, t.status, t.description, t.reference, t.created_at, (-t.amount)::text, NULL
         FROM ledger_transactions t WHERE t.hold_account_id = $1 AND t.status <> 'completed'
       ) h ${filters.length ? `WHERE ${filters.join(' AND ')}` : ''}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
      tx,
    );
  }

  /** Per UTC day ending today, oldest first: what the account earned (units) and in how many earning transactions of that day. */
  async earningsByDay(accountId: string, days: number, tx?: Tx): Promise<Array<{ date: string; amount: number; tasks: number }>> {
    const rows = await this.rows<{ date: string; amount: string; tasks: number }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
              coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward')), 0) AS amount,
              count(*) FILTER (WHERE t.type = 'earning')::int AS tasks
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN ledger_transactions t
              ON t.status = 'completed' AND t.type IN ('earning','reward') AND (t.created_at AT TIME ZONE 'UTC')::date = d.day
       LEFT JOIN ledger_entries e ON e.transaction_id = t.id AND e.account_id = $1 AND e.amount > 0
       GROUP BY d.day ORDER BY d.day`,
      [accountId, days],
      tx,
    );
    return rows.map((r) => ({ date: r.date, amount: Number(r.amount), tasks: r.tasks }));
  }

  /** What a settled charge took from its payer: the hold's entry on the account it held (amounts positive). */
  chargeEntry(holdId: string, tx?: Tx): Promise<{ accountId: string; amount: number; bonus: number } | undefined> {
    return this.one<{ account_id: string; amount: string; bonus: string }>(
      `SELECT e.account_id, -e.amount AS amount, -e.bonus AS bonus FROM ledger_transactions t
       JOIN ledger_entries e ON e.transaction_id = t.id AND e.account_id = t.hold_account_id
       WHERE t.id = $1 AND t.status = 'completed' AND t.type = 'spending'`,
      [holdId],
      tx,
    ).then((r) => r && { accountId: r.account_id, amount: Number(r.amount), bonus: Number(r.bonus) });
  }

  /** What the charge of task `taskId` moved into the rewards account (its rewards share). */
  async fundedShare(taskId: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ units: string }>(
      `SELECT coalesce(sum(e.amount), 0) AS units FROM ledger_transactions t
       JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id AND a.code = 'platform:rewards'
       WHERE t.type = 'reward' AND t.reference = $1`,
      [taskId],
      tx,
    );
    return Number(row?.units ?? 0);
  }

  // ---- reconciliation ----

  /** Accounts whose balance, held or bonus part differs from their entries and pending holds. */
  mismatchedAccounts(tx?: Tx): Promise<Array<Record<'address' | 'balance' | 'entries' | 'held' | 'holds' | 'bonus' | 'entry_bonus', string>>> {
    return this.rows(
      `SELECT a.address, a.balance, coalesce(e.sum, 0) AS entries, a.held, coalesce(h.sum, 0) AS holds,
              a.bonus, coalesce(e.bonus, 0) AS entry_bonus
       FROM ledger_accounts a
       LEFT JOIN (SELECT account_id, sum(amount) AS sum, sum(bonus) AS bonus FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
       LEFT JOIN (SELECT hold_account_id, sum(amount) AS sum FROM ledger_transactions WHERE status = 'pending' GROUP BY hold_account_id) h
              ON h.hold_account_id = a.id
       WHERE a.balance <> coalesce(e.sum, 0) OR a.held <> coalesce(h.sum, 0) OR a.bonus <> coalesce(e.bonus, 0)`,
      [],
      tx,
    );
  }

  /** Entries that move welcome bonus other than by granting it or spending it on the network. */
  bonusLeaks(tx?: Tx): Promise<Array<{ transaction_id: string; type: string }>> {
    return this.rows(
      `SELECT e.transaction_id, t.type FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE (e.bonus < 0 AND t.type <> 'spending') OR (e.bonus > 0 AND t.type NOT IN ('welcome_bonus', 'refund', 'earning'))`,
      [],
      tx,
    );
  }

  /** Holds still pending after `seconds`. */
  staleHolds(seconds: number, tx?: Tx): Promise<Array<{ id: string; reference: string; address: string; age: number }>> {
    return this.rows(
      `SELECT t.id, t.reference, a.address, extract(epoch FROM now() - t.created_at)::int AS age
       FROM ledger_transactions t JOIN ledger_accounts a ON a.id = t.hold_account_id
       WHERE t.status = 'pending' AND t.created_at < now() - make_interval(secs => $1)`,
      [seconds],
      tx,
    );
  }

  unbalancedTransactions(tx?: Tx): Promise<Array<{ transaction_id: string; sum: string }>> {
    return this.rows(`SELECT transaction_id, sum(amount) AS sum FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`, [], tx);
  }

  /** Every platform account's balance by code. */
  async platformBalances(tx?: Tx): Promise<Map<string, number>> {
    const rows = await this.rows<{ code: string; balance: string }>(`SELECT code, balance FROM ledger_accounts WHERE kind = 'platform'`, [], tx);
    return new Map(rows.map((r) => [r.code, Number(r.balance)]));
  }

  async userSupply(tx?: Tx): Promise<number> {
    return Number((await this.one<{ sum: string }>(`SELECT coalesce(sum(balance), 0) AS sum FROM ledger_accounts WHERE kind = 'user'`, [], tx))!.sum);
  }

  /** Entries on a mint that credit it, or debit it by a transaction of a type that mint does not issue. */
  mintMisuse(tx?: Tx): Promise<Array<{ transaction_id: string; code: string; type: string; amount: string }>> {
    return this.rows(
      `SELECT e.transaction_id, a.code, t.type, e.amount FROM ledger_entries e
       JOIN ledger_accounts a ON a.id = e.account_id JOIN ledger_transactions t ON t.id = e.transaction_id
       JOIN jsonb_each($1::jsonb) m(code, types) ON m.code = a.code
       WHERE e.amount > 0 OR NOT m.types ? t.type`,
      [JSON.stringify(MINTS)],
      tx,
    );
  }

  /** Funding (`reward`) transactions that move GLOB anywhere but from the emission or spending into the rewards account. */
  misdirectedFunding(tx?: Tx): Promise<Array<{ transaction_id: string; address: string; amount: string }>> {
    return this.rows(
      `SELECT e.transaction_id, a.address, e.amount FROM ledger_entries e
       JOIN ledger_accounts a ON a.id = e.account_id JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE t.type = 'reward' AND NOT ((e.amount > 0 AND coalesce(a.code, '') = 'platform:rewards')
                                        OR (e.amount < 0 AND coalesce(a.code, '') IN ('platform:emission', 'platform:spending')))`,
      [],
      tx,
    );
  }

  /**
   * Refunds that are not a reply's charge going back for a reason the platform records: each must be the refund a
   * failed spot check records, or refund a task whose reward a suspension withheld (every reply a suspended node
   * delivered since its last payout), once per task; credit only the task's requester, no more than the charge took
   * (and no more bonus than it used), and take only from the spending and rewards accounts.
   */
  unjustifiedRefunds(tx?: Tx): Promise<Array<{ transaction_id: string; reason: string }>> {
    return this.rows(
      `WITH r AS (
         SELECT t.id, c.status AS check_status, w.task_id AS withheld_task, it.user_id, ch.amount AS charged, ch.bonus AS charged_bonus,
                coalesce(nr.units, 0) AS rewarded,
                (SELECT count(*) FROM ledger_transactions o WHERE o.type = 'refund' AND o.reference = t.reference) AS refunds_of_task,
                (SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                  WHERE e.transaction_id = t.id AND a.user_id IS NOT DISTINCT FROM it.user_id AND a.kind = 'user') AS credited,
                (SELECT sum(e.bonus) FROM ledger_entries e WHERE e.transaction_id = t.id AND e.amount > 0) AS bonus,
                (SELECT count(*) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                  WHERE e.transaction_id = t.id AND NOT ((e.amount < 0 AND coalesce(a.code, '') IN ('platform:spending', 'platform:rewards'))
                                                      OR (e.amount > 0 AND a.kind = 'user' AND a.user_id IS NOT DISTINCT FROM it.user_id))) AS strays
         FROM ledger_transactions t
         LEFT JOIN spot_checks c ON c.refund_transaction_id = t.id
         LEFT JOIN node_rewards w ON c.id IS NULL AND w.task_id::text = t.reference AND w.withheld_at IS NOT NULL
         LEFT JOIN inference_tasks it ON it.id = coalesce(c.task_id, w.task_id)
         LEFT JOIN LATERAL (SELECT -e.amount AS amount, -e.bonus AS bonus FROM ledger_transactions h
                            JOIN ledger_entries e ON e.transaction_id = h.id AND e.account_id = h.hold_account_id
                            WHERE h.id = it.hold_id AND h.status = 'completed') ch ON true
         LEFT JOIN node_rewards nr ON nr.task_id = it.id AND nr.paid_at IS NOT NULL
         WHERE t.type = 'refund')
       SELECT id AS transaction_id,
              CASE WHEN check_status IS NULL AND withheld_task IS NULL THEN 'neither a spot check nor a suspension refunds by it'
                   WHEN check_status IS NOT NULL AND check_status <> 'failed' THEN 'its spot check did not fail'
                   WHEN refunds_of_task > 1 THEN 'its task was refunded more than once'
                   WHEN charged IS NULL THEN 'its task charged nothing'
                   WHEN strays > 0 THEN 'it moves GLOB other than from spending or rewards to the task''s requester'
                   WHEN coalesce(credited, 0) > charged - rewarded THEN 'it gives back more than the task charged, less the reward it paid'
                   ELSE 'it gives back more welcome bonus than the charge used' END AS reason
       FROM r
       WHERE (check_status IS NULL AND withheld_task IS NULL) OR check_status <> 'failed' OR refunds_of_task > 1 OR charged IS NULL
          OR strays > 0 OR coalesce(credited, 0) > charged - rewarded OR coalesce(bonus, 0) > charged_bonus`,
      [],
      tx,
    );
  }

  negativeUserAccounts(tx?: Tx): Promise<Array<{ address: string; balance: string }>> {
    return this.rows(`SELECT address, balance FROM ledger_accounts WHERE kind = 'user' AND balance < 0`, [], tx);
  }

  async size(tx?: Tx): Promise<{ accounts: number; transactions: number }> {
    const row = await this.one<{ accounts: number; transactions: number }>(
      `SELECT (SELECT count(*) FROM ledger_accounts)::int AS accounts, (SELECT count(*) FROM ledger_transactions)::int AS transactions`,
      [],
      tx,
    );
    return row!;
  }
}
