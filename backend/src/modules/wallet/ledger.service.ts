import { ForbiddenException, HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { Transactions, type Tx } from '../../database/repository';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerRepository, MINTS, type Funds, type LedgerAccount, type NewPosting, type PlatformAccount } from './ledger.repository';
import { toGlob } from '../../common/units';

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

/** A written transaction: its id, when it was written, and its accounts' funds after it. */
export interface Posted {
  id: string;
  createdAt: Date;
  after: Map<string, Funds>;
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
    return (await this.postFull(posting, tx)).id;
  }

  /**
   * Writes one completed transaction (with the id `posting.id` when given) in one statement, and answers its id, when
   * it was written and the accounts' funds after it; throws InsufficientTokensException if a user account cannot pay.
   */
  async postFull(posting: Posting & { id?: string }, tx: Tx): Promise<Posted> {
    return (await this.tryPost(posting, tx, true))!;
  }

  /** As postFull, but answers null (having written nothing) where postFull would throw InsufficientTokensException. */
  async tryPost(posting: Posting & { id?: string }, tx: Tx, throwIfRefused = false): Promise<Posted | null> {
    const lines = this.checkedLines(posting.lines);
    const id = posting.id ?? randomUUID();
    const r = await this.ledger.post([this.newPosting({ ...posting, id }, lines)], tx);
    if (!r.ok) return throwIfRefused ? this.refuse(lines, new Map(), r) : null;
    return { id, createdAt: r.createdAt!, after: r.after[0]! };
  }

  /**
   * Writes new completed transactions (each with its own id) in one statement, in order, all of them or none: each is
   * checked as tryPost would check it after the ones before it. Answers them as written, or null (having written
   * nothing) where any of them would be refused.
   */
  async tryPostMany(postings: Array<Posting & { id: string }>, tx: Tx): Promise<Posted[] | null> {
    const r = await this.ledger.post(
      postings.map((p) => this.newPosting(p)),
      tx,
    );
    if (!r.ok) return null;
    return r.after.map((after, i) => ({ id: postings[i]!.id, createdAt: r.createdAt!, after }));
  }

  /** A new transaction as the repository writes it, its lines proven to balance (`lines`: already checked). */
  private newPosting(p: Posting & { id: string }, lines = this.checkedLines(p.lines)): NewPosting {
    return {
      id: p.id,
      type: p.type,
      amount: lines.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0),
      description: p.description,
      reference: p.reference ?? null,
      lines: lines.map((l) => ({ accountId: l.accountId, amount: l.amount, bonus: l.bonus ?? 0, release: 0 })),
    };
  }

  /** The lines in account id order, once they are proven to balance (integers, none zero, summing to zero, one per account). */
  private checkedLines(lines: PostingLine[]): PostingLine[] {
    const sum = lines.reduce((s, l) => s + l.amount, 0);
    if (
      sum !== 0 ||
      lines.some((l) => !Number.isSafeInteger(l.amount) || l.amount === 0) ||
      new Set(lines.map((l) => l.accountId)).size !== lines.length
    ) {
      throw new Error(`Unbalanced posting: ${JSON.stringify(lines)}`);
    }
    return [...lines].sort((a, b) => a.accountId.localeCompare(b.accountId));
  }

  /**
   * Why a posting was refused, for the first line (in id order) its account could not pay: a debit succeeds only while
   * the free balance (balance − held, less what the posting releases) covers it and, for the part that is not bonus,
   * while what is left still covers the bonus: that is what keeps the bonus from being transferred.
   */
  private refuse(lines: PostingLine[], releases: Map<string, number>, refused: { funds: Map<string, Funds>; refused: string[] }): never {
    const line = lines.find((l) => refused.refused.includes(l.accountId)) ?? lines.find((l) => l.amount < 0) ?? lines[0]!;
    const bonus = line.bonus ?? 0;
    const f = refused.funds.get(line.accountId) ?? { balance: 0, held: 0, bonus: 0 };
    const a = { ...f, held: f.held - (releases.get(line.accountId) ?? 0) };
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

  // ---- holds: reserve before work, then settle what was used or release it all ----

  /**
   * Reserves up to `units` of the user's free balance; returns the hold's transaction id and the reserved amount.
   * Inside the caller's transaction when `tx` is given (an API key's daily limit is checked under the same locks).
   */
  async reserve(userId: string, units: number, description: string, reference: string, tx?: Tx): Promise<{ holdId: string; reserved: number }> {
    // Without a caller's transaction the reservation is one statement, atomic on its own: no BEGIN and COMMIT round trips.
    let hold = await this.ledger.reserve(userId, units, description, reference, tx);
    if (!hold) {
      // No wallet yet (accounts made before the wallet existed): opened and reserved from in one transaction.
      if (!tx) return this.transactions.run((own) => this.reserve(userId, units, description, reference, own));
      await this.walletOf(userId, tx);
      hold = (await this.ledger.reserve(userId, units, description, reference, tx))!;
    }
    if (!hold.holdId || hold.reserved <= 0) throw new InsufficientTokensException(0, units);
    return { holdId: hold.holdId, reserved: hold.reserved };
  }

  /** Renames a transaction once its details are known (an API reply's tokens, when it settles). */
  describe(transactionId: string, description: string, tx: Tx): Promise<void> {
    return this.ledger.setDescription(transactionId, description, tx);
  }

  /** Locks the accounts in id order (the order every writer uses, so none deadlock) and returns their funds. */
  lockInOrder(accountIds: string[], tx: Tx): Promise<Map<string, Funds>> {
    return this.ledger.lockAll([...new Set(accountIds)].sort(), tx);
  }

  /**
   * Settles a hold: `units` (≤ the hold) become one completed spending; the rest is released. Idempotent.
   * Inside the caller's transaction when `tx` is given (a task settles with its own end).
   */
  async settle(holdId: string, units: number, tx?: Tx): Promise<void> {
    if (!tx) return this.transactions.run((own) => this.settle(holdId, units, own));
    await this.settleWith(holdId, units, () => [], tx);
  }

  /**
   * Settles a hold as settle() does and writes `then(charged)`'s postings after it in the same statement (a task's
   * rewards share): the hold's account, spending and theirs locked once in id order, each posting its own balanced
   * transaction checked after the ones before it, all of them written or none. Returns the units charged (0 when
   * nothing was: then nothing of `then` is written either).
   */
  async settleWith(holdId: string, units: number, then: (charged: number) => Posting[], tx: Tx): Promise<number> {
    const hold = await this.ledger.lockHold(holdId, tx);
    if (!hold || hold.status !== 'pending') return 0;
    const used = Math.max(0, Math.min(units, hold.amount));
    if (used === 0) {
      await this.ledger.addHeld(hold.accountId, -hold.amount, tx);
      await this.ledger.endTransaction(holdId, 'failed', null, tx);
      return 0;
    }
    const spending = await this.platformAccount('platform:spending', tx);
    const lines = this.checkedLines([
      { accountId: hold.accountId, amount: -used },
      { accountId: spending, amount: used },
    ]);
    const releases = new Map([[hold.accountId, hold.amount]]);
    // Spending on the network uses the welcome bonus first: its part is read from the wallet as locked (bonus null),
    // in the same statement that completes the hold, releases all of it and writes what follows.
    const r = await this.ledger.post(
      [
        {
          id: holdId,
          hold: true,
          type: 'spending',
          amount: used,
          description: '',
          reference: null,
          lines: lines.map((l) => ({
            accountId: l.accountId,
            amount: l.amount,
            bonus: l.accountId === hold.accountId ? null : 0,
            release: releases.get(l.accountId) ?? 0,
          })),
        },
        ...then(used).map((p) => this.newPosting({ ...p, id: randomUUID() })),
      ],
      tx,
    );
    if (!r.ok) {
      const bonus = -Math.min(r.funds.get(hold.accountId)?.bonus ?? 0, used);
      this.refuse(
        lines.map((l) => (l.accountId === hold.accountId ? { ...l, bonus } : l)),
        releases,
        r,
      );
    }
    return used;
  }

  /**
   * Gives a settled charge back to its payer (a reply the platform found was not the model's): the rewards share it
   * funded from the rewards account while that holds it, the rest from spending; the welcome bonus it used comes back
   * as bonus. Less `rewarded`, what the charge already paid out as a reward. Answers the refund's transaction and
   * units, or null when there is nothing to give back.
   */
  async refundCharge(
    holdId: string,
    taskId: string,
    description: string,
    rewarded: number,
    tx: Tx,
  ): Promise<{ transactionId: string; units: number } | null> {
    const entry = await this.ledger.chargeEntry(holdId, tx);
    const charge = entry && { ...entry, amount: entry.amount - rewarded };
    if (!charge || charge.amount <= 0) return null;
    const spending = await this.platformAccount('platform:spending', tx);
    const rewards = await this.platformAccount('platform:rewards', tx);
    const funds = await this.lockInOrder([charge.accountId, spending, rewards], tx);
    const fromRewards = Math.max(0, Math.min(await this.ledger.fundedShare(taskId, tx), funds.get(rewards)!.balance, charge.amount));
    const fromSpending = Math.max(0, Math.min(charge.amount - fromRewards, funds.get(spending)!.balance));
    const units = fromRewards + fromSpending;
    if (units <= 0) return null;
    const lines: PostingLine[] = [{ accountId: charge.accountId, amount: units, bonus: Math.min(charge.bonus, units) }];
    if (fromSpending > 0) lines.push({ accountId: spending, amount: -fromSpending });
    if (fromRewards > 0) lines.push({ accountId: rewards, amount: -fromRewards });
    const transactionId = await this.post({ type: 'refund', description, reference: taskId, lines }, tx);
    return { transactionId, units };
  }

  /** What a settled charge took from its payer, and how much of that was welcome bonus (zeros when none). */
  async chargeOf(holdId: string | null, tx?: Tx): Promise<{ amount: number; bonus: number }> {
    const charge = holdId ? await this.ledger.chargeEntry(holdId, tx) : undefined;
    return { amount: charge?.amount ?? 0, bonus: charge?.bonus ?? 0 };
  }

  /** Releases a whole hold (nothing was used). */
  release(holdId: string): Promise<void> {
    return this.settle(holdId, 0);
  }

  // ---- reads ----

  /** Rewards recorded for the user's nodes and not yet paid, in units. */
  pendingRewards(userId: string): Promise<number> {
    return this.ledger.pendingRewards(userId);
  }

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
   * holds match, and no bonus left a wallet except by spending on the network. And the supply: only the mints issue
   * GLOB (purchases, bonuses, the emission, each by its own type), funding moves only into the rewards account,
   * which never goes negative, and every refund gives back (no more than, and once) the charge of a reply that failed
   * its check or that a suspended node delivered. What rewards and the emission must obey is RewardsService.reconcile's.
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
    problems.push(...(await this.supplyProblems(tx)));
    return problems;
  }

  private async supplyProblems(tx?: Tx): Promise<string[]> {
    const problems: string[] = [];
    const platform = await this.ledger.platformBalances(tx);
    const balance = (code: PlatformAccount) => platform.get(code) ?? 0;
    for (const code of ['platform:rewards', 'platform:spending'] as const) {
      if (balance(code) < 0) problems.push(`${code} is negative: ${balance(code)}`);
    }
    const minted = Object.keys(MINTS).reduce((s, code) => s - balance(code as PlatformAccount), 0);
    const supply = (await this.ledger.userSupply(tx)) + balance('platform:rewards') + balance('platform:spending');
    if (supply !== minted) problems.push(`supply ${supply} (wallets, rewards, spending) differs from what the mints issued, ${minted}`);
    for (const code of platform.keys()) {
      if (!(code in MINTS) && code !== 'platform:rewards' && code !== 'platform:spending') problems.push(`unknown platform account ${code}`);
    }
    for (const m of await this.ledger.mintMisuse(tx)) problems.push(`transaction ${m.transaction_id} (${m.type}) moves ${m.amount} on ${m.code}`);
    for (const f of await this.ledger.misdirectedFunding(tx)) {
      problems.push(`funding transaction ${f.transaction_id} moves ${f.amount} on ${f.address}, not from a funding source into platform:rewards`);
    }
    for (const r of await this.ledger.unjustifiedRefunds(tx)) problems.push(`refund ${r.transaction_id}: ${r.reason}`);
    return problems;
  }

  /** A live user's wallet by its address (a deleted account's wallet receives nothing: its GLOB would be gone). */
  async findByAddress(address: string, tx?: Tx): Promise<LedgerAccount> {
    const account = await this.ledger.liveWalletAt(address, tx);
    if (!account) throw new NotFoundException(`No wallet found with address ${address}`);
    return account;
  }
}
