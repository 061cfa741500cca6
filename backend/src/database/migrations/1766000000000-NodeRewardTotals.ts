import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each node has earned (paid) and has pending, kept as it changes rather than summed over its whole history on
 * every heartbeat: `node_reward_moves` takes each change in the statement that makes it (a share recorded, a reward
 * paid or withheld, the emission's part added), inserted and never updated, so concurrent settlements lock nothing
 * of it; the rewards timer folds the moves into `node_reward_totals`, one process at a time. A node's figures are its
 * total plus its moves not yet folded.
 */
export class NodeRewardTotals1766000000000 implements MigrationInterface {
  name = 'NodeRewardTotals1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE node_reward_totals (
        node_id uuid PRIMARY KEY REFERENCES nodes(id),
        earned_units bigint NOT NULL DEFAULT 0,
        pending_units bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE node_reward_moves (
        id bigserial PRIMARY KEY,
        node_id uuid NOT NULL REFERENCES nodes(id),
        earned_units bigint NOT NULL DEFAULT 0,
        pending_units bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX node_reward_moves_node_idx ON node_reward_moves (node_id)`);
    await q.query(`
      INSERT INTO node_reward_totals (node_id, earned_units, pending_units)
      SELECT e.node_id,
             coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NOT NULL), 0),
             coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NULL AND e.withheld_at IS NULL), 0)
      FROM (SELECT s.node_id, s.units, r.paid_at, r.withheld_at FROM node_reward_shares s JOIN node_rewards r ON r.task_id = s.task_id
            UNION ALL
            SELECT node_id, units, paid_at, withheld_at FROM verification_rewards) e
      GROUP BY e.node_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE node_reward_moves`);
    await q.query(`DROP TABLE node_reward_totals`);
  }
}
