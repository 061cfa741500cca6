import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Money and accounts that cannot be farmed: the welcome bonus becomes a tracked, non-transferable part of a
 * wallet (spent first on the network), each mailbox gets it once ever (a keyed hash kept after deletion), and
 * one-time codes can also reset a password.
 */
export class AccountSafety1764200000000 implements MigrationInterface {
  name = 'AccountSafety1764200000000';

  async up(q: QueryRunner): Promise<void> {
    // `bonus` is the part of `balance` that is still welcome bonus; each entry records the part of its amount that
    // was bonus, so an account's bonus always equals the sum of its entries' bonus (ledger:check verifies it).
    // Balances from before keep no bonus part: what was credited then stays as it was.
    await q.query(`ALTER TABLE ledger_accounts ADD COLUMN bonus bigint NOT NULL DEFAULT 0`);
    await q.query(`
      ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_bonus_range
      CHECK (bonus >= 0 AND (kind = 'platform' AND bonus = 0 OR kind = 'user' AND bonus <= balance))`);
    await q.query(`ALTER TABLE ledger_entries ADD COLUMN bonus bigint NOT NULL DEFAULT 0`);
    await q.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_bonus_part
      CHECK (bonus = 0 OR (sign(bonus) = sign(amount) AND abs(bonus) <= abs(amount)))`);

    await q.query(`
      CREATE TABLE welcome_bonus_claims (
        mailbox_hash text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`ALTER TABLE one_time_codes DROP CONSTRAINT one_time_codes_purpose_check`);
    await q.query(
      `ALTER TABLE one_time_codes ADD CONSTRAINT one_time_codes_purpose_check CHECK (purpose IN ('signup', 'deletion', 'password_reset'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM one_time_codes WHERE purpose = 'password_reset'`);
    await q.query(`ALTER TABLE one_time_codes DROP CONSTRAINT one_time_codes_purpose_check`);
    await q.query(`ALTER TABLE one_time_codes ADD CONSTRAINT one_time_codes_purpose_check CHECK (purpose IN ('signup', 'deletion'))`);
    await q.query(`DROP TABLE IF EXISTS welcome_bonus_claims`);
    await q.query(`ALTER TABLE ledger_entries DROP COLUMN IF EXISTS bonus`);
    await q.query(`ALTER TABLE ledger_accounts DROP COLUMN IF EXISTS bonus`);
  }
}
