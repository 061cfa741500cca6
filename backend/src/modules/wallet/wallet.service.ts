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
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { rowsOf } from '../../database/sql';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService, transferableUnits } from './ledger.service';
import { TOKEN_PACKAGES } from './packages';
import { toGlob, toUnits, UNITS_PER_GLOB } from './units';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface PurchaseRow {
  id: string;
  user_id: string;
  package_id: Schemas['TokenPackageId'];
  amount: string;
  price_cents: number;
  status: 'pending' | 'completed' | 'failed';
  test_mode: boolean;
  transaction_id: string | null;
}

export const PURCHASES_UNAVAILABLE = 'Purchases are not available right now: no payment provider is configured.';

@Injectable()
export class WalletService {
  private readonly logger = new Logger('Wallet');
  private readonly stripe: Stripe | null;

  constructor(
    @Inject(DataSource) private readonly db: DataSource,
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
    const [b, stats] = await Promise.all([this.ledger.balances(userId), this.ledger.stats(userId)]);
    return {
      user_id: userId,
      address: b.address,
      balance: toGlob(b.balance),
      pending_balance: toGlob(b.held),
      bonus_balance: toGlob(b.bonus),
      transferable_balance: toGlob(transferableUnits(b)),
      total_earned: stats.total_earned,
      total_spent: stats.total_spent,
      staking_rewards: 0,
      stats,
      updated_at: b.updatedAt.toISOString(),
    };
  }

  async balance(callerId: string, userId: string): Promise<Schemas['WalletBalance']> {
    this.ledger.assertOwner(callerId, userId);
    const b = await this.ledger.balances(userId);
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

    return this.db.transaction(async (em) => {
      if (idempotencyKey) {
        // Concurrent requests with one key queue on this insert; the first one's result is what they all get.
        const inserted = rowsOf(
          await em.query(`INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key`, [
            userId,
            idempotencyKey,
            requestHash,
          ]),
        );
        if (inserted.length === 0) {
          const [prior] = (await em.query(`SELECT request_hash, response FROM idempotency_keys WHERE user_id = $1 AND key = $2`, [
            userId,
            idempotencyKey,
          ])) as Array<{ request_hash: string; response: Schemas['TransferResult'] | null }>;
          if (!prior || prior.request_hash !== requestHash) {
            throw new UnprocessableEntityException('This Idempotency-Key was already used with a different request body');
          }
          return prior.response!;
        }
      }
      const result = await this.moveTokens(em, userId, input.to_address, units, input.note);
      if (idempotencyKey) {
        await em.query(`UPDATE idempotency_keys SET status_code = 201, response = $3 WHERE user_id = $1 AND key = $2`, [
          userId,
          idempotencyKey,
          JSON.stringify(result),
        ]);
      }
      return result;
    });
  }

  private async moveTokens(em: EntityManager, userId: string, toAddress: string, units: number, note?: string): Promise<Schemas['TransferResult']> {
    const from = await this.ledger.walletOf(userId, em);
    if (from.address === toAddress) throw new UnprocessableEntityException('Cannot transfer to your own wallet');
    const to = await this.ledger.findByAddress(toAddress, em);
    const suffix = note?.trim() ? `: ${note.trim()}` : '';
    const txId = await this.ledger.post(em, {
      type: 'transfer',
      description: `Transfer from ${from.address} to ${to.address}${suffix}`,
      lines: [
        { accountId: from.id, amount: -units },
        { accountId: to.id, amount: units },
      ],
    });
    await this.notifications.create(
      em,
      to.user_id!,
      'transfer_received',
      'Tokens received',
      `You received ${toGlob(units)} GLOB from ${from.address}.`,
      {
        amount: toGlob(units),
        from: from.address,
        transaction_id: txId,
      },
    );
    const [row] = (await em.query(`SELECT a.balance, t.created_at FROM ledger_accounts a, ledger_transactions t WHERE a.id = $1 AND t.id = $2`, [
      from.id,
      txId,
    ])) as Array<{ balance: string; created_at: Date }>;
    return {
      transaction: {
        id: txId,
        type: 'transfer',
        direction: 'debit',
        description: `Transfer from ${from.address} to ${to.address}${suffix}`,
        amount: toGlob(units),
        status: 'completed',
        timestamp: row!.created_at.toISOString(),
        counterparty: to.address,
        reference: null,
      },
      balance: toGlob(row!.balance),
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
      return this.db.transaction(async (em) => {
        const [purchase] = (await em.query(
          `INSERT INTO purchases (user_id, package_id, amount, price_cents, status, test_mode) VALUES ($1, $2, $3, $4, 'pending', true) RETURNING id`,
          [userId, pkg.id, units, priceCents],
        )) as Array<{ id: string }>;
        await this.completePurchase(em, purchase!.id);
        return this.purchaseBody(em, purchase!.id);
      });
    }

    const [purchase] = (await this.db.query(
      `INSERT INTO purchases (user_id, package_id, amount, price_cents, status, test_mode) VALUES ($1, $2, $3, $4, 'pending', false) RETURNING id`,
      [userId, pkg.id, units, priceCents],
    )) as Array<{ id: string }>;
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create({
        mode: 'payment',
        client_reference_id: purchase!.id,
        metadata: { purchase_id: purchase!.id, user_id: userId },
        line_items: [
          {
            quantity: 1,
            price_data: { currency: 'usd', unit_amount: priceCents, product_data: { name: `Glob Network ${pkg.name} — ${pkg.total_tokens} GLOB` } },
          },
        ],
        success_url: `${this.config.publicWebUrl}/app/wallet?purchase=${purchase!.id}`,
        cancel_url: `${this.config.publicWebUrl}/app/wallet?purchase=cancelled`,
      });
    } catch (err) {
      await this.db.query(`UPDATE purchases SET status = 'failed' WHERE id = $1`, [purchase!.id]);
      this.logger.warn(`Stripe Checkout failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new BadGatewayException('The payment provider is not reachable. Please try again.');
    }
    await this.db.query(`UPDATE purchases SET stripe_session_id = $2 WHERE id = $1`, [purchase!.id, session.id]);
    const body = await this.purchaseBody(this.db.manager, purchase!.id);
    return { ...body, checkout_url: session.url };
  }

  /** Credits a pending purchase exactly once, however often it is called (Stripe retries webhooks). */
  private async completePurchase(em: EntityManager, purchaseId: string): Promise<boolean> {
    const [p] = rowsOf<PurchaseRow>(
      await em.query(`UPDATE purchases SET status = 'completed', completed_at = now() WHERE id = $1 AND status = 'pending' RETURNING *`, [
        purchaseId,
      ]),
    );
    if (!p) return false;
    const pkg = TOKEN_PACKAGES.find((x) => x.id === p.package_id)!;
    const wallet = await this.ledger.walletOf(p.user_id, em);
    const txId = await this.ledger.post(em, {
      type: 'purchase',
      description: `Purchased ${pkg.name} package${p.test_mode ? ' (test mode)' : ''}`,
      reference: p.id,
      lines: [
        { accountId: await this.ledger.platformAccount('platform:sales', em), amount: -Number(p.amount) },
        { accountId: wallet.id, amount: Number(p.amount) },
      ],
    });
    await em.query(`UPDATE purchases SET transaction_id = $2 WHERE id = $1`, [p.id, txId]);
    await this.notifications.create(
      em,
      p.user_id,
      'purchase_completed',
      'Purchase completed',
      `${toGlob(p.amount)} GLOB from the ${pkg.name} package are in your wallet.`,
      {
        purchase_id: p.id,
        amount: toGlob(p.amount),
      },
    );
    return true;
  }

  private async purchaseBody(em: EntityManager, purchaseId: string): Promise<Schemas['TokenPurchase']> {
    const [p] = (await em.query(`SELECT * FROM purchases WHERE id = $1`, [purchaseId])) as PurchaseRow[];
    const b = await this.ledger.walletOf(p!.user_id, em);
    let transaction: Schemas['Transaction'] | null = null;
    if (p!.transaction_id) {
      const [t] = (await em.query(`SELECT description, created_at FROM ledger_transactions WHERE id = $1`, [p!.transaction_id])) as Array<{
        description: string;
        created_at: Date;
      }>;
      transaction = {
        id: p!.transaction_id,
        type: 'purchase',
        direction: 'credit',
        description: t!.description,
        amount: toGlob(p!.amount),
        status: 'completed',
        timestamp: t!.created_at.toISOString(),
        counterparty: null,
        reference: p!.id,
      };
    }
    return {
      purchase_id: p!.id,
      status: p!.status === 'completed' ? 'completed' : 'pending',
      package_id: p!.package_id,
      amount: toGlob(p!.amount),
      price: p!.price_cents / 100,
      currency: 'USD',
      test_mode: p!.test_mode,
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
        await this.db.transaction((em) => this.completePurchase(em, purchaseId));
      }
    } else if (event.type === 'checkout.session.expired') {
      const purchaseId = event.data.object.client_reference_id;
      if (purchaseId && UUID.test(purchaseId))
        await this.db.query(`UPDATE purchases SET status = 'failed' WHERE id = $1 AND status = 'pending'`, [purchaseId]);
    }
    return { received: true };
  }
}
