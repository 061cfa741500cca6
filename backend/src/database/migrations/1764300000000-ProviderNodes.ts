import { MigrationInterface, QueryRunner } from 'typeorm';

/** Provider nodes: join tokens, node credentials, pause and allocation, measured speed, uptime. */
export class ProviderNodes1764300000000 implements MigrationInterface {
  name = 'ProviderNodes1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // A node paired over the API has a credential (hashed); in-cluster workers have none.
    await q.query(`
      ALTER TABLE nodes
        ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN credential_hash text UNIQUE,
        ADD COLUMN revoked_at timestamptz,
        ADD COLUMN paused boolean NOT NULL DEFAULT false,
        ADD COLUMN battery_paused boolean NOT NULL DEFAULT false,
        ADD COLUMN cpu_percent integer NOT NULL DEFAULT 50 CHECK (cpu_percent BETWEEN 10 AND 80),
        ADD COLUMN memory_percent integer NOT NULL DEFAULT 40 CHECK (memory_percent BETWEEN 20 AND 70),
        ADD COLUMN gpu_percent integer NOT NULL DEFAULT 60 CHECK (gpu_percent BETWEEN 0 AND 90),
        ADD COLUMN os text,
        ADD COLUMN arch text,
        ADD COLUMN claimed_tps double precision CHECK (claimed_tps >= 0),
        ADD COLUMN measured_tps double precision CHECK (measured_tps >= 0)`);
    await q.query(`UPDATE nodes SET created_at = started_at`);
    await q.query(`CREATE INDEX nodes_owner_idx ON nodes (owner_id, created_at DESC) WHERE credential_hash IS NOT NULL`);

    await q.query(`
      CREATE TABLE node_join_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        node_id uuid REFERENCES nodes(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX node_join_tokens_user_idx ON node_join_tokens (user_id, created_at DESC)`);

    // Seconds each node was present per day: every call adds the time since its previous one, at most the live window.
    await q.query(`
      CREATE TABLE node_presence (
        node_id uuid NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        day date NOT NULL,
        seconds double precision NOT NULL DEFAULT 0 CHECK (seconds >= 0),
        PRIMARY KEY (node_id, day)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS node_presence`);
    await q.query(`DROP TABLE IF EXISTS node_join_tokens`);
    await q.query(`DROP INDEX IF EXISTS nodes_owner_idx`);
    for (const c of [
      'created_at',
      'credential_hash',
      'revoked_at',
      'paused',
      'battery_paused',
      'cpu_percent',
      'memory_percent',
      'gpu_percent',
      'os',
      'arch',
      'claimed_tps',
      'measured_tps',
    ]) {
      await q.query(`ALTER TABLE nodes DROP COLUMN IF EXISTS ${c}`);
    }
  }
}
