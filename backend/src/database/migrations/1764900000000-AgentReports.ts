import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each node's agent reports of itself in its heartbeat: its version (so the platform can require a minimum) and
 * the backend its engine computes on.
 */
export class AgentReports1764900000000 implements MigrationInterface {
  name = 'AgentReports1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE nodes
        ADD COLUMN agent_version text CHECK (length(agent_version) <= 64),
        ADD COLUMN compute_backend text CHECK (compute_backend IN ('cpu', 'cuda', 'vulkan', 'metal')),
        ADD COLUMN compute_vram_bytes bigint CHECK (compute_vram_bytes >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE nodes DROP COLUMN IF EXISTS agent_version, DROP COLUMN IF EXISTS compute_backend, DROP COLUMN IF EXISTS compute_vram_bytes`,
    );
  }
}
