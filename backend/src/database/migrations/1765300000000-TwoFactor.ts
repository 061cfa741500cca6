import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-factor sign-in: a user's authenticator secret (encrypted; pending until a first code confirms it) with the
 * last time step a code was accepted for, and the recovery codes (only keyed hashes, each usable once).
 */
export class TwoFactor1765300000000 implements MigrationInterface {
  name = 'TwoFactor1765300000000';

  async up(q: QueryRunner): Promise<void> {
    // last_step refuses a code of the same or an earlier 30-second step than the last one accepted (replays).
    await q.query(`
      CREATE TABLE user_two_factor (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        totp_secret text NOT NULL,
        enabled_at timestamptz,
        last_step bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE recovery_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, code_hash)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS recovery_codes`);
    await q.query(`DROP TABLE IF EXISTS user_two_factor`);
  }
}
