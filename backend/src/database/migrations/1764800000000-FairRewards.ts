import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rewards for work, never above what was paid: each reward records the tokens it pays for and the part of it the
 * emission added; the emission minted but not yet shared out waits in `undistributed_units`, for the rewards that
 * fall due at the next settlement, in proportion to their work; a reward's welcome-bonus part is kept with it.
 */
export class FairRewards1764800000000 implements MigrationInterface {
  name = 'FairRewards1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE node_rewards
        ADD COLUMN tokens int NOT NULL DEFAULT 0 CHECK (tokens >= 0),
        ADD COLUMN emission_units bigint NOT NULL DEFAULT 0 CHECK (emission_units >= 0),
        ADD COLUMN emission_at timestamptz,
        ADD COLUMN bonus_units bigint NOT NULL DEFAULT 0 CHECK (bonus_units >= 0),
        ADD CONSTRAINT node_rewards_emission_within CHECK (emission_units <= units AND bonus_units <= units)`);
    await q.query(`ALTER TABLE reward_emission ADD COLUMN undistributed_units bigint NOT NULL DEFAULT 0 CHECK (undistributed_units >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reward_emission DROP COLUMN IF EXISTS undistributed_units`);
    await q.query(`ALTER TABLE node_rewards DROP CONSTRAINT IF EXISTS node_rewards_emission_within,
      DROP COLUMN IF EXISTS tokens, DROP COLUMN IF EXISTS emission_units, DROP COLUMN IF EXISTS emission_at, DROP COLUMN IF EXISTS bonus_units`);
  }
}
