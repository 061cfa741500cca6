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
}

interface NodeRewardRow {
  task_id: string;
  owner_id: string;
  difficulty: string;
  hardware_score: string;
  units: string;
  payable_at: Date;
  transaction_id: string | null;
}

const REWARD = 'task_id, owner_id, difficulty, hardware_score, units, payable_at, transaction_id';
const toReward = (r: NodeRewardRow): NodeReward => ({
  taskId: r.task_id,
  ownerId: r.owner_id,
  difficulty: Number(r.difficulty),
  hardwareScore: Number(r.hardware_score),
  units: Number(r.units),
  payableAt: r.payable_at,
  transactionId: r.transaction_id,
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
  async totalsByNode(nodeIds: string[], tx?: Tx): Promise<Map<string, NodeRewardTotals>> {
    const rows = await this.rows<{ node_id: string; earned: string; pending: string }>(
      `SELECT s.node_id,
              coalesce(sum(s.units) FILTER (WHERE r.paid_at IS NOT NULL), 0) AS earned,
              coalesce(sum(s.units) FILTER (WHERE r.paid_at IS NULL AND r.withheld_at IS NULL), 0) AS pending
       FROM node_reward_shares s JOIN node_rewards r ON r.task_id = s.task_id WHERE s.node_id = ANY($1::uuid[]) GROUP BY s.node_id`,
      [nodeIds],
      tx,
    );
    return new Map(rows.map((r) => [r.node_id, { earnedUnits: Number(r.earned), pendingUnits: Number(r.pending) }]));
  }

  /** Records the task's reward unless it is recorded already (its first record stands). */
  async record(r: NewNodeReward, tx: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO node_rewards (task_id, node_id, owner_id, difficulty, hardware_score, units, payable_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (task_id) DO NOTHING`,
      [r.taskId, r.nodeId, r.ownerId, r.difficulty, r.hardwareScore, r.units, r.payableAt],
      tx,
    );
  }

  /** The task's shares, written with its reward (they add up to its units). */
  async recordShares(taskId: string, shares: RewardShare[], tx: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO node_reward_shares (task_id, node_id, units, layers)
       SELECT $1, u.node_id, u.units, u.layers FROM unnest($2::uuid[], $3::bigint[], $4::int[]) AS u(node_id, units, layers)
       ON CONFLICT DO NOTHING`,
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

  async markPaid(taskId: string, transactionId: string, tx: Tx): Promise<void> {
    await this.rows(`UPDATE node_rewards SET paid_at = now(), transaction_id = $2 WHERE task_id = $1`, [taskId, transactionId], tx);
  }
}
