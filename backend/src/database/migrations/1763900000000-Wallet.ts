import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The token ledger (integer milli-GLOB: 1 GLOB = 1000 units), notifications, purchases and idempotency keys.
 * Every balance change is a ledger transaction whose entries sum to zero, checked at commit.
 */
export class Wallet1763900000000 implements MigrationInterface {
  name = 'Wallet1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('user', 'platform')),
        user_id uuid UNIQUE REFERENCES users(id) ON DELETE RESTRICT,
        code text UNIQUE,
        address text NOT NULL UNIQUE CHECK (address ~ '^glb1[0-9a-f]{38}$'),
        balance bigint NOT NULL DEFAULT 0,
        held bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ledger_accounts_owner CHECK ((kind = 'user') = (user_id IS NOT NULL) AND (kind = 'platform') = (code IS NOT NULL)),
        -- A user's wallet never goes below zero, and holds never exceed it. Platform accounts issue tokens
        -- (bonuses, sales, rewards), so their balance is the negative of what they put into circulation.
        CONSTRAINT ledger_accounts_balance_nonnegative CHECK (kind = 'platform' OR balance >= 0),
        CONSTRAINT ledger_accounts_held_range CHECK (held >= 0 AND (kind = 'platform' OR held <= balance))
      )`);
    for (const code of ['bonus', 'sales', 'rewards', 'spending']) {
      await q.query(
        `INSERT INTO ledger_accounts (kind, code, address) VALUES ('platform', $1, 'glb1' || substr(encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 1, 38))`,
        [`platform:${code}`],
      );
    }
    await q.query(`
      CREATE TABLE ledger_transactions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type text NOT NULL CHECK (type IN ('earning', 'welcome_bonus', 'bonus', 'reward', 'spending', 'purchase', 'transfer')),
        status text NOT NULL CHECK (status IN ('completed', 'pending', 'failed')),
        amount bigint NOT NULL CHECK (amount > 0),
        description text NOT NULL,
        reference text,
        hold_account_id uuid REFERENCES ledger_accounts(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CONSTRAINT ledger_transactions_hold CHECK (status = 'completed' OR hold_account_id IS NOT NULL)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX ledger_transactions_once ON ledger_transactions (type, reference) WHERE type IN ('welcome_bonus', 'earning', 'purchase') AND status <> 'failed'`,
    );
    await q.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES ledger_transactions(id),
        account_id uuid NOT NULL REFERENCES ledger_accounts(id),
        amount bigint NOT NULL CHECK (amount <> 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id)`);
    await q.query(`CREATE INDEX ledger_transactions_hold_idx ON ledger_transactions (hold_account_id) WHERE hold_account_id IS NOT NULL`);
    // Double entry, enforced by the database: at commit, every transaction's entries sum to zero.
    await q.query(`
      CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
          RAISE EXCEPTION 'ledger transaction % is not balanced', NEW.transaction_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced()`);
    // Existing users get a wallet (no bonus: that is for new accounts).
    await q.query(`
      INSERT INTO ledger_accounts (kind, user_id, address)
      SELECT 'user', id, 'glb1' || substr(encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 1, 38) FROM users`);

    await q.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('welcome_bonus', 'purchase_completed', 'transfer_received', 'reward', 'system')),
        title text NOT NULL,
        message text NOT NULL,
        data jsonb,
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL`);

    await q.query(`
      CREATE TABLE purchases (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id),
        package_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        price_cents integer NOT NULL CHECK (price_cents > 0),
        currency text NOT NULL DEFAULT 'USD',
        status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
        test_mode boolean NOT NULL,
        stripe_session_id text UNIQUE,
        transaction_id uuid REFERENCES ledger_transactions(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash text NOT NULL,
        status_code integer,
        response json, -- json, not jsonb: a replay returns the first answer byte for byte
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['idempotency_keys', 'purchases', 'notifications', 'ledger_entries', 'ledger_transactions', 'ledger_accounts']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
    await q.query(`DROP FUNCTION IF EXISTS ledger_check_balanced()`);
  }
}
