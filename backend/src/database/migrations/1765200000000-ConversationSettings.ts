import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A conversation's system prompt and sampling parameters (the spec's ConversationSettings), as given; what is left
 * out takes its default when read.
 */
export class ConversationSettings1765200000000 implements MigrationInterface {
  name = 'ConversationSettings1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations DROP COLUMN IF EXISTS settings`);
  }
}
