import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

export interface Purchase {
  id: string;
  userId: string;
  packageId: Schemas['TokenPackageId'];
  /** Units credited. */
  amount: number;
  priceCents: number;
  status: 'pending' | 'completed' | 'failed';
  testMode: boolean;
  transactionId: string | null;
}

interface PurchaseRow {
  id: string;
  user_id: string;
  package_id: Schemas['TokenPackageId'];
  amount: string;
  price_cents: number;
  status: Purchase['status'];
  test_mode: boolean;
  transaction_id: string | null;
}

const toPurchase = (r: PurchaseRow): Purchase => ({
  id: r.id,
  userId: r.user_id,
  packageId: r.package_id,
  amount: Number(r.amount),
  priceCents: r.price_cents,
  status: r.status,
  testMode: r.test_mode,
  transactionId: r.transaction_id,
});

/** Token purchases (the purchases table). */
@Injectable()
export class PurchasesRepository extends Repository {
  async create(userId: string, packageId: Schemas['TokenPackageId'], units: number, priceCents: number, testMode: boolean, tx?: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO purchases (user_id, package_id, amount, price_cents, status, test_mode) VALUES ($1, $2, $3, $4, 'pending', $5) RETURNING id`,
      [userId, packageId, units, priceCents, testMode],
      tx,
    );
    return row!.id;
  }

  async find(id: string, tx?: Tx): Promise<Purchase | undefined> {
    const row = await this.one<PurchaseRow>(`SELECT * FROM purchases WHERE id = $1`, [id], tx);
    return row && toPurchase(row);
  }

  /** Marks a pending purchase completed; undefined when it was not pending (already credited, failed or unknown). */
  async complete(id: string, tx?: Tx): Promise<Purchase | undefined> {
    const row = await this.one<PurchaseRow>(
      `UPDATE purchases SET status = 'completed', completed_at = now() WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id],
      tx,
    );
    return row && toPurchase(row);
  }

  async linkTransaction(id: string, transactionId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE purchases SET transaction_id = $2 WHERE id = $1`, [id, transactionId], tx);
  }

  async linkCheckout(id: string, sessionId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE purchases SET stripe_session_id = $2 WHERE id = $1`, [id, sessionId], tx);
  }

  /** A pending purchase fails (checkout could not start, or expired); a completed one stays completed. */
  async fail(id: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE purchases SET status = 'failed' WHERE id = $1 AND status = 'pending'`, [id], tx);
  }
}
