import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the platform checks and measures of a remote node instead of believing it: the models it proved, how many jobs it runs at once, its missed
 * first-token deadlines and why the platform paused it, the tokens its measured speed rests on; and, per task, the
 * usage the node reported beside the count the platform charged.
 */
export class NodeTrust1764700000000 implements MigrationInterface {
  name = 'NodeTrust1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE nodes
        ADD COLUMN slots int NOT NULL DEFAULT 1 CHECK (slots BETWEEN 1 AND 64),
        ADD COLUMN missed_first_tokens int NOT NULL DEFAULT 0,
        ADD COLUMN paused_reason text,
        ADD COLUMN measured_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN spot_checks_passed int NOT NULL DEFAULT 0,
        ADD COLUMN claimed_at timestamptz`);
    // A spot check replays a remote node's reply on a trusted generator; a node that fails one is paused and its
    // unpaid rewards are withheld (never paid; their funds stay in the rewards account).
    await q.query(`
      CREATE TABLE spot_checks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        task_id uuid NOT NULL UNIQUE REFERENCES inference_tasks(id),
        node_id uuid NOT NULL REFERENCES nodes(id),
        model_id text NOT NULL,
        node_text text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'passed', 'failed', 'inconclusive')),
        matched_tokens int,
        node_tokens int,
        created_at timestamptz NOT NULL DEFAULT now(),
        judged_at timestamptz,
        refund_transaction_id uuid UNIQUE REFERENCES ledger_transactions(id)
      )`);
    // A reply that fails its check is refunded to its requester (the refund names the check it rests on).
    await q.query(`ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
      ADD CONSTRAINT ledger_transactions_type_check
        CHECK (type IN ('earning', 'welcome_bonus', 'bonus', 'reward', 'spending', 'purchase', 'transfer', 'refund'))`);
    await q.query(`CREATE INDEX spot_checks_node_idx ON spot_checks (node_id, created_at)`);
    await q.query(
      `ALTER TABLE node_rewards ADD COLUMN withheld_at timestamptz, ADD CONSTRAINT node_rewards_withheld_unpaid CHECK (withheld_at IS NULL OR paid_at IS NULL)`,
    );
    // A model counts for a node only once it answered a challenge for it: byte ranges of the catalog's file hashed
    // with a nonce, and a short seeded generation (judged by a trusted generator when one serves the model).
    await q.query(`
      CREATE TABLE model_proofs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        node_id uuid NOT NULL REFERENCES nodes(id),
        model_id text NOT NULL,
        challenge jsonb NOT NULL,
        status text NOT NULL DEFAULT 'issued' CHECK (status IN ('issued', 'checking', 'proven', 'failed')),
        generation text CHECK (generation IN ('checked', 'unchecked')),
        node_text text,
        failure text,
        issued_at timestamptz NOT NULL DEFAULT now(),
        proven_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX model_proofs_live_idx ON model_proofs (node_id, model_id) WHERE status <> 'failed'`);
    // Without a trusted generator, a check or a challenge is replayed by another owner's node (and, when the two
    // disagree, by a third, whose answer decides).
    await q.query(`
      CREATE TABLE peer_replays (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        spot_check_id uuid REFERENCES spot_checks(id),
        proof_id uuid REFERENCES model_proofs(id),
        model_id text NOT NULL,
        exclude_nodes uuid[] NOT NULL,
        node_id uuid REFERENCES nodes(id),
        job jsonb NOT NULL,
        status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'claimed', 'done', 'expired')),
        text text,
        created_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz,
        done_at timestamptz,
        CHECK ((spot_check_id IS NULL) <> (proof_id IS NULL))
      )`);
    await q.query(`CREATE INDEX peer_replays_waiting_idx ON peer_replays (model_id, created_at) WHERE status = 'waiting'`);
    await q.query(`
      ALTER TABLE inference_tasks
        ADD COLUMN reported_prompt_tokens int,
        ADD COLUMN reported_completion_tokens int`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS peer_replays`);
    await q.query(`DROP TABLE IF EXISTS model_proofs`);
    await q.query(`ALTER TABLE node_rewards DROP COLUMN IF EXISTS withheld_at`);
    await q.query(`DROP TABLE IF EXISTS spot_checks`);
    await q.query(`DELETE FROM ledger_entries e USING ledger_transactions t WHERE t.id = e.transaction_id AND t.type = 'refund'`);
    await q.query(`DELETE FROM ledger_transactions WHERE type = 'refund'`);
    await q.query(`ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
      ADD CONSTRAINT ledger_transactions_type_check
        CHECK (type IN ('earning', 'welcome_bonus', 'bonus', 'reward', 'spending', 'purchase', 'transfer'))`);
    await q.query(`ALTER TABLE inference_tasks DROP COLUMN IF EXISTS reported_prompt_tokens, DROP COLUMN IF EXISTS reported_completion_tokens`);
    await q.query(`ALTER TABLE nodes DROP COLUMN IF EXISTS claimed_at, DROP COLUMN IF EXISTS slots, DROP COLUMN IF EXISTS missed_first_tokens, DROP COLUMN IF EXISTS paused_reason,
      DROP COLUMN IF EXISTS measured_tokens, DROP COLUMN IF EXISTS spot_checks_passed`);
  }
}
