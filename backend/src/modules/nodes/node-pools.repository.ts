import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import { liveNode } from '../../database/live-node';
import type { PoolFile } from './pool-plan';

export interface PoolRow {
  id: string;
  owner_id: string;
  name: string;
  model_id: string;
  coordinator_id: string | null;
  tunnel_key: string;
  served_at: Date | null;
  created_at: Date;
}

/** A member with what planning and the pool's status need of its node. */
export interface PoolMemberRow {
  pool_id: string;
  node_id: string;
  position: number;
  layers: number;
  name: string;
  ram_bytes: string;
  memory_percent: number;
  vram_bytes: string | null;
  gpu: string | null;
  gpu_percent: number;
  files: PoolFile[];
  pool_endpoint: string | null;
  pool_ready: string | null;
  /** The models it offers now. */
  models: string[];
  paused: boolean;
  battery_paused: boolean;
  live: boolean;
}

const POOL = 'p.id, p.owner_id, p.name, p.model_id, p.coordinator_id, p.tunnel_key, p.served_at, p.created_at';
const MEMBER = (live: string) => `m.pool_id, m.node_id, m.position, m.layers, n.name, n.ram_bytes, n.memory_percent, n.vram_bytes, n.gpu,
  n.gpu_percent, n.files, n.pool_endpoint, n.pool_ready, n.models, n.paused, n.battery_paused, ${liveNode('n', live)} AS live`;

/** The node_pools and node_pool_members tables, and the pool facts nodes report (files, tunnel endpoint, readiness). */
@Injectable()
export class NodePoolsRepository extends ConfiguredRepository {
  async create(p: { ownerId: string; name: string; modelId: string; tunnelKey: string; nodeIds: string[] }, tx: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO node_pools (owner_id, name, model_id, tunnel_key) VALUES ($1, $2, $3, $4) RETURNING id`,
      [p.ownerId, p.name, p.modelId, p.tunnelKey],
      tx,
    );
    await this.rows(
      `INSERT INTO node_pool_members (pool_id, node_id, position) SELECT $1, id, ord FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, ord)`,
      [row!.id, p.nodeIds],
      tx,
    );
    return row!.id;
  }

  /** Which of `nodeIds` are the owner's paired, unrevoked nodes, locked so a concurrent pool cannot take them. */
  async lockOwnedNodes(ownerId: string, nodeIds: string[], tx: Tx): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(
      `SELECT id FROM nodes WHERE id = ANY($1::uuid[]) AND owner_id = $2 AND credential_hash IS NOT NULL AND revoked_at IS NULL FOR UPDATE`,
      [nodeIds, ownerId],
      tx,
    );
    return rows.map((r) => r.id);
  }

  /** Of `nodeIds`, those already in a pool. */
  async pooled(nodeIds: string[], tx: Tx): Promise<string[]> {
    const rows = await this.rows<{ node_id: string }>(`SELECT node_id FROM node_pool_members WHERE node_id = ANY($1::uuid[])`, [nodeIds], tx);
    return rows.map((r) => r.node_id);
  }

  listOwned(ownerId: string, tx?: Tx): Promise<PoolRow[]> {
    return this.rows<PoolRow>(`SELECT ${POOL} FROM node_pools p WHERE p.owner_id = $1 ORDER BY p.created_at DESC, p.id`, [ownerId], tx);
  }

  byId(id: string, tx?: Tx): Promise<PoolRow | undefined> {
    return this.one<PoolRow>(`SELECT ${POOL} FROM node_pools p WHERE p.id = $1`, [id], tx);
  }

  /** The pool a node is a member of. */
  ofNode(nodeId: string, tx?: Tx): Promise<PoolRow | undefined> {
    return this.one<PoolRow>(`SELECT ${POOL} FROM node_pools p JOIN node_pool_members m ON m.pool_id = p.id WHERE m.node_id = $1`, [nodeId], tx);
  }

  /** Members of the pools given, in position order. */
  members(poolIds: string[], tx?: Tx): Promise<PoolMemberRow[]> {
    return this.rows<PoolMemberRow>(
      `SELECT ${MEMBER('$2')} FROM node_pool_members m JOIN nodes n ON n.id = m.node_id
       WHERE m.pool_id = ANY($1::uuid[]) ORDER BY m.pool_id, m.position`,
      [poolIds, this.config.inference.nodeLiveSeconds],
      tx,
    );
  }

  /** Keeps the plan: the coordinator and each member's layers (rewards are shared by them). */
  async savePlan(poolId: string, coordinatorId: string | null, layers: Map<string, number>, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE node_pools SET coordinator_id = $2 WHERE id = $1 AND coordinator_id IS DISTINCT FROM $2`, [poolId, coordinatorId], tx);
    await this.rows(
      `UPDATE node_pool_members m SET layers = u.layers FROM unnest($2::uuid[], $3::int[]) AS u(node_id, layers)
       WHERE m.pool_id = $1 AND m.node_id = u.node_id AND m.layers <> u.layers`,
      [poolId, [...layers.keys()], [...layers.values()]],
      tx,
    );
  }

  async markServed(poolId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE node_pools SET served_at = now() WHERE id = $1 AND served_at IS NULL`, [poolId], tx);
  }

  /** Dissolves the owner's pool; false when it is not theirs. */
  async remove(id: string, ownerId: string, tx?: Tx): Promise<boolean> {
    return (await this.count(`DELETE FROM node_pools WHERE id = $1 AND owner_id = $2 RETURNING id`, [id, ownerId], tx)) > 0;
  }

  /**
   * A revoked node leaves its pool, and the pool gets a new tunnel key (the revoked machine knew the old one); when it
   * was the coordinator, planning chooses again. Answers the pool it left, if any.
   */
  async removeMember(nodeId: string, tunnelKey: string, tx?: Tx): Promise<string | undefined> {
    const row = await this.one<{ pool_id: string }>(
      `WITH gone AS (DELETE FROM node_pool_members WHERE node_id = $1 RETURNING pool_id)
       UPDATE node_pools p SET tunnel_key = $2, coordinator_id = CASE WHEN p.coordinator_id = $1 THEN NULL ELSE p.coordinator_id END
       FROM gone WHERE p.id = gone.pool_id RETURNING p.id AS pool_id`,
      [nodeId, tunnelKey],
      tx,
    );
    return row?.pool_id;
  }

  /** What a node reported of its pool part: its model files, where its tunnel listens, and the pool it runs a part for. */
  async report(nodeId: string, r: { files: PoolFile[]; endpoint: string | null; ready: string | null }, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE nodes SET files = $2::jsonb, pool_endpoint = $3, pool_ready = $4 WHERE id = $1`,
      [nodeId, JSON.stringify(r.files), r.endpoint, r.ready],
      tx,
    );
  }
}
