import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import type { JobTurn } from '../../jobs/jobs';
import type { ClaimedEnd } from '@glob/engine/verification';
import type { Sampling } from '@glob/engine/sampling';
import { liveNode } from '../../database/live-node';
import { PENDING_MOVES } from '../rewards/rewards.repository';

export interface SpotCheckRow {
  id: string;
  task_id: string;
  node_id: string;
  model_id: string;
  node_text: string;
  status: 'pending' | 'passed' | 'failed' | 'inconclusive';
}

/**
 * What a peer verifies: the request as the checked node (or the challenged one) was given it, and what the node
 * claimed of its answer (its commitment, the text the platform relayed, how it ended). The peer recomputes the
 * commitment's tokens after the prompt; the platform judges the claim with its numbers.
 */
export interface ReplayJob {
  model_id: string;
  /** The chat turns, or instead `prompt`, the raw text of a legacy completion (evaluated without a chat template). */
  messages?: JobTurn[];
  prompt?: string;
  /** The checked reply's sampling, with the cap and the seed its node was given. */
  params: Sampling & { seed: number };
  claim: {
    /** The node's commitment (base64, as its done event carried it). */
    commitment: string;
    text: string;
    stop_reason: ClaimedEnd;
  };
}

/** Whose answer a peer replay checks: a spot check of a reply, or a model challenge. */
export type ReplaySubject = { spotCheckId: string } | { proofId: string };

export interface PeerReplayRow {
  id: string;
  spot_check_id: string | null;
  proof_id: string | null;
  /** The node that claimed it (none while it waits). */
  node_id: string | null;
  /** The nodes whose owners may not replay it: the checked node and the peers before. */
  exclude_nodes: string[];
  job: ReplayJob;
  status: 'waiting' | 'claimed' | 'done' | 'expired';
  /** The peer's recomputation (base64 steps, VERIFY_TOP candidates each); null when it could not run it. */
  steps: string | null;
}

const REPLAY = 'r.id, r.spot_check_id, r.proof_id, r.node_id, r.exclude_nodes, r.job, r.status, r.steps';

/**
 * A replay job as stored: jsonb would reorder a JSON schema's properties (and so its grammar), and a tool's schema in
 * the turns (and so the prompt its template renders), so both are kept as text.
 */
type StoredReplayJob = Omit<ReplayJob, 'params' | 'messages'> & {
  messages?: string | JobTurn[];
  params: Omit<ReplayJob['params'], 'json_schema'> & { json_schema?: string };
};
const storedJob = ({ params: { json_schema, ...params }, messages, ...job }: ReplayJob): StoredReplayJob => ({
  ...job,
  ...(messages ? { messages: JSON.stringify(messages) } : {}),
  params: { ...params, ...(json_schema ? { json_schema: JSON.stringify(json_schema) } : {}) },
});
const loaded = (row: Omit<PeerReplayRow, 'job'> & { job: StoredReplayJob }): PeerReplayRow => {
  const { json_schema, ...params } = row.job.params;
  const { messages, ...job } = row.job;
  return {
    ...row,
    job: {
      ...job,
      // Rows written before turns were kept as text hold them as jsonb.
      ...(messages ? { messages: typeof messages === 'string' ? (JSON.parse(messages) as JobTurn[]) : messages } : {}),
      params: { ...params, ...(json_schema ? { json_schema: JSON.parse(json_schema) as Record<string, unknown> } : {}) },
    },
  };
};
type StoredReplayRow = Omit<PeerReplayRow, 'job'> & { job: StoredReplayJob };

/**
 * Whether node `n` is barred from checking the work of the nodes in `$x`: it is one of them, has the same owner, or
 * the same network origin (a check by the checked node's own network is no check).
 */
const barred = (n: string, x: string) =>
  `EXISTS (SELECT 1 FROM nodes x WHERE x.id = ANY(${x}) AND (x.id = ${n}.id OR x.owner_id = ${n}.owner_id OR x.origin = ${n}.origin))`;

/** A model challenge as the node is given it (see ModelChallenge in the spec). */
export interface ChallengeBody {
  nonce: string;
  ranges: Array<{ offset: number; length: number }>;
  messages: Array<{ role: 'user'; content: string }>;
  params: Sampling & { seed: number };
}

export interface ModelProofRow {
  id: string;
  node_id: string;
  model_id: string;
  challenge: ChallengeBody;
  status: 'issued' | 'checking' | 'proven' | 'failed';
  node_text: string | null;
  issued_at: Date;
  proven_at: Date | null;
}

const PROOF = 'id, node_id, model_id, challenge, status, node_text, issued_at, proven_at';

/**
 * What the platform verifies of remote nodes' work: the spot_checks and model_proofs tables, what a verdict
 * changes on the node and its rewards, and what a refund reads of the task it refunds.
 */
@Injectable()
export class SpotChecksRepository extends ConfiguredRepository {
  async create(c: { taskId: string; nodeId: string; modelId: string; nodeText: string }, tx?: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO spot_checks (task_id, node_id, model_id, node_text) VALUES ($1, $2, $3, $4) RETURNING id`,
      [c.taskId, c.nodeId, c.modelId, c.nodeText],
      tx,
    );
    return row!.id;
  }

  /** The check if it still waits for its verdict, locked until the transaction ends. */
  lockPending(id: string, tx: Tx): Promise<SpotCheckRow | undefined> {
    return this.one<SpotCheckRow>(
      `SELECT id, task_id, node_id, model_id, node_text, status FROM spot_checks WHERE id = $1 AND status = 'pending' FOR UPDATE`,
      [id],
      tx,
    );
  }

  async judge(id: string, passed: boolean, matched: number, nodeTokens: number, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE spot_checks SET status = $2, matched_tokens = $3, node_tokens = $4, judged_at = now() WHERE id = $1`,
      [id, passed ? 'passed' : 'failed', matched, nodeTokens],
      tx,
    );
  }

  async setInconclusive(id: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE spot_checks SET status = 'inconclusive', judged_at = now() WHERE id = $1 AND status = 'pending'`, [id], tx);
  }

  /** A spot check with its node's owner. */
  spotCheck(id: string, tx?: Tx): Promise<(SpotCheckRow & { owner_id: string | null }) | undefined> {
    return this.one(
      `SELECT c.id, c.task_id, c.node_id, c.model_id, c.node_text, c.status, n.owner_id FROM spot_checks c JOIN nodes n ON n.id = c.node_id WHERE c.id = $1`,
      [id],
      tx,
    );
  }

  /** The node's spot checks by verdict. */
  /** The node's failed checks, all time (passed ones are never shown: they would tell which replies are verified). */
  async verdictsOf(nodeId: string, tx?: Tx): Promise<{ failed: number }> {
    const row = await this.one<{ failed: number }>(
      `SELECT count(*)::int AS failed FROM spot_checks WHERE node_id = $1 AND status = 'failed'`,
      [nodeId],
      tx,
    );
    return row ?? { failed: 0 };
  }

  // ---- peer replays ----

  /**
   * Whether a node of none of these nodes' owners and network origins could verify work on the model now: it serves and
   * has proven the model, is not paused, and asked for work within `activeSeconds` (a node that stopped asking is not
   * waited for).
   */
  async peerAvailable(modelId: string, notOwnersOf: string[], activeSeconds: number, tx?: Tx): Promise<boolean> {
    const row = await this.one<{ id: string }>(
      `SELECT n.id FROM nodes n
       WHERE n.credential_hash IS NOT NULL AND ${liveNode('n', '$1')} AND NOT n.paused AND NOT n.battery_paused
         AND n.claimed_at > now() - make_interval(secs => $4) AND n.owner_id IS NOT NULL AND $2 = ANY(n.models)
         AND NOT ${barred('n', '$3::uuid[]')}
         AND EXISTS (SELECT 1 FROM model_proofs p WHERE p.node_id = n.id AND p.model_id = $2 AND p.status = 'proven')
       LIMIT 1`,
      [this.config.inference.nodeLiveSeconds, modelId, notOwnersOf, activeSeconds],
      tx,
    );
    return !!row;
  }

  /** A check waiting for the first node of another owner and origin than these nodes' to claim it. */
  async addReplay(subject: ReplaySubject, excludeNodes: string[], job: ReplayJob, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO peer_replays (spot_check_id, proof_id, model_id, exclude_nodes, job) VALUES ($1, $2, $3, $4::uuid[], $5::jsonb)`,
      [
        'spotCheckId' in subject ? subject.spotCheckId : null,
        'proofId' in subject ? subject.proofId : null,
        job.model_id,
        excludeNodes,
        JSON.stringify(storedJob(job)),
      ],
      tx,
    );
  }

  /** The oldest check this node may run (a model it proved, another owner's and network's work), now claimed by it. */
  async claimReplay(nodeId: string, tx?: Tx): Promise<PeerReplayRow | undefined> {
    const row = await this.one<StoredReplayRow>(
      `UPDATE peer_replays r SET status = 'claimed', node_id = n.id, claimed_at = now() FROM nodes n
       WHERE n.id = $1 AND r.id = (
         SELECT p.id FROM peer_replays p JOIN nodes me ON me.id = $1
         WHERE p.status = 'waiting' AND p.model_id = ANY(me.models) AND me.owner_id IS NOT NULL
           AND NOT ${barred('me', 'p.exclude_nodes')}
           AND EXISTS (SELECT 1 FROM model_proofs mp WHERE mp.node_id = me.id AND mp.model_id = p.model_id AND mp.status = 'proven')
         ORDER BY p.created_at LIMIT 1 FOR UPDATE OF p SKIP LOCKED)
       RETURNING ${REPLAY}`,
      [nodeId],
      tx,
    );
    return row && loaded(row);
  }

  /** A replay the node claimed and has not answered yet, locked until the transaction ends. */
  async lockClaimedReplay(id: string, nodeId: string, tx: Tx): Promise<PeerReplayRow | undefined> {
    const row = await this.one<StoredReplayRow>(
      `SELECT ${REPLAY} FROM peer_replays r JOIN nodes n ON n.id = r.node_id
       WHERE r.id = $1 AND r.node_id = $2 AND r.status = 'claimed' FOR UPDATE OF r`,
      [id, nodeId],
      tx,
    );
    return row && loaded(row);
  }

  async finishReplay(id: string, steps: string | null, tx: Tx): Promise<void> {
    await this.rows(`UPDATE peer_replays SET status = 'done', steps = $2, done_at = now() WHERE id = $1`, [id, steps], tx);
  }

  /** Replays nobody claimed within `waitSeconds`, or claimed and not answered within `runSeconds`: expired now. */
  async expireReplays(waitSeconds: number, runSeconds: number, tx?: Tx): Promise<PeerReplayRow[]> {
    const rows = await this.rows<StoredReplayRow>(
      `UPDATE peer_replays r SET status = 'expired', done_at = now()
       WHERE (r.status = 'waiting' AND r.created_at < now() - make_interval(secs => $1))
          OR (r.status = 'claimed' AND r.claimed_at < now() - make_interval(secs => $2))
       RETURNING ${REPLAY}`,
      [waitSeconds, runSeconds],
      tx,
    );
    return rows.map(loaded);
  }

  /** Every replay of a subject, oldest first. */
  async replaysOf(subject: ReplaySubject, tx?: Tx): Promise<PeerReplayRow[]> {
    const [column, id] = 'spotCheckId' in subject ? ['spot_check_id', subject.spotCheckId] : ['proof_id', subject.proofId];
    const rows = await this.rows<StoredReplayRow>(
      `SELECT ${REPLAY} FROM peer_replays r WHERE r.${column} = $1 ORDER BY r.created_at, r.id`,
      [id],
      tx,
    );
    return rows.map(loaded);
  }

  /**
   * What a refund needs of a task: what it charged through (its hold), who, and the reward it already paid a node's
   * owner, unless that requester's account is gone.
   */
  chargeOf(id: string, tx: Tx): Promise<{ hold_id: string; user_id: string; rewarded: string; refunded: boolean } | undefined> {
    return this.one(
      `SELECT t.hold_id, t.user_id, coalesce((SELECT r.units FROM node_rewards r WHERE r.task_id = t.id AND r.paid_at IS NOT NULL), 0) AS rewarded,
              EXISTS (SELECT 1 FROM ledger_transactions l WHERE l.type = 'refund' AND l.reference = t.id::text) AS refunded
       FROM inference_tasks t JOIN users u ON u.id = t.user_id AND u.deleted_at IS NULL
       WHERE t.id = $1 AND t.hold_id IS NOT NULL`,
      [id],
      tx,
    );
  }

  async setRefund(id: string, transactionId: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE spot_checks SET refund_transaction_id = $2 WHERE id = $1`, [id, transactionId], tx);
  }

  /** Checks the node has passed since it was paired or last resumed (its first ones are all checked). */
  async passedSinceTrusted(nodeId: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ passed: number }>(`SELECT spot_checks_passed AS passed FROM nodes WHERE id = $1`, [nodeId], tx);
    return row?.passed ?? 0;
  }

  async countPass(nodeId: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE nodes SET spot_checks_passed = spot_checks_passed + 1 WHERE id = $1`, [nodeId], tx);
  }

  /**
   * The node is suspended with `reason` (paused by the platform: its owner cannot resume it), its trust starts over, its
   * model proofs are void (it must prove its models again), and its unpaid rewards are withheld; answers their units,
   * the tasks they were for, and its owner.
   */
  async penalize(
    nodeId: string,
    reason: string,
    tx: Tx,
  ): Promise<{ ownerId: string | null; name: string; withheldUnits: number; taskIds: string[] }> {
    const node = await this.one<{ owner_id: string | null; name: string }>(
      `UPDATE nodes SET paused = true, paused_reason = $2, spot_checks_passed = 0, suspended_at = now() WHERE id = $1 RETURNING owner_id, name`,
      [nodeId, reason],
      tx,
    );
    await this.rows(
      `UPDATE model_proofs SET status = 'failed', failure = 'the node was suspended' WHERE node_id = $1 AND status <> 'failed'`,
      [nodeId],
      tx,
    );
    const withheld = await this.rows<{ task_id: string; units: string }>(
      `WITH w AS (UPDATE node_rewards SET withheld_at = now() WHERE node_id = $1 AND paid_at IS NULL AND withheld_at IS NULL RETURNING task_id, units),
            moved AS (${PENDING_MOVES('(SELECT s.node_id, -s.units AS units FROM node_reward_shares s JOIN w ON w.task_id = s.task_id)')})
       SELECT task_id, units FROM w`,
      [nodeId],
      tx,
    );
    // Its rewards for verifying others' work too: a suspended node's word is worth nothing, its checks' included.
    const verifications = await this.rows<{ units: string }>(
      `WITH v AS (UPDATE verification_rewards SET withheld_at = now() WHERE node_id = $1 AND paid_at IS NULL AND withheld_at IS NULL RETURNING node_id, units),
            moved AS (${PENDING_MOVES('(SELECT node_id, -units AS units FROM v)')})
       SELECT units FROM v`,
      [nodeId],
      tx,
    );
    return {
      ownerId: node?.owner_id ?? null,
      name: node?.name ?? '',
      withheldUnits: [...withheld, ...verifications].reduce((sum, r) => sum + Number(r.units), 0),
      taskIds: withheld.map((r) => r.task_id),
    };
  }

  /** A suspended node that proved a model again is back, on probation (every reply verified until it passes enough). */
  async reinstate(nodeId: string, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE nodes SET paused = false, paused_reason = NULL, suspended_at = NULL WHERE id = $1 AND suspended_at IS NOT NULL`,
      [nodeId],
      tx,
    );
  }

  // ---- model proofs ----

  /** The node's live proofs (issued, being checked, or proven), one per model. */
  liveProofs(nodeId: string, tx?: Tx): Promise<ModelProofRow[]> {
    return this.rows<ModelProofRow>(`SELECT ${PROOF} FROM model_proofs WHERE node_id = $1 AND status <> 'failed'`, [nodeId], tx);
  }

  /** A new challenge for the model, unless one is live already (then undefined). */
  async issue(nodeId: string, modelId: string, challenge: ChallengeBody, tx?: Tx): Promise<ModelProofRow | undefined> {
    return this.one<ModelProofRow>(
      `INSERT INTO model_proofs (node_id, model_id, challenge) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (node_id, model_id) WHERE status <> 'failed' DO NOTHING RETURNING ${PROOF}`,
      [nodeId, modelId, JSON.stringify(challenge)],
      tx,
    );
  }

  /**
   * Challenges left unanswered past `answerSeconds`, or answered but not judged past `judgeSeconds` (the trusted
   * generator went away), are dropped, so a fresh one can be issued.
   */
  async expire(nodeId: string, answerSeconds: number, judgeSeconds: number, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE model_proofs SET status = 'failed', failure = CASE status WHEN 'issued' THEN 'not answered in time' ELSE 'not judged in time' END
       WHERE node_id = $1 AND ((status = 'issued' AND issued_at < now() - make_interval(secs => $2))
                            OR (status = 'checking' AND issued_at < now() - make_interval(secs => $3)))`,
      [nodeId, answerSeconds, judgeSeconds],
      tx,
    );
  }

  proofById(id: string, tx?: Tx): Promise<ModelProofRow | undefined> {
    return this.one<ModelProofRow>(`SELECT ${PROOF} FROM model_proofs WHERE id = $1`, [id], tx);
  }

  /** The proof in `status`, locked until the transaction ends. */
  lockProof(id: string, status: 'issued' | 'checking', tx: Tx): Promise<ModelProofRow | undefined> {
    return this.one<ModelProofRow>(`SELECT ${PROOF} FROM model_proofs WHERE id = $1 AND status = $2 FOR UPDATE`, [id, status], tx);
  }

  async checking(id: string, nodeText: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE model_proofs SET status = 'checking', node_text = $2 WHERE id = $1`, [id, nodeText], tx);
  }

  async prove(id: string, generation: 'checked' | 'unchecked', nodeText: string, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE model_proofs SET status = 'proven', generation = $2, node_text = $3, proven_at = now() WHERE id = $1`,
      [id, generation, nodeText],
      tx,
    );
  }

  async failProof(id: string, failure: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE model_proofs SET status = 'failed', failure = $2 WHERE id = $1`, [id, failure], tx);
  }

  /** node id → its proven models and when, for the owner's list. */
  async proven(nodeIds: string[], tx?: Tx): Promise<Map<string, Array<{ model_id: string; proven_at: Date }>>> {
    const rows = await this.rows<{ node_id: string; model_id: string; proven_at: Date }>(
      `SELECT node_id, model_id, proven_at FROM model_proofs WHERE node_id = ANY($1::uuid[]) AND status = 'proven' ORDER BY proven_at`,
      [nodeIds],
      tx,
    );
    const byNode = new Map<string, Array<{ model_id: string; proven_at: Date }>>();
    for (const r of rows) byNode.set(r.node_id, [...(byNode.get(r.node_id) ?? []), { model_id: r.model_id, proven_at: r.proven_at }]);
    return byNode;
  }
}
