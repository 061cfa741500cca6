import { MigrationInterface, QueryRunner } from 'typeorm';

/** Funded rewards: pending node rewards paid after the settlement window from the rewards account, and its emission. */
export class FundedRewards1764400000000 implements MigrationInterface {
  name = 'FundedRewards1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The mint of the rewards emission, as platform:sales is for purchases and platform:bonus for bonuses.
    await q.query(
      `INSERT INTO ledger_accounts (kind, code, address)
       VALUES ('platform', 'platform:emission', 'glb1' || substr(encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 1, 38))
       ON CONFLICT (code) DO NOTHING`,
    );
    // One row. The emission accrues from started_at; accrued_at is where the last accrual ended. opening_units is
    // what rewards paid before they were funded had already minted (covered once, below).
    await q.query(`
      CREATE TABLE reward_emission (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        started_at timestamptz NOT NULL DEFAULT now(),
        accrued_at timestamptz NOT NULL DEFAULT now(),
        opening_units bigint NOT NULL DEFAULT 0 CHECK (opening_units >= 0),
        CHECK (accrued_at >= started_at)
      )`);
    const rewards = (await q.query(`SELECT balance FROM ledger_accounts WHERE code = 'platform:rewards'`)) as Array<{ balance: string }>;
    const opening = Math.max(0, -Number(rewards[0]!.balance));
    await q.query(`INSERT INTO reward_emission (opening_units) VALUES ($1)`, [opening]);
    if (opening > 0) {
      const [funding] = (await q.query(
        `INSERT INTO ledger_transactions (type, status, amount, description, completed_at)
         VALUES ('reward', 'completed', $1, 'Rewards paid before rewards were funded', now()) RETURNING id`,
        [opening],
      )) as Array<{ id: string }>;
      const id = funding!.id;
      for (const [code, amount] of [
        ['platform:emission', -opening],
        ['platform:rewards', opening],
      ] as const) {
        await q.query(`UPDATE ledger_accounts SET balance = balance + $2, updated_at = now() WHERE code = $1`, [code, amount]);
        await q.query(`INSERT INTO ledger_entries (transaction_id, account_id, amount) SELECT $1, id, $2 FROM ledger_accounts WHERE code = $3`, [
          id,
          amount,
          code,
        ]);
      }
    }
    // Only the mints (sales, bonus, emission) issue GLOB; the rewards and spending accounts hold what they received.
    await q.query(`
      ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_funded_nonnegative
        CHECK (code IS NULL OR code NOT IN ('platform:rewards', 'platform:spending') OR balance >= 0)`);

    await q.query(`
      CREATE TABLE node_rewards (
        task_id uuid PRIMARY KEY REFERENCES inference_tasks(id),
        node_id uuid NOT NULL REFERENCES nodes(id),
        owner_id uuid NOT NULL REFERENCES users(id),
        difficulty numeric(3, 2) NOT NULL,
        hardware_score numeric(3, 2) NOT NULL,
        units bigint NOT NULL CHECK (units > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        payable_at timestamptz NOT NULL,
        paid_at timestamptz,
        transaction_id uuid UNIQUE REFERENCES ledger_transactions(id),
        CONSTRAINT node_rewards_paid CHECK ((paid_at IS NULL) = (transaction_id IS NULL))
      )`);
    await q.query(`CREATE INDEX node_rewards_due_idx ON node_rewards (payable_at, created_at, task_id) WHERE paid_at IS NULL`);
    await q.query(`CREATE INDEX node_rewards_node_idx ON node_rewards (node_id)`);
    await q.query(`CREATE INDEX node_rewards_owner_idx ON node_rewards (owner_id) WHERE paid_at IS NULL`);
    // Rewards paid before: recorded as paid, so per-node totals include them.
    await q.query(`
      INSERT INTO node_rewards (task_id, node_id, owner_id, difficulty, hardware_score, units, created_at, payable_at, paid_at, transaction_id)
      SELECT t.id, t.node_id, e.owner, coalesce(t.difficulty, 1), coalesce(n.hardware_score, 1), lt.amount, lt.created_at, lt.created_at, lt.created_at, lt.id
      FROM inference_tasks t
      JOIN ledger_transactions lt ON lt.id = t.reward_transaction_id
      JOIN nodes n ON n.id = t.node_id
      JOIN LATERAL (SELECT a.user_id AS owner FROM ledger_entries x JOIN ledger_accounts a ON a.id = x.account_id
                    WHERE x.transaction_id = lt.id AND a.kind = 'user' LIMIT 1) e ON true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS node_rewards`);
    await q.query(`DROP TABLE IF EXISTS reward_emission`);
    await q.query(`ALTER TABLE ledger_accounts DROP CONSTRAINT IF EXISTS ledger_accounts_funded_nonnegative`);
    await q.query(
      `DELETE FROM ledger_accounts a WHERE a.code = 'platform:emission' AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = a.id)`,
    );
  }
}
