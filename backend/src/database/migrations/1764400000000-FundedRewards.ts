import { MigrationInterface, QueryRunner } from 'typeorm';

/** Funded rewards: pending node rewards paid after the settlement window from the rewards account, and its emission. */
export class FundedRewards1764400000000 implements MigrationInterface {
  name = 'FundedRewards1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The mint of the rewards emission, as platform:sales is for purchases and platform:bonus for bonuses.
    await q.query(
      `INSERT INTO ledger_accounts (kind, code, address)
       VALUES ('platform', 'platform:emission', 'glb1' || substr(encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 1, 38))`,
    );
    // One row: the emission accrues from started_at; accrued_at is where the last accrual ended.
    await q.query(`
      CREATE TABLE reward_emission (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        started_at timestamptz NOT NULL DEFAULT now(),
        accrued_at timestamptz NOT NULL DEFAULT now(),
        CHECK (accrued_at >= started_at)
      )`);
    await q.query(`INSERT INTO reward_emission DEFAULT VALUES`);
    await q.query(`
      CREATE TABLE node_rewards (
        task_id uuid PRIMARY KEY REFERENCES inference_tasks(id),
        node_id uuid NOT NULL REFERENCES nodes(id),
        owner_id uuid NOT NULL REFERENCES users(id),
        units bigint NOT NULL CHECK (units > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        payable_at timestamptz NOT NULL,
        paid_at timestamptz,
        transaction_id uuid UNIQUE REFERENCES ledger_transactions(id),
        CONSTRAINT node_rewards_paid CHECK ((paid_at IS NULL) = (transaction_id IS NULL))
      )`);
    await q.query(`CREATE INDEX node_rewards_due_idx ON node_rewards (payable_at, task_id) WHERE paid_at IS NULL`);
    await q.query(`CREATE INDEX node_rewards_node_idx ON node_rewards (node_id)`);
    await q.query(`CREATE INDEX node_rewards_owner_idx ON node_rewards (owner_id) WHERE paid_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS node_rewards`);
    await q.query(`DROP TABLE IF EXISTS reward_emission`);
    await q.query(
      `DELETE FROM ledger_accounts WHERE code = 'platform:emission' AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = ledger_accounts.id)`,
    );
  }
}
