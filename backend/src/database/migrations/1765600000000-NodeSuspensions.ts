import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A node whose reply failed verification is suspended: paused by the platform, which only the platform lifts (when the
 * node has proven its models again), whatever its owner asks.
 */
export class NodeSuspensions1765600000000 implements MigrationInterface {
  name = 'NodeSuspensions1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes ADD COLUMN suspended_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN suspended_at`);
  }
}
