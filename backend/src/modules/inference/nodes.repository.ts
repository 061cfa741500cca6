import { Injectable } from '@nestjs/common';
import { liveNode } from '../../database/live-node';
import { ConfiguredRepository, type Tx } from '../../database/repository';

export interface NodeInfo {
  /** The account the node's rewards go to, by its e-mail; none yet when no live account has it. */
  ownerEmail: string | null;
  name: string;
  host: string;
  cpuCores: number;
  ramBytes: number;
  gpu: string | null;
  vramBytes: number | null;
  threads: number;
  hardwareScore: number;
  models: string[];
}

/** The owner of a live account with this e-mail, or NULL. */
const OWNER_BY_EMAIL = (param: string) => `(SELECT id FROM users WHERE lower(email) = lower(${param}) AND deleted_at IS NULL)`;

/** The nodes table: every worker that serves models, its heartbeat and the models it has loaded. */
@Injectable()
export class NodesRepository extends ConfiguredRepository {
  async register(info: NodeInfo, tx?: Tx): Promise<{ id: string; ownerId: string | null }> {
    const row = await this.one<{ id: string; owner_id: string | null }>(
      `INSERT INTO nodes (owner_id, name, host, cpu_cores, ram_bytes, gpu, vram_bytes, threads, hardware_score, models)
       VALUES (${OWNER_BY_EMAIL('$1')}, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id, owner_id`,
      [info.ownerEmail, info.name, info.host, info.cpuCores, info.ramBytes, info.gpu, info.vramBytes, info.threads, info.hardwareScore, info.models],
      tx,
    );
    return { id: row!.id, ownerId: row!.owner_id };
  }

  /** Also adopts the owner once an account with WORKER_OWNER_EMAIL exists (e.g. signed up after the worker started). */
  async heartbeat(nodeId: string, models: string[], ownerEmail?: string, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE nodes SET last_seen_at = now(), models = $2, owner_id = coalesce(owner_id, ${OWNER_BY_EMAIL('$3')}) WHERE id = $1`,
      [nodeId, models, ownerEmail ?? null],
      tx,
    );
  }

  async stopped(nodeId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE nodes SET stopped_at = now(), models = '{}' WHERE id = $1`, [nodeId], tx);
  }

  /** model id → number of live nodes that have it loaded and take jobs (not paused by their owner or battery). */
  async liveModels(tx?: Tx): Promise<Map<string, number>> {
    const rows = await this.rows<{ model: string; nodes: number }>(
      `SELECT m AS model, count(*)::int AS nodes FROM nodes n, unnest(n.models) AS m
       WHERE ${liveNode('n', '$1')} AND NOT n.paused AND NOT n.battery_paused GROUP BY m`,
      [this.config.inference.nodeLiveSeconds],
      tx,
    );
    return new Map(rows.map((r) => [r.model, r.nodes]));
  }
}
