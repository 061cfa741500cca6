import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** A node's rewards in units: paid, and recorded but not yet paid. */
export interface NodeRewardTotals {
  earnedUnits: number;
  pendingUnits: number;
}

/** The node_rewards table: one row per rewarded task, pending until paid. */
@Injectable()
export class RewardsRepository extends Repository {
  async totalsByNode(nodeIds: string[], tx?: Tx): Promise<Map<string, NodeRewardTotals>> {
    const rows = await this.rows<{ node_id: string; earned: string; pending: string }>(
      `SELECT node_id,
              coalesce(sum(units) FILTER (WHERE paid_at IS NOT NULL), 0) AS earned,
              coalesce(sum(units) FILTER (WHERE paid_at IS NULL), 0) AS pending
       FROM node_rewards WHERE node_id = ANY($1::uuid[]) GROUP BY node_id`,
      [nodeIds],
      tx,
    );
    return new Map(rows.map((r) => [r.node_id, { earnedUnits: Number(r.earned), pendingUnits: Number(r.pending) }]));
  }
}
