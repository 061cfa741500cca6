import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A row per sign-in (token family, id = refresh_tokens.family_id): who it belongs to, the browser and address it was
 * last used from, when it started and when it last got new tokens, so a user can see and end each one. Sign-ins made
 * before this keep their times from their tokens; their browser and address are unknown.
 */
export class SessionDevices1765400000000 implements MigrationInterface {
  name = 'SessionDevices1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        user_agent text NOT NULL DEFAULT '',
        ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sessions_user_idx ON sessions (user_id, last_used_at DESC)`);
    await q.query(`
      INSERT INTO sessions (id, user_id, created_at, last_used_at)
      SELECT family_id, (array_agg(user_id))[1], min(created_at), max(coalesce(used_at, created_at))
      FROM refresh_tokens GROUP BY family_id`);
    await q.query(
      `ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_family_fk FOREIGN KEY (family_id) REFERENCES sessions(id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refresh_tokens DROP CONSTRAINT IF EXISTS refresh_tokens_family_fk`);
    await q.query(`DROP TABLE IF EXISTS sessions`);
  }
}
