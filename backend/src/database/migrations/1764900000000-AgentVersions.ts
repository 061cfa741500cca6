import { MigrationInterface, QueryRunner } from 'typeorm';

/** The version of each node's agent, as its heartbeat reports it, so the platform can require a minimum. */
export class AgentVersions1764900000000 implements MigrationInterface {
  name = 'AgentVersions1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes ADD COLUMN agent_version text CHECK (length(agent_version) <= 64)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN IF EXISTS agent_version`);
  }
}
