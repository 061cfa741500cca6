import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
  BadGatewayException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import type { NewNotification } from '../notifications/notifications.repository';
import { NotificationsService } from '../notifications/notifications.service';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { LedgerRepository, type LedgerAccount } from './ledger.repository';
import { LedgerService, transferableUnits, type Posted, type Posting } from './ledger.service';
import { PurchasesRepository } from './purchases.repository';
import { TOKEN_PACKAGES } from './packages';
import { toGlob, toUnits, UNITS_PER_GLOB } from '../../common/units';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Transfers written together in one database transaction at most, and such batches being written at once. */
const TRANSFER_BATCH_MAX = 64;
const TRANSFER_BATCHES = 2;

interface TransferJob {
  userId: string;
  from: LedgerAccount;
  to: LedgerAccount;
  units: number;
  description: string;
  requestHash: string;
  idempotencyKey?: string;
}

/** A batch's transfer the ledger refused (or whose key was used before): the batch goes back, each transfer alone. */
class RefusedInBatch extends Error {}

export const PURCHASES_UNAVAILABLE = 'Purchases are not available right now: no payment provider is configured.';

@Injectable()
export class WalletService {
  private readonly logger = new Logger('Wallet');
  private readonly stripe: Stripe | null;
  private readonly waiting: Array<{ job: TransferJob; resolve: (r: Schemas['TransferResult']) => void; reject: (e: unknown) => void }> = [];
  private batches = 0;

  constructor(
    private readonly purchases: PurchasesRepository,
    private readonly entries: LedgerRepository,
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ledger: LedgerService,
    private readonly notifications: NotificationsService,
  ) {
    const s = config.stripe;
    if (s) {
      const base = s.apiBase ? new URL(s.apiBase) : null;
      this.stripe = new Stripe(s.secretKey, {
        maxNetworkRetries: 2,
        ...(base ? { host: base.hostname, port: Number(base.port), protocol: base.protocol.replace(':', '') as 'http' | 'https' } : {}),
      });
    } else {
      this.stripe = null;
    }
  }

  packages(): Schemas['TokenPackageList'] {
    return { packages: [...TOKEN_PACKAGES] };
  }

  async wallet(callerId: string, userId: string): Promise<Schemas['Wallet']> {
    this.ledger.assertOwner(callerId, userId);
    const [b, stats, pending] = await Promise.all([this.ledger.walletOf(userId), this.ledger.stats(userId), this.ledger.pendingRewards(userId)]);
    return {
      user_id: userId,
      address: b.address,
      balance: toGlob(b.balance),
      pending_balance: toGlob(b.held),
      bonus_balance: toGlob(b.bonus),
      transferable_balance: toGlob(transferableUnits(b)),
      total_earned: stats.total_earned,
      total_spent: stats.total_spent,
      pending_earnings: toGlob(pending),
      staking_rewards: 0,
      stats,
      updated_at: b.updatedAt.toISOString(),
    };
  }

  async balance(callerId: string, userId: string): Promise<Schemas['WalletBalance']> {
    this.ledger.assertOwner(callerId, userId);
    const b = await this.ledger.walletOf(userId);
    return {
      user_id: userId,
      balance: toGlob(b.balance),
      pending_balance: toGlob(b.held),
      available_balance: toGlob(b.balance - b.held),
      bonus_balance: toGlob(b.bonus),
      transferable_balance: toGlob(transferableUnits(b)),
    };
  }

  async stats(callerId: string, userId: string): Promise<Schemas['WalletStats']> {
    this.ledger.assertOwner(callerId, userId);
    return this.ledger.stats(userId);
  }

  async history(callerId: string, userId: string, limit: number, cursor?: string, type?: Schemas['TransactionType']) {
    this.ledger.assertOwner(callerId, userId);
    return this.ledger.history(userId, limit, cursor, type);
  }

  async earnings(callerId: string, userId: string, days: number): Promise<Schemas['WalletEarnings']> {
    this.ledger.assertOwner(callerId, userId);
    return this.ledger.earnings(userId, days);
  }

  /**
   * Sends GLOB to another wallet: one transaction debiting the sender and crediting the receiver, and a
   * notification to the receiver. With an Idempotency-Key, a retry returns the first result and moves
   * nothing again; the same key with another body is 422.
   */
  async transfer(
    callerId: string,
    userId: string,
    input: RequestBody<'transferTokens'>,
    idempotencyKey?: string,
  ): Promise<Schemas['TransferResult']> {
    this.ledger.assertOwner(callerId, userId);
    const units = toUnits(input.amount);
    if (units <= 0) throw new BadRequestException('amount: must be more than 0');
    const requestHash = createHash('sha256')
      .update(JSON.stringify([input.to_address, units, input.note ?? null]))
      .digest('hex');

    // The two wallets, read before any lock (an address never changes hands).
    const ends = await this.entries.transferEnds(userId, input.to_address);
    const from = ends.from ?? (await this.ledger.walletOf(userId));
    if (from.address === input.to_address) throw new UnprocessableEntityException('Cannot transfer to your own wallet');
    const to = ends.to ?? (await this.ledger.findByAddress(input.to_address));
    const note = input.note?.trim();
    const job: TransferJob = {
      userId,
      from,
      to,
      units,
      description: `Transfer from ${from.address} to ${to.address}${note ? `: ${note}` : ''}`,
      requestHash,
      idempotencyKey,
    };
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      void this.nextBatch();
    });
  }

  /**
   * Group commit: the transfers that arrive while a batch is being written go together into the next one, one
   * database transaction whose commit (a WAL flush, milliseconds on a real disk) they share. Each transfer in it is
   * still one balanced ledger transaction written with its balances; all of them are written in one statement that
   * locks the batch's accounts in id order (so batches, and every other writer, never deadlock) and checks each
   * posting's debit against what the postings before it left. If any transfer of a batch is refused (funds, a reused
   * Idempotency-Key) or anything fails, the whole batch is rolled back and each of its transfers runs again on its
   * own, answering exactly as it would have alone.
   * At most TRANSFER_BATCHES batches are written at once: the next one prepares while the last one commits.
   * Statements run one after another (one connection runs one query at a time).
   */
  private async nextBatch(): Promise<void> {
    if (this.batches >= TRANSFER_BATCHES || !this.waiting.length) return;
    this.batches++;
    const batch = this.waiting.splice(0, TRANSFER_BATCH_MAX);
    try {
      let results: Array<Schemas['TransferResult']>;
      try {
        results = await this.transactions.run(async (tx) => {
          // A reused key sends the batch back (its first answer is read on the transfer's own).
          for (const { job } of batch) {
            if (job.idempotencyKey && !(await this.idempotencyKeys.claim(job.userId, job.idempotencyKey, job.requestHash, tx))) {
              throw new RefusedInBatch();
            }
          }
          const ids = batch.map(() => randomUUID());
          await this.notifications.createMany(
            batch.map(({ job }, i) => this.receiverNotification(job, ids[i]!)),
            tx,
          );
          // Every transfer of the batch in one statement: its accounts locked once, in id order, each posting checked
          // after the ones before it.
          const posted = await this.ledger.tryPostMany(
            batch.map(({ job }, i) => this.posting(job, ids[i]!)),
            tx,
          );
          if (!posted) throw new RefusedInBatch();
          const out = batch.map(({ job }, i) => this.transferBody(job, posted[i]!));
          for (const [i, { job }] of batch.entries()) {
            if (job.idempotencyKey) await this.idempotencyKeys.save(job.userId, job.idempotencyKey, 201, out[i], tx);
          }
          return out;
        });
      } catch (err) {
        if (batch.length === 1 && !(err instanceof RefusedInBatch)) throw err;
        // Nothing of the batch was written: each transfer on its own.
        await Promise.all(batch.map(({ job, resolve, reject }) => this.transferAlone(job).then(resolve, reject)));
        return;
      }
      batch.forEach(({ resolve }, i) => resolve(results[i]!));
    } catch (err) {
      for (const { reject } of batch) reject(err);
    } finally {
      this.batches--;
      void this.nextBatch();
    }
  }

  /** One transfer in its own transaction (a batch's transfer that was refused, or failed, runs again this way). */
  private transferAlone(job: TransferJob): Promise<Schemas['TransferResult']> {
    return this.transactions.run(async (tx) => {
      // Concurrent requests with one key queue on its claim; the first one's result is what they all get.
      if (job.idempotencyKey && !(await this.idempotencyKeys.claim(job.userId, job.idempotencyKey, job.requestHash, tx))) {
        const prior = await this.idempotencyKeys.prior<Schemas['TransferResult']>(job.userId, job.idempotencyKey, tx);
        if (!prior || prior.requestHash !== job.requestHash) {
          throw new UnprocessableEntityException('This Idempotency-Key was already used with a different request body');
        }
        return prior.response!;
      }
      const id = randomUUID();
      // The receiver's notification goes first, so the posting holds the two accounts' locks only for itself and the commit.
      await this.notifications.createMany([this.receiverNotification(job, id)], tx);
      const result = this.transferBody(job, await this.ledger.postFull(this.posting(job, id), tx));
      if (job.idempotencyKey) await this.idempotencyKeys.save(job.userId, job.idempotencyKey, 201, result, tx);
      return result;
    });
  }

  private posting(job: TransferJob, id: string): Posting & { id: string } {
    return {
      id,
      type: 'transfer',
      description: job.description,
      lines: [
        { accountId: job.from.id, amount: -job.units },
        { accountId: job.to.id, amount: job.units },
      ],
    };
  }

  private receiverNotification(job: TransferJob, transactionId: string): NewNotification {
    return {
      userId: job.to.userId!,
      type: 'transfer_received',
      title: 'Tokens received',
      message: `You received ${toGlob(job.units)} GLOB from ${job.from.address}.`,
      data: { amount: toGlob(job.units), from: job.from.address, transaction_id: transactionId },
    };
  }

  private transferBody(job: TransferJob, posted: Posted): Schemas['TransferResult'] {
    return {
      transaction: {
        id: posted.id,
        type: 'transfer',
        direction: 'debit',
        description: job.description,
        amount: toGlob(job.units),
        status: 'completed',
        timestamp: posted.createdAt.toISOString(),
        counterparty: job.to.address,
        reference: null,
      },
      balance: toGlob(posted.after.get(job.from.id)!.balance),
    };
  }

  /**
   * Buys a package at the server's own price (409 when the client's amount or price disagree). With
   * Stripe configured the answer is a Checkout URL and the webhook credits; without it, a test-mode payment
   * completes at once only where PAYMENTS_TEST_MODE allows it (never in production); otherwise 503.
   */
  async purchase(callerId: string, userId: string, input: RequestBody<'purchaseTokens'>): Promise<Schemas['TokenPurchase']> {
    this.ledger.assertOwner(callerId, userId);
    const pkg = TOKEN_PACKAGES.find((p) => p.id === input.package_id);
    if (!pkg) throw new NotFoundException('Token package not found');
    if (input.amount !== pkg.total_tokens || Math.round(input.price * 100) !== Math.round(pkg.price * 100)) {
      throw new ConflictException(
        `The amount or price does not match package ${pkg.id} (${pkg.total_tokens} tokens for ${pkg.price} USD). Reload the packages and try again.`,
      );
    }
    const units = pkg.total_tokens * UNITS_PER_GLOB;
    const priceCents = Math.round(pkg.price * 100);

    if (!this.stripe && !this.config.paymentsTestMode) throw new ServiceUnavailableException(PURCHASES_UNAVAILABLE);
    if (!this.stripe) {
      return this.transactions.run(async (tx) => {
        const purchaseId = await this.purchases.create(userId, pkg.id, units, priceCents, true, tx);
        await this.completePurchase(purchaseId, tx);
        return this.purchaseBody(purchaseId, tx);
      });
    }

    const purchaseId = await this.purchases.create(userId, pkg.id, units, priceCents, false);
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create({
        mode: 'payment',
        client_reference_id: purchaseId,
        metadata: { purchase_id: purchaseId, user_id: userId },
        line_items: [
          {
            quantity: 1,
            price_data: { currency: 'usd', unit_amount: priceCents, product_data: { name: `Glob Network ${pkg.name} — ${pkg.total_tokens} GLOB` } },
          },
        ],
        success_url: `${this.config.publicWebUrl}/app/wallet?purchase=${purchaseId}`,
        cancel_url: `${this.config.publicWebUrl}/app/wallet?purchase=cancelled`,
      });
    } catch (err) {
      await this.purchases.fail(purchaseId);
      this.logger.warn(`Stripe Checkout failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new BadGatewayException('The payment provider is not reachable. Please try again.');
    }
    await this.purchases.linkCheckout(purchaseId, session.id);
    const body = await this.purchaseBody(purchaseId);
    return { ...body, checkout_url: session.url };
  }

  /** Credits a pending purchase exactly once, however often it is called (Stripe retries webhooks). */
  private async completePurchase(purchaseId: string, tx: Tx): Promise<boolean> {
    const p = await this.purchases.complete(purchaseId, tx);
    if (!p) return false;
    const pkg = TOKEN_PACKAGES.find((x) => x.id === p.packageId)!;
    const wallet = await this.ledger.walletOf(p.userId, tx);
    const txId = await this.ledger.post(
      {
        type: 'purchase',
        description: `Purchased ${pkg.name} package${p.testMode ? ' (test mode)' : ''}`,
        reference: p.id,
        lines: [
          { accountId: await this.ledger.platformAccount('platform:sales', tx), amount: -p.amount },
          { accountId: wallet.id, amount: p.amount },
        ],
      },
      tx,
    );
    await this.purchases.linkTransaction(p.id, txId, tx);
    await this.notifications.create(
      p.userId,
      'purchase_completed',
      'Purchase completed',
      `${toGlob(p.amount)} GLOB from the ${pkg.name} package are in your wallet.`,
      { purchase_id: p.id, amount: toGlob(p.amount) },
      tx,
    );
    return true;
  }

  private async purchaseBody(purchaseId: string, tx?: Tx): Promise<Schemas['TokenPurchase']> {
    const p = (await this.purchases.find(purchaseId, tx))!;
    const b = await this.ledger.walletOf(p.userId, tx);
    let transaction: Schemas['Transaction'] | null = null;
    if (p.transactionId) {
      const t = (await this.entries.transactionAt(p.transactionId, tx))!;
      transaction = {
        id: p.transactionId,
        type: 'purchase',
        direction: 'credit',
        description: t.description,
        amount: toGlob(p.amount),
        status: 'completed',
        timestamp: t.createdAt.toISOString(),
        counterparty: null,
        reference: p.id,
      };
    }
    return {
      purchase_id: p.id,
      status: p.status === 'completed' ? 'completed' : 'pending',
      package_id: p.packageId,
      amount: toGlob(p.amount),
      price: p.priceCents / 100,
      currency: 'USD',
      test_mode: p.testMode,
      checkout_url: null,
      transaction,
      balance: toGlob(b.balance),
    };
  }

  /** Stripe webhook: the signature is checked against the raw body; paid sessions credit once. */
  async stripeWebhook(rawBody: Buffer | undefined, signature: string | undefined): Promise<Schemas['StripeWebhookReceived']> {
    const secret = this.config.stripe?.webhookSecret;
    if (!this.stripe || !secret) throw new ServiceUnavailableException('Stripe is not configured');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody ?? Buffer.alloc(0), signature ?? '', secret);
    } catch {
      throw new BadRequestException('Invalid Stripe signature');
    }
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
      const session = event.data.object;
      const purchaseId = session.client_reference_id ?? session.metadata?.purchase_id;
      if (purchaseId && UUID.test(purchaseId) && session.payment_status === 'paid') {
        await this.transactions.run((tx) => this.completePurchase(purchaseId, tx));
      }
    } else if (event.type === 'checkout.session.expired') {
      const purchaseId = event.data.object.client_reference_id;
      if (purchaseId && UUID.test(purchaseId)) await this.purchases.fail(purchaseId);
    }
    return { received: true };
  }
}
