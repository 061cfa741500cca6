import { ForbiddenException, HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { rowsOf } from '../../database/sql';
import { NotificationsService } from '../notifications/notifications.service';
import { toGlob } from './units';

type TxType = Schemas['TransactionType'];
export type PlatformAccount = 'platform:bonus' | 'platform:sales' | 'platform:rewards' | 'platform:spending';

/** 402 with the code the web client looks for (INSUFFICIENT_TOKENS). */
export class InsufficientTokensException extends HttpException {
  constructor(availableUnits: number, requestedUnits: number, message?: string) {
    super(
      {
        statusCode: HttpStatus.PAYMENT_REQUIRED,
        message:
          message ?? `Payment required: insufficient tokens (${toGlob(availableUnits)} GLOB available, ${toGlob(requestedUnits)} GLOB needed).`,
        error: 'INSUFFICIENT_TOKENS',
      },
      HttpStatus.PAYMENT_REQUIRED,
    );
  }
}

/** What the reaper may lag behind the reply timeout before an open hold or task counts as stuck. */
export const STALE_GRACE_SECONDS = 60;

export const BONUS_NOT_TRANSFERABLE = 'The welcome bonus can be spent on the network but not transferred.';

export interface PostingLine {
  accountId: string;
  /** Signed amount in units; the lines of a posting sum to zero. */
  amount: number;
  /**
   * The part of `amount` that is welcome bonus (same sign), default 0. A debit with no bonus part can only take
   * what is not bonus, so transfers never move the bonus.
   */
  bonus?: number;
}

export interface Posting {
  type: TxType;
  description: string;
  reference?: string | null;
  lines: PostingLine[];
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

/** What a transfer may move: the balance less whichever is larger, the holds or the bonus (holds use the bonus first). */
export const transferableUnits = (a: { balance: number; held: number; bonus: number }) => a.balance - Math.max(a.held, a.bonus);

interface HistoryRow {
  id: string;
  type: TxType;
  status: Schemas['TransactionStatus'];
  description: string;
  reference: string | null;
  created_at: Date;
  amount: string;
  counterparty: string | null;
}

const newAddress = () => `glb1${randomBytes(19).toString('hex')}`;

/**
 * The token ledger. Balances live on ledger accounts (one per user, plus platform accounts that issue
 * and collect tokens); every change is a transaction of entries summing to zero, written in the same
 * database transaction as the balance updates. Debits are conditional updates (never below what is free),
 * and accounts are always touched in id order, so concurrent writers neither overdraw nor deadlock.
 */
@Injectable()
export class LedgerService {
  private platformIds = new Map<PlatformAccount, string>();

  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notifications: NotificationsService,
  ) {}

  async platformAccount(code: PlatformAccount, em: EntityManager = this.db.manager): Promise<string> {
    let id = this.platformIds.get(code);
    if (!id) {
      const [row] = (await em.query(`SELECT id FROM ledger_accounts WHERE code = $1`, [code])) as Array<{ id: string }>;
      if (!row) throw new Error(`Platform account ${code} is missing (migrations not applied?)`);
      id = row.id;
      this.platformIds.set(code, id);
    }
    return id;
  }

  /** The user's wallet account id, created on first use (accounts made before the wallet existed). */
  async walletOf(userId: string, em: EntityManager = this.db.manager): Promise<AccountRow> {
    const find = async () =>
      (
        (await em.query(`SELECT id, user_id, address, balance, held, bonus, updated_at FROM ledger_accounts WHERE user_id = $1`, [
          userId,
        ])) as AccountRow[]
      )[0];
    const existing = await find();
    if (existing) return existing;
    await em.query(`INSERT INTO ledger_accounts (kind, user_id, address) VALUES ('user', $1, $2) ON CONFLICT (user_id) DO NOTHING`, [
      userId,
      newAddress(),
    ]);
    return (await find())!;
  }

  /**
   * A new account's wallet, in the account's own transaction; with `welcomeBonus` (the caller has checked that this
   * mailbox never had one) also the bonus, as a non-transferable part of the balance, and its notification.
   */
  async openWallet(em: EntityManager, userId: string, welcomeBonus: boolean): Promise<void> {
    const wallet = await this.walletOf(userId, em);
    const bonus = this.config.welcomeBonusUnits;
    if (bonus <= 0 || !welcomeBonus) return;
    await this.post(em, {
      type: 'welcome_bonus',
      description: 'Welcome bonus',
      reference: userId,
      lines: [
        { accountId: await this.platformAccount('platform:bonus', em), amount: -bonus },
        { accountId: wallet.id, amount: bonus, bonus },
      ],
    });
    await this.notifications.create(
      em,
      userId,
      'welcome_bonus',
      'Welcome to Glob Network!',
      `You received ${toGlob(bonus)} GLOB as a welcome bonus.`,
      {
        amount: toGlob(bonus),
      },
    );
  }

  /** Writes one completed transaction; throws InsufficientTokensException if a user account cannot pay. */
  async post(em: EntityManager, posting: Posting): Promise<string> {
    const sum = posting.lines.reduce((s, l) => s + l.amount, 0);
    if (sum !== 0 || posting.lines.some((l) => !Number.isSafeInteger(l.amount) || l.amount === 0)) {
      throw new Error(`Unbalanced posting: ${JSON.stringify(posting.lines)}`);
    }
    const amount = posting.lines.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
    const [tx] = (await em.query(
      `INSERT INTO ledger_transactions (type, status, amount, description, reference, completed_at)
       VALUES ($1, 'completed', $2, $3, $4, now()) RETURNING id`,
      [posting.type, amount, posting.description, posting.reference ?? null],
    )) as Array<{ id: string }>;
    for (const line of [...posting.lines].sort((a, b) => a.accountId.localeCompare(b.accountId))) {
      await this.move(em, tx!.id, line);
    }
    return tx!.id;
  }

  /**
   * Changes a balance and writes the entry. A debit succeeds only while the free balance (balance − held) covers
   * it and, for the part that is not bonus, while what is left still covers the bonus: that is what keeps the
   * bonus from being transferred.
   */
  private async move(em: EntityManager, transactionId: string, line: PostingLine, releaseHold = 0): Promise<void> {
    const bonus = line.bonus ?? 0;
    const rows = rowsOf<{ id: string }>(
      await em.query(
        `UPDATE ledger_accounts SET balance = balance + $2, held = held - $3, bonus = bonus + $4, updated_at = now()
         WHERE id = $1 AND (kind = 'platform' OR (balance - held + $2 + $3 >= 0 AND balance + $2 >= bonus + $4)) RETURNING id`,
        [line.accountId, line.amount, releaseHold, bonus],
      ),
    );
    if (rows.length === 0) {
      const [acc] = (await em.query(`SELECT balance, held, bonus FROM ledger_accounts WHERE id = $1`, [line.accountId])) as Array<{
        balance: string;
        held: string;
        bonus: string;
      }>;
      const a = { balance: Number(acc?.balance ?? 0), held: Number(acc?.held ?? 0) - releaseHold, bonus: Number(acc?.bonus ?? 0) };
      const free = a.balance - a.held;
      if (bonus === 0 && a.bonus > 0 && free >= -line.amount) {
        const transferable = transferableUnits(a);
        throw new InsufficientTokensException(
          transferable,
          -line.amount,
          `Insufficient transferable balance: ${toGlob(transferable)} GLOB can be transferred, ${toGlob(-line.amount)} GLOB requested. ${BONUS_NOT_TRANSFERABLE}`,
        );
      }
      throw new InsufficientTokensException(free, -line.amount);
    }
    await em.query(`INSERT INTO ledger_entries (transaction_id, account_id, amount, bonus) VALUES ($1, $2, $3, $4)`, [
      transactionId,
      line.accountId,
      line.amount,
      bonus,
    ]);
  }

  // ---- holds: reserve before work, then settle what was used or release it all ----

  /** Reserves up to `units` of the user's free balance; returns the hold's transaction id and the reserved amount. */
  async reserve(userId: string, units: number, description: string, reference: string): Promise<{ holdId: string; reserved: number }> {
    return this.db.transaction(async (em) => {
      const wallet = await this.walletOf(userId, em);
      const [acc] = (await em.query(`SELECT balance, held FROM ledger_accounts WHERE id = $1 FOR UPDATE`, [wallet.id])) as Array<{
        balance: string;
        held: string;
      }>;
      const reserved = Math.min(units, Number(acc!.balance) - Number(acc!.held));
      if (reserved <= 0) throw new InsufficientTokensException(0, units);
      await em.query(`UPDATE ledger_accounts SET held = held + $2, updated_at = now() WHERE id = $1`, [wallet.id, reserved]);
      const [tx] = (await em.query(
        `INSERT INTO ledger_transactions (type, status, amount, description, reference, hold_account_id)
         VALUES ('spending', 'pending', $1, $2, $3, $4) RETURNING id`,
        [reserved, description, reference, wallet.id],
      )) as Array<{ id: string }>;
      return { holdId: tx!.id, reserved };
    });
  }

  /**
   * Settles a hold: `units` (≤ the hold) become one completed spending; the rest is released. Idempotent.
   * Inside the caller's transaction when `outer` is given (a task settles with its own end).
   */
  async settle(holdId: string, units: number, outer?: EntityManager): Promise<void> {
    const run = <T>(work: (em: EntityManager) => Promise<T>) => (outer ? work(outer) : this.db.transaction(work));
    await run(async (em) => {
      const [hold] = (await em.query(`SELECT amount, hold_account_id, status FROM ledger_transactions WHERE id = $1 FOR UPDATE`, [holdId])) as Array<{
        amount: string;
        hold_account_id: string;
        status: string;
      }>;
      if (!hold || hold.status !== 'pending') return;
      const reserved = Number(hold.amount);
      const used = Math.max(0, Math.min(units, reserved));
      if (used === 0) {
        await em.query(`UPDATE ledger_accounts SET held = held - $2, updated_at = now() WHERE id = $1`, [hold.hold_account_id, reserved]);
        await em.query(`UPDATE ledger_transactions SET status = 'failed', completed_at = now() WHERE id = $1`, [holdId]);
        return;
      }
      const spending = await this.platformAccount('platform:spending', em);
      // Spending on the network uses the welcome bonus first. Accounts are still locked in id order.
      for (const [accountId, amount, release] of [
        [hold.hold_account_id, -used, reserved],
        [spending, used, 0],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))) as Array<[string, number, number]>) {
        let bonus = 0;
        if (accountId === hold.hold_account_id) {
          const [acc] = (await em.query(`SELECT bonus FROM ledger_accounts WHERE id = $1 FOR UPDATE`, [accountId])) as Array<{ bonus: string }>;
          bonus = -Math.min(Number(acc!.bonus), used);
        }
        await this.move(em, holdId, { accountId, amount, bonus }, release);
      }
      await em.query(`UPDATE ledger_transactions SET status = 'completed', amount = $2, completed_at = now() WHERE id = $1`, [holdId, used]);
    });
  }

  /** Releases a whole hold (nothing was used). */
  release(holdId: string): Promise<void> {
    return this.settle(holdId, 0);
  }

  // ---- reads ----

  assertOwner(callerId: string, userId: string): void {
    if (callerId !== userId) throw new ForbiddenException('You do not have access to this wallet');
  }

  async balances(userId: string): Promise<{ address: string; balance: number; held: number; bonus: number; updatedAt: Date }> {
    const w = await this.walletOf(userId);
    return { address: w.address, balance: Number(w.balance), held: Number(w.held), bonus: Number(w.bonus), updatedAt: w.updated_at };
  }

  async stats(userId: string): Promise<Schemas['WalletStats']> {
    const w = await this.walletOf(userId);
    const [row] = (await this.db.query(
      `SELECT
         coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward','bonus','welcome_bonus') AND e.amount > 0), 0) AS earned,
         coalesce(-sum(e.amount) FILTER (WHERE t.type = 'spending' AND e.amount < 0), 0) AS spent,
         coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward') AND e.amount > 0
                                          AND t.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '29 days'), 0) AS recent
       FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE e.account_id = $1 AND t.status = 'completed'`,
      [w.id],
    )) as Array<{ earned: string; spent: string; recent: string }>;
    const [count] = (await this.db.query(
      `SELECT count(*)::int AS n FROM (
         SELECT transaction_id FROM ledger_entries WHERE account_id = $1
         UNION SELECT id FROM ledger_transactions WHERE hold_account_id = $1) x`,
      [w.id],
    )) as Array<{ n: number }>;
    return {
      total_earned: toGlob(row!.earned),
      total_spent: toGlob(row!.spent),
      total_transactions: count!.n,
      average_daily_earnings: toGlob(Math.floor(Number(row!.recent) / 30)),
      staking_apr: 0,
      referral_earnings: 0,
    };
  }

  /** The wallet's transactions, newest first, as this wallet sees them; keyset pagination. */
  async history(userId: string, limit: number, cursor?: string, type?: TxType): Promise<Schemas['TransactionPage']> {
    const w = await this.walletOf(userId);
    const after = cursor ? decodeCursor(cursor) : null;
    const params: unknown[] = [w.id, limit + 1];
    const filters: string[] = [];
    if (type) filters.push(`type = $${params.push(type)}`);
    if (after) filters.push(`(created_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`);
    const rows = (await this.db.query(
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
    )) as HistoryRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      transactions: page.map((r) => ({
        id: r.id,
        type: r.type,
        direction: Number(r.amount) > 0 ? 'credit' : 'debit',
        description: r.description,
        amount: toGlob(Math.abs(Number(r.amount))),
        status: r.status,
        timestamp: r.created_at.toISOString(),
        counterparty: r.counterparty,
        reference: r.reference,
      })),
      next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }

  /** One entry per UTC day ending today, oldest first, zeros included. */
  async earnings(userId: string, days: number): Promise<Schemas['WalletEarnings']> {
    const w = await this.walletOf(userId);
    const rows = (await this.db.query(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
              coalesce(sum(e.amount) FILTER (WHERE t.type IN ('earning','reward')), 0) AS amount,
              count(*) FILTER (WHERE t.type = 'earning')::int AS tasks
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN ledger_transactions t
              ON t.status = 'completed' AND t.type IN ('earning','reward') AND (t.created_at AT TIME ZONE 'UTC')::date = d.day
       LEFT JOIN ledger_entries e ON e.transaction_id = t.id AND e.account_id = $1 AND e.amount > 0
       GROUP BY d.day ORDER BY d.day`,
      [w.id, days],
    )) as Array<{ date: string; amount: string; tasks: number }>;
    // Only this wallet's entries count: a task of someone else that day leaves the amount at 0.
    const earnings = rows.map((r) => ({ date: r.date, amount: toGlob(r.amount), tasks: Number(r.amount) > 0 ? r.tasks : 0 }));
    return { days, total: toGlob(rows.reduce((s, r) => s + Number(r.amount), 0)), earnings };
  }

  /**
   * Reconciliation: every balance (and its bonus part) equals the sum of its entries, every transaction sums to zero,
   * holds match, and no bonus left a wallet except by spending on the network.
   */
  async reconcile(em: EntityManager = this.db.manager): Promise<string[]> {
    const problems: string[] = [];
    const accounts = (await em.query(
      `SELECT a.id, a.address, a.balance, coalesce(e.sum, 0) AS entries, a.held, coalesce(h.sum, 0) AS holds,
              a.bonus, coalesce(e.bonus, 0) AS entry_bonus
       FROM ledger_accounts a
       LEFT JOIN (SELECT account_id, sum(amount) AS sum, sum(bonus) AS bonus FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
       LEFT JOIN (SELECT hold_account_id, sum(amount) AS sum FROM ledger_transactions WHERE status = 'pending' GROUP BY hold_account_id) h
              ON h.hold_account_id = a.id
       WHERE a.balance <> coalesce(e.sum, 0) OR a.held <> coalesce(h.sum, 0) OR a.bonus <> coalesce(e.bonus, 0)`,
    )) as Array<Record<string, string>>;
    for (const a of accounts) {
      problems.push(
        `account ${a.address}: balance ${a.balance} vs entries ${a.entries}, held ${a.held} vs pending holds ${a.holds}, bonus ${a.bonus} vs entries ${a.entry_bonus}`,
      );
    }
    const leaked = (await em.query(
      `SELECT e.transaction_id, t.type FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
       WHERE (e.bonus < 0 AND t.type <> 'spending') OR (e.bonus > 0 AND t.type <> 'welcome_bonus')`,
    )) as Array<Record<string, string>>;
    for (const l of leaked) problems.push(`transaction ${l.transaction_id} (${l.type}) moves welcome bonus`);
    // No hold outlives the longest possible reply (the reaper ends replies at the timeout, checking every few seconds).
    const stale = (await em.query(
      `SELECT t.id, t.reference, a.address, extract(epoch FROM now() - t.created_at)::int AS age
       FROM ledger_transactions t JOIN ledger_accounts a ON a.id = t.hold_account_id
       WHERE t.status = 'pending' AND t.created_at < now() - make_interval(secs => $1)`,
      [this.config.inference.replyTimeoutSeconds + STALE_GRACE_SECONDS],
    )) as Array<Record<string, string>>;
    for (const h of stale) problems.push(`hold ${h.id} (${h.reference}) on ${h.address} is ${h.age} s old, older than the longest possible reply`);
    const unbalanced = (await em.query(
      `SELECT transaction_id, sum(amount) AS sum FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`,
    )) as Array<Record<string, string>>;
    for (const t of unbalanced) problems.push(`transaction ${t.transaction_id} sums to ${t.sum}`);
    const negative = (await em.query(`SELECT address, balance FROM ledger_accounts WHERE kind = 'user' AND balance < 0`)) as Array<
      Record<string, string>
    >;
    for (const n of negative) problems.push(`account ${n.address} is negative: ${n.balance}`);
    return problems;
  }

  /** A live user's wallet by its address (a deleted account's wallet receives nothing: its GLOB would be gone). */
  async findByAddress(address: string, em: EntityManager): Promise<AccountRow & { kind: string }> {
    const [row] = (await em.query(
      `SELECT a.id, a.user_id, a.address, a.balance, a.held, a.bonus, a.updated_at, a.kind
       FROM ledger_accounts a JOIN users u ON u.id = a.user_id AND u.deleted_at IS NULL
       WHERE a.address = $1 AND a.kind = 'user'`,
      [address],
    )) as Array<AccountRow & { kind: string }>;
    if (!row) throw new NotFoundException(`No wallet found with address ${address}`);
    return row;
  }
}
