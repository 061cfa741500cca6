import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Peers check other owners' nodes by recomputation: a peer's answer is its recomputation's steps (base64), not a text
 * of its own. A node's network origin (its address's /24 or /64, from its heartbeats) keeps a check away from peers on
 * the checked node's network. Checks still open under the old replays are given up (their checks are decided as
 * replays nobody took). A peer whose recomputation decided a reply's check earns a verification reward, paid from the
 * platform's share of that reply's charge after the settlement window, withheld if the peer is suspended first.
 */
export class PeerRecomputation1765700000000 implements MigrationInterface {
  name = 'PeerRecomputation1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE peer_replays SET status = 'expired', done_at = now() WHERE status IN ('waiting', 'claimed')`);
    await q.query(`ALTER TABLE peer_replays RENAME COLUMN text TO steps`);
    await q.query(`ALTER TABLE nodes ADD COLUMN origin text`);
    await q.query(`
      CREATE TABLE verification_rewards (
        replay_id uuid PRIMARY KEY REFERENCES peer_replays(id),
        task_id uuid NOT NULL REFERENCES inference_tasks(id),
        node_id uuid NOT NULL REFERENCES nodes(id),
        owner_id uuid NOT NULL REFERENCES users(id),
        units bigint NOT NULL CHECK (units > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        payable_at timestamptz NOT NULL,
        paid_at timestamptz,
        withheld_at timestamptz,
        bonus_units bigint NOT NULL DEFAULT 0,
        transaction_id uuid UNIQUE REFERENCES ledger_transactions(id),
        CONSTRAINT verification_rewards_paid CHECK ((paid_at IS NULL) = (transaction_id IS NULL))
      )`);
    await q.query(
      `CREATE INDEX verification_rewards_due_idx ON verification_rewards (payable_at, created_at) WHERE paid_at IS NULL AND withheld_at IS NULL`,
    );
    await q.query(`CREATE INDEX verification_rewards_node_idx ON verification_rewards (node_id)`);
    await q.query(`CREATE INDEX verification_rewards_task_idx ON verification_rewards (task_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE verification_rewards`);
    await q.query(`ALTER TABLE nodes DROP COLUMN origin`);
    await q.query(`ALTER TABLE peer_replays RENAME COLUMN steps TO text`);
  }
}
