import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passkeys (WebAuthn credentials): the credential id the authenticator names it by, its COSE public key, the
 * signature counter last seen, and what the user called it. A passkey is a second factor and a password-free sign-in.
 */
export class Passkeys1765500000000 implements MigrationInterface {
  name = 'Passkeys1765500000000';

  async up(q: QueryRunner): Promise<void> {
    // credential_id is globally unique: an authenticator's credential belongs to one account only.
    await q.query(`
      CREATE TABLE passkeys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        credential_id text NOT NULL UNIQUE,
        public_key bytea NOT NULL,
        counter bigint NOT NULL DEFAULT 0,
        transports text[] NOT NULL DEFAULT '{}',
        device_type text NOT NULL,
        backed_up boolean NOT NULL DEFAULT false,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await q.query(`CREATE INDEX passkeys_user_id ON passkeys (user_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS passkeys`);
  }
}
