import { ForbiddenException, HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { Transactions, type Tx } from '../../database/repository';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerRepository, type Funds, type LedgerAccount, type PlatformAccount } from './ledger.repository';
import { toGlob } from './units';

type TxType = Schemas['TransactionType'];
export type { PlatformAccount };

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

/** What a transfer may move: the balance less whichever is larger, the holds or the bonus (holds use the bonus first). */
export const transferableUnits = (a: Funds) => a.balance - Math.max(a.held, a.bonus);

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
    private readonly ledger: LedgerRepository,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notifications: NotificationsService,
  ) {}

  async platformAccount(code: PlatformAccount, tx?: Tx): Promise<string> {
    let id = this.platformIds.get(code);
    if (!id) {
      id = await this.ledger.platformAccountId(code, tx);
      if (!id) throw new Error(`Platform account ${code} is missing (migrations not applied?)`);
      this.platformIds.set(code, id);
    }
    return id;
  }

  /** The user's wallet account, created on first use (accounts made before the wallet existed). */
  async walletOf(userId: string, tx?: Tx): Promise<LedgerAccount> {
    const existing = await this.ledger.walletOf(userId, tx);
    if (existing) return existing;
    await this.ledger.openWallet(userId, newAddress(), tx);
    return (await this.ledger.walletOf(userId, tx))!;
  }

  /**
   * A new account's wallet, in the account's own transaction; with `welcomeBonus` (the caller has checked that this
   * mailbox never had one) also the bonus, as a non-transferable part of the balance, and its notification.
   */
  async openWallet(userId: string, welcomeBonus: boolean, tx: Tx): Promise<void> {
    const wallet = await this.walletOf(userId, tx);
    const bonus = this.config.welcomeBonusUnits;
    if (bonus <= 0 || !welcomeBonus) return;
    await this.post(
      {
        type: 'welcome_bonus',
        description: 'Welcome bonus',
        reference: userId,
        lines: [
          { accountId: await this.platformAccount('platform:bonus', tx), amount: -bonus },
          { accountId: wallet.id, amount: bonus, bonus },
        ],
      },
      tx,
    );
    await this.notifications.create(
      userId,
      'welcome_bonus',
      'Welcome to Glob Network!',
      `You received ${toGlob(bonus)} GLOB as a welcome bonus.`,
      { amount: toGlob(bonus) },
      tx,
    );
  }

  /** Writes one completed transaction; throws InsufficientTokensException if a user account cannot pay. */
  async post(posting: Posting, tx: Tx): Promise<string> {
    const sum = posting.lines.reduce((s, l) => s + l.amount, 0);
    if (sum !== 0 || posting.lines.some((l) => !Number.isSafeInteger(l.amount) || l.amount === 0)) {
      throw new Error(`Unbalanced posting: ${JSON.stringify(posting.lines)}`);
    }
    const amount = posting.lines.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
    const id = await this.ledger.insertTransaction(
      { type: posting.type, status: 'completed', amount, description: posting.description, reference: posting.reference ?? null },
      tx,
    );
    for (const line of [...posting.lines].sort((a, b) => a.accountId.localeCompare(b.accountId))) {
      await this.move(id, line, 0, tx);
    }
    return id;
  }

  /**
   * Changes a balance and writes the entry. A debit succeeds only while the free balance (balance − held) covers
   * it and, for the part that is not bonus, while what is left still covers the bonus: that is what keeps the
   * bonus from being transferred.
   */
  private async move(transactionId: string, line: PostingLine, releaseHold: number, tx: Tx): Promise<void> {
    const bonus = line.bonus ?? 0;
    if (!(await this.ledger.applyLine(line.accountId, line.amount, bonus, releaseHold, tx))) {
      const funds = (await this.ledger.funds(line.accountId, tx)) ?? { balance: 0, held: 0, bonus: 0 };
      const a = { ...funds, held: funds.held - releaseHold };
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
    await this.ledger.insertEntry(transactionId, line.accountId, line.amount, bonus, tx);
  }

  // ---- holds: reserve before work, then settle what was used or release it all ----

  /** Reserves up to `units` of the user's free balance; returns the hold's transaction id and the reserved amount. */
  async reserve(userId: string, units: number, description: string, reference: string): Promise<{ holdId: string; reserved: number }> {
    return this.transactions.run(async (tx) => {
      const wallet = await this.walletOf(userId, tx);
      const funds = await this.ledger.lockFunds(wallet.id, tx);
      const reserved = Math.min(units, funds.balance - funds.held);
      if (reserved <= 0) throw new InsufficientTokensException(0, units);
      await this.ledger.addHeld(wallet.id, reserved, tx);
      const holdId = await this.ledger.insertTransaction(
        { type: 'spending', status: 'pending', amount: reserved, description, reference, holdAccountId: wallet.id },
        tx,
      );
      return { holdId, reserved };
    });
  }

  /**
   * Settles a hold: `units` (≤ the hold) become one completed spending; the rest is released. Idempotent.
   * Inside the caller's transaction when `tx` is given (a task settles with its own end).
   */
  async settle(holdId: string, units: number, tx?: Tx): Promise<void> {
    if (!tx) return this.transactions.run((own) => this.settle(holdId, units, own));
    const hold = await this.ledger.lockHold(holdId, tx);
    if (!hold || hold.status !== 'pending') return;
    const used = Math.max(0, Math.min(units, hold.amount));
    if (used === 0) {
      await this.ledger.addHeld(hold.accountId, -hold.amount, tx);
      await this.ledger.endTransaction(holdId, 'failed', null, tx);
      return;
    }
    const spending = await this.platformAccount('platform:spending', tx);
    // Spending on the network uses the welcome bonus first. Accounts are still locked in id order.
    for (const [accountId, amount, release] of [
      [hold.accountId, -used, hold.amount],
      [spending, used, 0],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))) as Array<[string, number, number]>) {
      const bonus = accountId === hold.accountId ? -Math.min((await this.ledger.lockFunds(accountId, tx)).bonus, used) : 0;
      await this.move(holdId, { accountId, amount, bonus }, release, tx);
    }
    await this.ledger.endTransaction(holdId, 'completed', used, tx);
  }

  /** Releases a whole hold (nothing was used). */
  release(holdId: string): Promise<void> {
    return this.settle(holdId, 0);
  }

  // ---- reads ----

  assertOwner(callerId: string, userId: string): void {
    if (callerId !== userId) throw new ForbiddenException('You do not have access to this wallet');
  }

  async stats(userId: string): Promise<Schemas['WalletStats']> {
    const w = await this.walletOf(userId);
    const t = await this.ledger.totals(w.id);
    return {
      total_earned: toGlob(t.earned),
      total_spent: toGlob(t.spent),
      total_transactions: t.transactions,
      average_daily_earnings: toGlob(Math.floor(t.recent / 30)),
      staking_apr: 0,
      referral_earnings: 0,
    };
  }

  /** The wallet's transactions, newest first, as this wallet sees them; keyset pagination. */
  async history(userId: string, limit: number, cursor?: string, type?: TxType): Promise<Schemas['TransactionPage']> {
    const w = await this.walletOf(userId);
    const rows = await this.ledger.history(w.id, limit + 1, cursor ? decodeCursor(cursor) : null, type);
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
    const rows = await this.ledger.earningsByDay(w.id, days);
    // Only this wallet's entries count: a task of someone else that day leaves the amount at 0.
    const earnings = rows.map((r) => ({ date: r.date, amount: toGlob(r.amount), tasks: r.amount > 0 ? r.tasks : 0 }));
    return { days, total: toGlob(rows.reduce((s, r) => s + r.amount, 0)), earnings };
  }

  /**
   * Reconciliation: every balance (and its bonus part) equals the sum of its entries, every transaction sums to zero,
   * holds match, and no bonus left a wallet except by spending on the network.
   */
  async reconcile(tx?: Tx): Promise<string[]> {
    const problems: string[] = [];
    for (const a of await this.ledger.mismatchedAccounts(tx)) {
      problems.push(
        `account ${a.address}: balance ${a.balance} vs entries ${a.entries}, held ${a.held} vs pending holds ${a.holds}, bonus ${a.bonus} vs entries ${a.entry_bonus}`,
      );
    }
    for (const l of await this.ledger.bonusLeaks(tx)) problems.push(`transaction ${l.transaction_id} (${l.type}) moves welcome bonus`);
    // No hold outlives the longest possible reply (the reaper ends replies at the timeout, checking every few seconds).
    for (const h of await this.ledger.staleHolds(this.config.inference.replyTimeoutSeconds + STALE_GRACE_SECONDS, tx)) {
      problems.push(`hold ${h.id} (${h.reference}) on ${h.address} is ${h.age} s old, older than the longest possible reply`);
    }
    for (const t of await this.ledger.unbalancedTransactions(tx)) problems.push(`transaction ${t.transaction_id} sums to ${t.sum}`);
    for (const n of await this.ledger.negativeUserAccounts(tx)) problems.push(`account ${n.address} is negative: ${n.balance}`);
    return problems;
  }

  /** A live user's wallet by its address (a deleted account's wallet receives nothing: its GLOB would be gone). */
  async findByAddress(address: string, tx?: Tx): Promise<LedgerAccount> {
    const account = await this.ledger.liveWalletAt(address, tx);
    if (!account) throw new NotFoundException(`No wallet found with address ${address}`);
    return account;
  }
}
