import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Node pools: an owner's nodes serving one model split across them. A node reports its model files, its tunnel
 * endpoint and the pool it runs its part for; the plan (layers per member) is kept with the members, and a pooled
 * task's reward is shared between the nodes that computed it.
 */
export class NodePools1764500000000 implements MigrationInterface {
  name = 'NodePools1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE nodes
        ADD COLUMN files jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN pool_endpoint text,
        ADD COLUMN pool_ready uuid`);
    await q.query(`
      CREATE TABLE node_pools (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        model_id text NOT NULL,
        coordinator_id uuid REFERENCES nodes(id) ON DELETE SET NULL,
        -- The pre-shared key of the pool's tunnel (hex): handed to every member with its assignment, so it is kept as is.
        tunnel_key text NOT NULL CHECK (tunnel_key ~ '^[0-9a-f]{64}$'),
        served_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX node_pools_owner ON node_pools (owner_id, created_at DESC)`);
    // A node is in at most one pool (node_id unique).
    await q.query(`
      CREATE TABLE node_pool_members (
        pool_id uuid NOT NULL REFERENCES node_pools(id) ON DELETE CASCADE,
        node_id uuid NOT NULL UNIQUE REFERENCES nodes(id) ON DELETE CASCADE,
        position int NOT NULL,
        layers int NOT NULL DEFAULT 0 CHECK (layers >= 0),
        PRIMARY KEY (pool_id, node_id)
      )`);
    // Per node, the part of a task's reward it earned: one row for a single node, one per member for a pool.
    await q.query(`
      CREATE TABLE node_reward_shares (
        task_id uuid NOT NULL REFERENCES node_rewards(task_id) ON DELETE CASCADE,
        node_id uuid NOT NULL REFERENCES nodes(id),
        units bigint NOT NULL CHECK (units >= 0),
        layers int,
        PRIMARY KEY (task_id, node_id)
      )`);
    await q.query(`CREATE INDEX node_reward_shares_node ON node_reward_shares (node_id)`);
    await q.query(`INSERT INTO node_reward_shares (task_id, node_id, units) SELECT task_id, node_id, units FROM node_rewards`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE node_reward_shares`);
    await q.query(`DROP TABLE node_pool_members`);
    await q.query(`DROP TABLE node_pools`);
    await q.query(`ALTER TABLE nodes DROP COLUMN files, DROP COLUMN pool_endpoint, DROP COLUMN pool_ready`);
  }
}
