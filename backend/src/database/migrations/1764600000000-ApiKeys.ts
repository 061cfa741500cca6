import { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys for the OpenAI-compatible operations (stored only as hashes), and the replies each one paid for. */
export class ApiKeys1764600000000 implements MigrationInterface {
  name = 'ApiKeys1764600000000';

  async up(q: QueryRunner): Promise<void> {
    // requests, tokens and spent_units count the key's completed replies, written in the transaction that settles
    // each one: ledger:check compares them with the tasks and their settled holds.
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        daily_limit_units bigint CHECK (daily_limit_units > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        requests bigint NOT NULL DEFAULT 0 CHECK (requests >= 0),
        tokens bigint NOT NULL DEFAULT 0 CHECK (tokens >= 0),
        spent_units bigint NOT NULL DEFAULT 0 CHECK (spent_units >= 0)
      )`);
    await q.query(`CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at DESC) WHERE revoked_at IS NULL`);
    await q.query(`ALTER TABLE inference_tasks ADD COLUMN api_key_id uuid REFERENCES api_keys(id)`);
    await q.query(`CREATE INDEX inference_tasks_api_key_idx ON inference_tasks (api_key_id, created_at) WHERE api_key_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS inference_tasks_api_key_idx`);
    await q.query(`ALTER TABLE inference_tasks DROP COLUMN IF EXISTS api_key_id`);
    await q.query(`DROP TABLE IF EXISTS api_keys`);
  }
}
