import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import { liveNode } from '../../database/live-node';

export interface StatsRow {
  active_users: string;
  total_tasks: string;
  bytes_processed: string;
  active_nodes: string;
  connected_peers: string;
  active_tasks: string;
  pending_tasks: string;
  failed_tasks: string;
}

/** Who serves a model on a node: the in-cluster worker (no node credential), a pool (its coordinator, for the pool's model), or a provider's node. */
const NODE_KIND = (n: string, model: string) => `CASE WHEN ${n}.credential_hash IS NULL THEN 'worker'
  WHEN EXISTS (SELECT 1 FROM node_pools p WHERE p.coordinator_id = ${n}.id AND p.model_id = ${model}) THEN 'pool' ELSE 'remote' END`;

export interface LedgerTotalsRow {
  type: string;
  status: string;
  transactions: string;
  units: string;
}

/** Read-only counts over users, nodes, inference_tasks, the ledger and rewards: the public figures, health and metrics. */
@Injectable()
export class StatsRepository extends ConfiguredRepository {
  async counts(tx?: Tx): Promise<StatsRow> {
    const row = await this.one<StatsRow>(
      `SELECT
         (SELECT count(*) FROM users WHERE deleted_at IS NULL) AS active_users,
         (SELECT count(*) FROM inference_tasks WHERE status = 'completed') AS total_tasks,
         (SELECT coalesce(sum(bytes_processed), 0) FROM inference_tasks WHERE status = 'completed') AS bytes_processed,
         (SELECT count(*) FROM nodes n WHERE ${liveNode('n', '$1')}) AS active_nodes,
         (SELECT count(DISTINCT owner_id) FROM nodes n WHERE ${liveNode('n', '$1')}) AS connected_peers,
         (SELECT count(*) FROM inference_tasks WHERE status = 'running') AS active_tasks,
         (SELECT count(*) FROM inference_tasks WHERE status = 'queued') AS pending_tasks,
         (SELECT count(*) FROM inference_tasks WHERE status = 'failed') AS failed_tasks`,
      [this.config.inference.nodeLiveSeconds],
      tx,
    );
    return row!;
  }

  /** Live nodes taking jobs per model and kind. */
  nodesOnline(tx?: Tx): Promise<Array<{ model: string; kind: string; nodes: number }>> {
    return this.rows(
      `SELECT m AS model, ${NODE_KIND('n', 'm')} AS kind, count(*)::int AS nodes FROM nodes n, unnest(n.models) AS m
       WHERE ${liveNode('n', '$1')} AND NOT n.paused AND NOT n.battery_paused GROUP BY 1, 2`,
      [this.config.inference.nodeLiveSeconds],
      tx,
    );
  }

  /** Tasks each node ended in the last hour, by model, kind and status. */
  nodeTasksLastHour(tx?: Tx): Promise<Array<{ node: string; model: string; kind: string; status: string; tasks: number }>> {
    return this.rows(
      `SELECT t.node_id AS node, t.model_id AS model, ${NODE_KIND('n', 't.model_id')} AS kind, t.status, count(*)::int AS tasks
       FROM inference_tasks t JOIN nodes n ON n.id = t.node_id
       WHERE t.status IN ('completed', 'failed') AND t.completed_at > now() - interval '1 hour' GROUP BY 1, 2, 3, 4`,
      [],
      tx,
    );
  }

  /** Every ledger transaction counted by type and status, with the amounts (bigint as text). */
  ledgerTotals(tx?: Tx): Promise<LedgerTotalsRow[]> {
    return this.rows(
      `SELECT type, status, count(*) AS transactions, coalesce(sum(amount), 0) AS units FROM ledger_transactions GROUP BY 1, 2`,
      [],
      tx,
    );
  }

  /** Rewards not paid yet, and paid, in milli-GLOB (bigint as text). */
  async rewardTotals(tx?: Tx): Promise<{ pending: string; paid: string }> {
    return (await this.one<{ pending: string; paid: string }>(
      `SELECT coalesce(sum(units) FILTER (WHERE paid_at IS NULL), 0) AS pending, coalesce(sum(units) FILTER (WHERE paid_at IS NOT NULL), 0) AS paid
       FROM node_rewards`,
      [],
      tx,
    ))!;
  }

  async ping(tx?: Tx): Promise<void> {
    await this.rows('SELECT 1', [], tx);
  }
}
