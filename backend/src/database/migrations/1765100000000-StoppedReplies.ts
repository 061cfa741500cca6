import { MigrationInterface, QueryRunner } from 'typeorm';

/** A reply its requester stopped is saved with `stopped` (the spec's ChatMessage.stopped); its status stays `sent`. */
export class StoppedReplies1765100000000 implements MigrationInterface {
  name = 'StoppedReplies1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN stopped boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN IF EXISTS stopped`);
  }
}
