import { MigrationInterface, QueryRunner } from 'typeorm';

/** Worker nodes with their hardware and loaded models; inference tasks with charging and rewards. */
export class Inference1764000000000 implements MigrationInterface {
  name = 'Inference1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE nodes
        ADD COLUMN cpu_cores integer NOT NULL DEFAULT 1,
        ADD COLUMN ram_bytes bigint NOT NULL DEFAULT 0,
        ADD COLUMN gpu text,
        ADD COLUMN vram_bytes bigint,
        ADD COLUMN threads integer NOT NULL DEFAULT 1,
        ADD COLUMN hardware_score numeric(4, 2) NOT NULL DEFAULT 1.0 CHECK (hardware_score BETWEEN 0.5 AND 2.0),
        ADD COLUMN models text[] NOT NULL DEFAULT '{}',
        ADD COLUMN stopped_at timestamptz`);
    await q.query(`
      ALTER TABLE inference_tasks
        ADD COLUMN stream_id text UNIQUE,
        ADD COLUMN request_hash text,
        ADD COLUMN hold_id uuid REFERENCES ledger_transactions(id),
        ADD COLUMN max_tokens integer,
        ADD COLUMN price_units integer NOT NULL DEFAULT 0,
        ADD COLUMN stop_reason text,
        ADD COLUMN error text,
        ADD COLUMN duration_ms integer,
        ADD COLUMN charged_units bigint,
        ADD COLUMN difficulty numeric(3, 2),
        ADD COLUMN reward_transaction_id uuid REFERENCES ledger_transactions(id)`);
    await q.query(`CREATE INDEX inference_tasks_user_idx ON inference_tasks (user_id, created_at DESC)`);
    await q.query(`CREATE INDEX inference_tasks_node_idx ON inference_tasks (node_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS inference_tasks_node_idx`);
    await q.query(`DROP INDEX IF EXISTS inference_tasks_user_idx`);
    for (const c of [
      'stream_id',
      'request_hash',
      'hold_id',
      'max_tokens',
      'price_units',
      'stop_reason',
      'error',
      'duration_ms',
      'charged_units',
      'difficulty',
      'reward_transaction_id',
    ]) {
      await q.query(`ALTER TABLE inference_tasks DROP COLUMN IF EXISTS ${c}`);
    }
    for (const c of ['cpu_cores', 'ram_bytes', 'gpu', 'vram_bytes', 'threads', 'hardware_score', 'models', 'stopped_at']) {
      await q.query(`ALTER TABLE nodes DROP COLUMN IF EXISTS ${c}`);
    }
  }
}
