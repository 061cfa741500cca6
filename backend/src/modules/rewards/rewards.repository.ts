import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** A node's rewards in units: paid, and recorded but not yet paid. */
export interface NodeRewardTotals {
  earnedUnits: number;
  pendingUnits: number;
}

export interface NewNodeReward {
  taskId: string;
  nodeId: string;
  ownerId: string;
  difficulty: number;
  hardwareScore: number;
  units: number;
  tokens: number;
  payableAt: Date;
}

export interface NodeReward {
  taskId: string;
  ownerId: string;
  difficulty: number;
  hardwareScore: number;
  units: number;
  payableAt: Date;
  transactionId: string | null;
  /** The hold its task was charged through. */
  holdId: string | null;
}

interface NodeRewardRow {
  task_id: string;
  owner_id: string;
  difficulty: string;
  hardware_score: string;
  units: string;
  payable_at: Date;
  transaction_id: string | null;
  hold_id: string | null;
}

/**
 * What each node earned, one row per part: its shares of replies' rewards and its verification rewards (the task they
 * were for, units, when recorded, paid or withheld).
 */
const NODE_EARNINGS = `(SELECT s.node_id, s.task_id, s.units, r.created_at, r.paid_at, r.withheld_at
                         FROM node_reward_shares s JOIN node_rewards r ON r.task_id = s.task_id
                       UNION ALL
                       SELECT node_id, task_id, units, created_at, paid_at, withheld_at FROM verification_rewards)`;

/**
 * Changes to nodes' reward figures as moves (NodeRewardTotals), written in the statement that makes them. `parts`
 * (node_id, units) became pending (or stopped being: negative units).
 */
export const PENDING_MOVES = (parts: string) =>
  `INSERT INTO node_reward_moves (node_id, pending_units) SELECT node_id, units FROM ${parts} p WHERE p.units <> 0`;
/** `parts` (node_id, units) were paid: they leave pending for earned. */
const PAID_MOVES = (parts: string) =>
  `INSERT INTO node_reward_moves (node_id, earned_units, pending_units) SELECT node_id, units, -units FROM ${parts} p WHERE p.units <> 0`;

/** A verification reward due: a peer's, for its recomputation that decided a reply's check. */
export interface VerificationReward {
  replayId: string;
  taskId: string;
  ownerId: string;
  units: number;
  /** The hold the checked reply was charged through (its bonus mix is the reward's). */
  holdId: string | null;
}

const REWARD =
  'task_id, owner_id, difficulty, hardware_score, units, payable_at, transaction_id, (SELECT hold_id FROM inference_tasks t WHERE t.id = task_id) AS hold_id';
const toReward = (r: NodeRewardRow): NodeReward => ({
  taskId: r.task_id,
  ownerId: r.owner_id,
  difficulty: Number(r.difficulty),
  hardwareScore: Number(r.hardware_score),
  units: Number(r.units),
  payableAt: r.payable_at,
  transactionId: r.transaction_id,
  holdId: r.hold_id,
});

/** A task with what its reward needs: its requester, what it charged, and its node's owner and score. */
export interface RewardableTask {
  id: string;
  user_id: string | null;
  node_id: string | null;
  model_id: string;
  status: string;
  difficulty: string | null;
  charged_units: string | null;
  reward_transaction_id: string | null;
  hold_id: string | null;
  /** The tokens the platform counted for it, prompt and completion. */
  tokens: number;
  owner_id: string | null;
  hardware_score: string | null;
}

/** Where the emission stands: it accrues from `startedAt`; the last accrual ended at `accruedAt`. */
export interface EmissionState {
  startedAt: Date;
  accruedAt: Date;
  /** Minted by rewards paid before rewards were funded, covered once when funding began. */
  openingUnits: number;
}

interface EmissionRow {
  started_at: Date;
  accrued_at: Date;
  opening_units: string;
}
const toEmission = (r: EmissionRow): EmissionState => ({
  startedAt: r.started_at,
  accruedAt: r.accrued_at,
  openingUnits: Number(r.opening_units),
});

/** A node's part of a task's reward. */
export interface RewardShare {
  nodeId: string;
  units: number;
  /** The layers it computed, for a pooled task. */
  layers: number | null;
}

/**
 * The node_rewards table: one row per rewarded task, pending until paid, with its shares per node (node_reward_shares:
 * one for a single node, one per member for a pool).
 */
@Injectable()
export class RewardsRepository extends Repository {
  /** The task with its node's owner and score, locked until the transaction ends. */
  lockForReward(id: string, tx: Tx): Promise<RewardableTask | undefined> {
    return this.one<RewardableTask>(
      `SELECT t.id, t.user_id, t.node_id, t.model_id, t.status, t.difficulty, t.charged_units, t.reward_transaction_id, t.hold_id,
              (t.prompt_tokens + t.completion_tokens)::int AS tokens, n.owner_id, n.hardware_score
       FROM inference_tasks t LEFT JOIN nodes n ON n.id = t.node_id WHERE t.id = $1 FOR UPDATE OF t`,
      [id],
      tx,
    );
  }

  async setTaskReward(id: string, transactionId: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE inference_tasks SET reward_transaction_id = $2 WHERE id = $1`, [id, transactionId], tx);
  }

  /** Each node's earned and pending units: its kept total and its moves not yet folded into it (NodeRewardTotals). */
  async totalsByNode(nodeIds: string[], tx?: Tx): Promise<Map<string, NodeRewardTotals>> {
    const rows = await this.rows<{ node_id: string; earned: string; pending: string }>(
      `SELECT m.node_id, sum(m.earned_units) AS earned, sum(m.pending_units) AS pending
       FROM (SELECT node_id, earned_units, pending_units FROM node_reward_totals WHERE node_id = ANY($1::uuid[])
             UNION ALL
             SELECT node_id, earned_units, pending_units FROM node_reward_moves WHERE node_id = ANY($1::uuid[])) m
       GROUP BY m.node_id`,
      [nodeIds],
      tx,
    );
    return new Map(rows.map((r) => [r.node_id, { earnedUnits: Number(r.earned), pendingUnits: Number(r.pending) }]));
  }

  /** Records the task's reward unless it is recorded already (its first record stands). */
  async record(r: NewNodeReward, tx: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO node_rewards (task_id, node_id, owner_id, difficulty, hardware_score, units, tokens, payable_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (task_id) DO NOTHING`,
      [r.taskId, r.nodeId, r.ownerId, r.difficulty, r.hardwareScore, r.units, r.tokens, r.payableAt],
      tx,
    );
  }

  /** The task's shares, written with its reward (they add up to its units). */
  async recordShares(taskId: string, shares: RewardShare[], tx: Tx): Promise<void> {
    await this.rows(
      `WITH s AS (INSERT INTO node_reward_shares (task_id, node_id, units, layers)
                  SELECT $1, u.node_id, u.units, u.layers FROM unnest($2::uuid[], $3::bigint[], $4::int[]) AS u(node_id, units, layers)
                  ON CONFLICT DO NOTHING RETURNING node_id, units)
       ${PENDING_MOVES('s')}`,
      [taskId, shares.map((s) => s.nodeId), shares.map((s) => s.units), shares.map((s) => s.layers)],
      tx,
    );
  }

  /**
   * The planned layers of each member of the pool `coordinatorId` coordinates for `modelId` (empty when it serves the
   * model alone). Read here because a pooled task's reward is shared by them.
   */
  poolLayers(coordinatorId: string, modelId: string, tx: Tx): Promise<Array<{ node_id: string; layers: number }>> {
    return this.rows(
      `SELECT m.node_id, m.layers FROM node_pools p JOIN node_pool_members m ON m.pool_id = p.id
       WHERE p.coordinator_id = $1 AND p.model_id = $2 ORDER BY m.node_id = p.coordinator_id DESC, m.position`,
      [coordinatorId, modelId],
      tx,
    );
  }

  async byTask(taskId: string, tx?: Tx): Promise<NodeReward | undefined> {
    const row = await this.one<NodeRewardRow>(`SELECT ${REWARD} FROM node_rewards WHERE task_id = $1`, [taskId], tx);
    return row && toReward(row);
  }

  /** Up to `limit` unpaid rewards payable at `asOf`, oldest first. */
  async due(asOf: Date, limit: number, tx?: Tx): Promise<string[]> {
    const rows = await this.rows<{ task_id: string }>(
      `SELECT task_id FROM node_rewards WHERE paid_at IS NULL AND withheld_at IS NULL AND payable_at <= $1 ORDER BY payable_at, created_at, task_id LIMIT $2`,
      [asOf, limit],
      tx,
    );
    return rows.map((r) => r.task_id);
  }

  /** The reward if it is still unpaid, locked until the transaction ends. */
  async lockUnpaid(taskId: string, tx: Tx): Promise<NodeReward | undefined> {
    const row = await this.one<NodeRewardRow>(
      `SELECT ${REWARD} FROM node_rewards WHERE task_id = $1 AND paid_at IS NULL AND withheld_at IS NULL FOR UPDATE`,
      [taskId],
      tx,
    );
    return row && toReward(row);
  }

  async markPaid(taskId: string, transactionId: string, bonusUnits: number, tx: Tx): Promise<void> {
    await this.rows(
      `WITH r AS (UPDATE node_rewards SET paid_at = now(), transaction_id = $2, bonus_units = $3 WHERE task_id = $1 RETURNING task_id)
       ${PAID_MOVES('(SELECT s.node_id, s.units FROM node_reward_shares s JOIN r ON r.task_id = s.task_id)')}`,
      [taskId, transactionId, bonusUnits],
      tx,
    );
  }

  /** The node's shares of rewards per UTC day of the last `days` (oldest first, zeros included): paid and pending. */
  async dailyByNode(nodeId: string, days: number, tx?: Tx): Promise<Array<{ date: string; earned: number; pending: number }>> {
    const rows = await this.rows<{ date: string; earned: string; pending: string }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
              coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NOT NULL), 0) AS earned,
              coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NULL AND e.withheld_at IS NULL), 0) AS pending
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN ${NODE_EARNINGS} e ON e.node_id = $1 AND (e.created_at AT TIME ZONE 'UTC')::date = d.day
       GROUP BY d.day ORDER BY d.day`,
      [nodeId, days],
      tx,
    );
    return rows.map((r) => ({ date: r.date, earned: Number(r.earned), pending: Number(r.pending) }));
  }

  /**
   * The node's units per model (its task's model; a verification reward counts under the model it checked) over the
   * last `days` UTC days, as dailyByNode counts them: paid and pending.
   */
  async byModelOfNode(nodeId: string, days: number, tx?: Tx): Promise<Map<string, { earned: number; pending: number }>> {
    const rows = await this.rows<{ model_id: string; earned: string; pending: string }>(
      `SELECT t.model_id,
              coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NOT NULL), 0) AS earned,
              coalesce(sum(e.units) FILTER (WHERE e.paid_at IS NULL AND e.withheld_at IS NULL), 0) AS pending
       FROM ${NODE_EARNINGS} e JOIN inference_tasks t ON t.id = e.task_id
       WHERE e.node_id = $1 AND (e.created_at AT TIME ZONE 'UTC')::date >= (now() AT TIME ZONE 'UTC')::date - ($2::int - 1)
       GROUP BY t.model_id`,
      [nodeId, days],
      tx,
    );
    return new Map(rows.map((r) => [r.model_id, { earned: Number(r.earned), pending: Number(r.pending) }]));
  }

  // ---- the emission's share of rewards ----

  /** The emission's state, locked until the transaction ends (one accrual at a time). */
  async lockEmission(tx: Tx): Promise<EmissionState> {
    return toEmission((await this.one<EmissionRow>(`SELECT started_at, accrued_at, opening_units FROM reward_emission FOR UPDATE`, [], tx))!);
  }

  emission(tx?: Tx): Promise<EmissionState> {
    return this.one<EmissionRow>(`SELECT started_at, accrued_at, opening_units FROM reward_emission`, [], tx).then((r) => toEmission(r!));
  }

  /** The emission has accrued up to `at`, minting `units`, which wait to be shared out. */
  async accrued(at: Date, units: number, tx: Tx): Promise<void> {
    await this.rows(`UPDATE reward_emission SET accrued_at = $1, undistributed_units = undistributed_units + $2`, [at, units], tx);
  }

  /** Emission minted and not yet shared out, locked until the transaction ends. */
  async lockUndistributed(tx: Tx): Promise<number> {
    const row = await this.one<{ units: string }>(`SELECT undistributed_units AS units FROM reward_emission FOR UPDATE`, [], tx);
    return Number(row?.units ?? 0);
  }

  async addUndistributed(units: number, tx: Tx): Promise<void> {
    await this.rows(`UPDATE reward_emission SET undistributed_units = undistributed_units + $1`, [units], tx);
  }

  /**
   * Rewards payable at `asOf` that have not had their share of the emission yet, locked, with the room the emission
   * may fill: up to their task's charge.
   */
  awaitingEmission(asOf: Date, limit: number, tx: Tx): Promise<Array<{ task_id: string; units: number; room: number }>> {
    return this.rows<{ task_id: string; units: string; room: string }>(
      `SELECT r.task_id, r.units, greatest(0, coalesce(t.charged_units, 0) - r.units) AS room
       FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id
       WHERE r.paid_at IS NULL AND r.withheld_at IS NULL AND r.emission_at IS NULL AND r.payable_at <= $1
       ORDER BY r.payable_at, r.task_id LIMIT $2 FOR UPDATE OF r`,
      [asOf, limit],
      tx,
    ).then((rows) => rows.map((r) => ({ task_id: r.task_id, units: Number(r.units), room: Number(r.room) })));
  }

  /** Adds the reward's share of the emission (possibly none: it has had its turn). */
  async addEmission(taskId: string, units: number, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE node_rewards SET units = units + $2, emission_units = emission_units + $2, emission_at = now() WHERE task_id = $1`,
      [taskId, units],
      tx,
    );
  }

  sharesOf(taskId: string, tx: Tx): Promise<Array<{ node_id: string; units: number; layers: number | null }>> {
    return this.rows<{ node_id: string; units: string; layers: number | null }>(
      `SELECT node_id, units, layers FROM node_reward_shares WHERE task_id = $1 ORDER BY node_id`,
      [taskId],
      tx,
    ).then((rows) => rows.map((r) => ({ node_id: r.node_id, units: Number(r.units), layers: r.layers })));
  }

  async setShare(taskId: string, nodeId: string, units: number, tx: Tx): Promise<void> {
    // Only a pending reward's shares change (the emission's part is added before it is paid).
    await this.rows(
      `WITH before AS (SELECT units FROM node_reward_shares WHERE task_id = $1 AND node_id = $2),
            s AS (UPDATE node_reward_shares SET units = $3 WHERE task_id = $1 AND node_id = $2
                  RETURNING node_id, units - (SELECT units FROM before) AS units)
       ${PENDING_MOVES('s')}`,
      [taskId, nodeId, units],
      tx,
    );
  }

  /**
   * Folds up to `limit` of the oldest moves into the nodes' totals, in one statement (a node's figures read the same
   * before and after); how many it folded. One process at a time: nothing else locks the totals' rows.
   */
  async foldMoves(limit: number, tx?: Tx): Promise<number> {
    const row = await this.one<{ n: number }>(
      `WITH moved AS (DELETE FROM node_reward_moves WHERE id IN (SELECT id FROM node_reward_moves ORDER BY id LIMIT $1)
                      RETURNING node_id, earned_units, pending_units),
            folded AS (INSERT INTO node_reward_totals (node_id, earned_units, pending_units)
                       SELECT node_id, sum(earned_units), sum(pending_units) FROM moved GROUP BY node_id ORDER BY node_id
                       ON CONFLICT (node_id) DO UPDATE SET earned_units = node_reward_totals.earned_units + EXCLUDED.earned_units,
                                                           pending_units = node_reward_totals.pending_units + EXCLUDED.pending_units)
       SELECT count(*)::int AS n FROM moved`,
      [limit],
      tx,
    );
    return row?.n ?? 0;
  }

  // ---- reconciliation ----

  /** Nodes whose kept figures (total and moves) differ from what their rewards add up to. */
  staleNodeTotals(tx?: Tx): Promise<Array<{ node_id: string; kept_earned: string; kept_pending: string; earned: string; pending: string }>> {
    return this.rows(
      `SELECT coalesce(k.node_id, e.node_id) AS node_id, coalesce(k.earned, 0) AS kept_earned, coalesce(k.pending, 0) AS kept_pending,
              coalesce(e.earned, 0) AS earned, coalesce(e.pending, 0) AS pending
       FROM (SELECT node_id, sum(earned_units) AS earned, sum(pending_units) AS pending
             FROM (SELECT node_id, earned_units, pending_units FROM node_reward_totals
                   UNION ALL SELECT node_id, earned_units, pending_units FROM node_reward_moves) m
             GROUP BY node_id) k
       FULL JOIN (SELECT node_id, sum(units) FILTER (WHERE paid_at IS NOT NULL) AS earned,
                         sum(units) FILTER (WHERE paid_at IS NULL AND withheld_at IS NULL) AS pending
                  FROM ${NODE_EARNINGS} x GROUP BY node_id) e ON e.node_id = k.node_id
       WHERE coalesce(k.earned, 0) <> coalesce(e.earned, 0) OR coalesce(k.pending, 0) <> coalesce(e.pending, 0)`,
      [],
      tx,
    );
  }

  /** Rewards whose per-node shares (a pooled task's members, or the one node) do not add up to the reward. */
  unbalancedRewardShares(tx?: Tx): Promise<Array<{ task_id: string; units: string; shared: string }>> {
    return this.rows(
      `SELECT r.task_id, r.units, coalesce(sum(s.units), 0) AS shared
       FROM node_rewards r LEFT JOIN node_reward_shares s ON s.task_id = r.task_id
       GROUP BY r.task_id, r.units HAVING coalesce(sum(s.units), 0) <> r.units`,
      [],
      tx,
    );
  }

  /**
   * Earnings that are not exactly one recorded node reward paid from the rewards account to the node owner's wallet,
   * for a completed task that charged its requester, who is not that owner.
   */
  unearnedEarnings(tx?: Tx): Promise<Array<{ transaction_id: string; reason: string }>> {
    return this.rows(
      `SELECT t.id AS transaction_id,
              CASE WHEN r.task_id IS NULL THEN 'no recorded reward'
                   WHEN it.status <> 'completed' THEN 'task not completed'
                   WHEN it.user_id IS NOT DISTINCT FROM r.owner_id THEN 'task requested by the node''s owner'
                   WHEN coalesce(it.charged_units, 0) <= 0 THEN 'task charged nothing'
                   WHEN it.reward_transaction_id IS DISTINCT FROM t.id THEN 'task not marked paid by it'
                   ELSE 'entries are not the reward moving from platform:rewards to the owner''s wallet' END AS reason
       FROM ledger_transactions t
       LEFT JOIN node_rewards r ON r.transaction_id = t.id
       LEFT JOIN inference_tasks it ON it.id = r.task_id
       WHERE t.type = 'earning' AND NOT EXISTS (SELECT 1 FROM verification_rewards v WHERE v.transaction_id = t.id) AND (
         r.task_id IS NULL OR it.status <> 'completed' OR it.user_id IS NOT DISTINCT FROM r.owner_id
         OR coalesce(it.charged_units, 0) <= 0 OR it.reward_transaction_id IS DISTINCT FROM t.id
         OR (SELECT count(*) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
             WHERE e.transaction_id = t.id AND NOT ((coalesce(a.code, '') = 'platform:rewards' AND e.amount = -r.units)
                                                  OR (a.user_id IS NOT DISTINCT FROM r.owner_id AND e.amount = r.units))) > 0
         OR (SELECT count(*) FROM ledger_entries e WHERE e.transaction_id = t.id) <> 2)`,
      [],
      tx,
    );
  }
  /** Rewards above their task's charge (the emission included). */
  rewardsAboveCharge(tx?: Tx): Promise<Array<{ task_id: string; units: string; charged: string }>> {
    return this.rows(
      `SELECT r.task_id, r.units, coalesce(t.charged_units, 0) AS charged FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id
       WHERE r.units > coalesce(t.charged_units, 0)`,
      [],
      tx,
    );
  }

  /** Paid rewards whose transferable part is more than the part of their task's charge that was not welcome bonus. */
  bonusMadeTransferable(tx?: Tx): Promise<Array<{ task_id: string; transferable: string; paid: string }>> {
    return this.rows(
      `SELECT r.task_id, e.amount - e.bonus AS transferable, coalesce(ch.amount - ch.bonus, 0) AS paid
       FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id
       JOIN ledger_entries e ON e.transaction_id = r.transaction_id AND e.amount > 0
       LEFT JOIN LATERAL (SELECT -ce.amount AS amount, -ce.bonus AS bonus FROM ledger_transactions h
                          JOIN ledger_entries ce ON ce.transaction_id = h.id AND ce.account_id = h.hold_account_id
                          WHERE h.id = t.hold_id AND h.status = 'completed') ch ON true
       WHERE e.amount - e.bonus > coalesce(ch.amount - ch.bonus, 0)`,
      [],
      tx,
    );
  }

  // ---- verification rewards ----

  /** What a verifier's reward needs: the checked reply's charge and counted tokens, and the verifier's owner and score. */
  verificationBasis(
    taskId: string,
    nodeId: string,
    tx: Tx,
  ): Promise<
    | {
        user_id: string | null;
        status: string;
        charged_units: string | null;
        difficulty: string | null;
        tokens: number;
        owner_id: string | null;
        hardware_score: string | null;
        recorded: string;
      }
    | undefined
  > {
    return this.one(
      `SELECT t.user_id, t.status, t.charged_units, t.difficulty, (t.prompt_tokens + t.completion_tokens)::int AS tokens,
              n.owner_id, n.hardware_score,
              (SELECT coalesce(sum(v.units), 0) FROM verification_rewards v WHERE v.task_id = t.id) AS recorded
       FROM inference_tasks t, nodes n WHERE t.id = $1 AND n.id = $2 FOR UPDATE OF t`,
      [taskId, nodeId],
      tx,
    );
  }

  async recordVerification(
    r: { replayId: string; taskId: string; nodeId: string; ownerId: string; units: number; payableAt: Date },
    tx: Tx,
  ): Promise<void> {
    await this.rows(
      `WITH v AS (INSERT INTO verification_rewards (replay_id, task_id, node_id, owner_id, units, payable_at) VALUES ($1, $2, $3, $4, $5, $6)
                  ON CONFLICT (replay_id) DO NOTHING RETURNING node_id, units)
       ${PENDING_MOVES('v')}`,
      [r.replayId, r.taskId, r.nodeId, r.ownerId, r.units, r.payableAt],
      tx,
    );
  }

  /** Verification rewards payable at `asOf`, oldest first. */
  async dueVerifications(asOf: Date, limit: number, tx?: Tx): Promise<string[]> {
    const rows = await this.rows<{ replay_id: string }>(
      `SELECT replay_id FROM verification_rewards WHERE paid_at IS NULL AND withheld_at IS NULL AND payable_at <= $1
       ORDER BY payable_at, created_at LIMIT $2`,
      [asOf, limit],
      tx,
    );
    return rows.map((r) => r.replay_id);
  }

  async lockUnpaidVerification(replayId: string, tx: Tx): Promise<VerificationReward | undefined> {
    const row = await this.one<{ replay_id: string; task_id: string; owner_id: string; units: string; hold_id: string | null }>(
      `SELECT v.replay_id, v.task_id, v.owner_id, v.units, t.hold_id FROM verification_rewards v JOIN inference_tasks t ON t.id = v.task_id
       WHERE v.replay_id = $1 AND v.paid_at IS NULL AND v.withheld_at IS NULL FOR UPDATE OF v`,
      [replayId],
      tx,
    );
    return row && { replayId: row.replay_id, taskId: row.task_id, ownerId: row.owner_id, units: Number(row.units), holdId: row.hold_id };
  }

  async markVerificationPaid(replayId: string, transactionId: string, bonusUnits: number, tx: Tx): Promise<void> {
    await this.rows(
      `WITH v AS (UPDATE verification_rewards SET paid_at = now(), transaction_id = $2, bonus_units = $3 WHERE replay_id = $1
                  RETURNING node_id, units)
       ${PAID_MOVES('v')}`,
      [replayId, transactionId, bonusUnits],
      tx,
    );
  }

  /**
   * Paid verification rewards that are not what they must be: the reward moving from platform:spending to its owner's
   * wallet, for a completed reply someone else requested, its verifier's answer part of the check's decision.
   */
  unearnedVerifications(tx?: Tx): Promise<Array<{ replay_id: string; reason: string }>> {
    return this.rows(
      `SELECT v.replay_id,
              CASE WHEN it.status <> 'completed' THEN 'reply not completed'
                   WHEN it.user_id IS NOT DISTINCT FROM v.owner_id THEN 'reply requested by the verifier''s owner'
                   WHEN v.withheld_at IS NOT NULL THEN 'withheld, yet paid'
                   WHEN p.status <> 'done' OR p.node_id IS DISTINCT FROM v.node_id THEN 'not an answered check of this node'
                   ELSE 'entries are not the reward moving from platform:spending to the owner''s wallet' END AS reason
       FROM verification_rewards v JOIN inference_tasks it ON it.id = v.task_id JOIN peer_replays p ON p.id = v.replay_id
       WHERE v.paid_at IS NOT NULL AND (
         it.status <> 'completed' OR it.user_id IS NOT DISTINCT FROM v.owner_id OR v.withheld_at IS NOT NULL
         OR p.status <> 'done' OR p.node_id IS DISTINCT FROM v.node_id
         OR (SELECT count(*) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
             WHERE e.transaction_id = v.transaction_id AND NOT ((coalesce(a.code, '') = 'platform:spending' AND e.amount = -v.units)
                                                             OR (a.user_id IS NOT DISTINCT FROM v.owner_id AND e.amount = v.units))) > 0
         OR (SELECT count(*) FROM ledger_entries e WHERE e.transaction_id = v.transaction_id) <> 2)`,
      [],
      tx,
    );
  }

  /** Replies whose verification rewards add up to more than the platform's share of their charge (`sharePercent` funds rewards). */
  verificationsAboveShare(sharePercent: number, tx?: Tx): Promise<Array<{ task_id: string; units: string; share: string }>> {
    return this.rows(
      `SELECT v.task_id, sum(v.units) AS units, coalesce(t.charged_units, 0) - floor(coalesce(t.charged_units, 0) * $1 / 100) AS share
       FROM verification_rewards v JOIN inference_tasks t ON t.id = v.task_id
       GROUP BY v.task_id, t.charged_units
       HAVING sum(v.units) > coalesce(t.charged_units, 0) - floor(coalesce(t.charged_units, 0) * $1 / 100)`,
      [sharePercent],
      tx,
    );
  }

  /** The emission shared out to rewards and still waiting, beside what the emission has minted since rewards were funded. */
  async emissionUse(tx?: Tx): Promise<{ shared: number; undistributed: number; accrued: number }> {
    const row = await this.one<{ shared: string; undistributed: string; accrued: string }>(
      `SELECT (SELECT coalesce(sum(emission_units), 0) FROM node_rewards) AS shared, e.undistributed_units AS undistributed,
              (SELECT -balance FROM ledger_accounts WHERE code = 'platform:emission') - e.opening_units AS accrued
       FROM reward_emission e`,
      [],
      tx,
    );
    return { shared: Number(row?.shared ?? 0), undistributed: Number(row?.undistributed ?? 0), accrued: Number(row?.accrued ?? 0) };
  }

  /** Rewards for another number of tokens than the platform counted for their task (rewards recorded with their tokens). */
  uncountedWork(tx?: Tx): Promise<Array<{ task_id: string; tokens: number; counted: number }>> {
    return this.rows(
      `SELECT r.task_id, r.tokens, (t.prompt_tokens + t.completion_tokens)::int AS counted
       FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id
       WHERE r.tokens > 0 AND r.tokens <> t.prompt_tokens + t.completion_tokens`,
      [],
      tx,
    );
  }

  /** Paid rewards of tasks that failed a spot check. */
  paidDespiteFailedCheck(tx?: Tx): Promise<Array<{ task_id: string }>> {
    return this.rows(
      `SELECT r.task_id FROM node_rewards r JOIN spot_checks c ON c.task_id = r.task_id AND c.status = 'failed' WHERE r.paid_at IS NOT NULL`,
      [],
      tx,
    );
  }
}
