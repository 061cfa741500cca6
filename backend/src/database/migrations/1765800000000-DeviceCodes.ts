import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pairing a machine without a token to copy (RFC 8628's device flow): the machine's codes, stored only as hashes, what
 * it said it is, and the account that confirmed it. The grant is a join token of that account, issued once.
 */
export class DeviceCodes1765800000000 implements MigrationInterface {
  name = 'DeviceCodes1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE node_device_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        device_code_hash text NOT NULL UNIQUE,
        user_code_hash text NOT NULL UNIQUE,
        name text NOT NULL,
        host jsonb NOT NULL,
        ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        polled_at timestamptz,
        approved_by uuid REFERENCES users(id) ON DELETE CASCADE,
        approved_at timestamptz,
        granted_at timestamptz
      )`);
    await q.query(`CREATE INDEX node_device_codes_expires_idx ON node_device_codes (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE node_device_codes`);
  }
}
