import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';

/**
 * SQL for "node n is live": not stopped, and its heartbeat younger than the live window (bound as `$param`,
 * from `config.inference.nodeLiveSeconds`). Every query that counts live nodes uses it.
 */
export const liveNode = (n: string, param: string) => `(${n}.stopped_at IS NULL AND ${n}.last_seen_at > now() - make_interval(secs => ${param}))`;

export interface NodeInfo {
  ownerId: string | null;
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

@Injectable()
export class NodesRepository {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async register(info: NodeInfo): Promise<string> {
    const [row] = (await this.db.query(
      `INSERT INTO nodes (owner_id, name, host, cpu_cores, ram_bytes, gpu, vram_bytes, threads, hardware_score, models)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [info.ownerId, info.name, info.host, info.cpuCores, info.ramBytes, info.gpu, info.vramBytes, info.threads, info.hardwareScore, info.models],
    )) as Array<{ id: string }>;
    return row!.id;
  }

  /** Also adopts the owner once an account with WORKER_OWNER_EMAIL exists (e.g. signed up after the worker started). */
  async heartbeat(nodeId: string, models: string[], ownerEmail?: string): Promise<void> {
    await this.db.query(
      `UPDATE nodes SET last_seen_at = now(), models = $2,
              owner_id = coalesce(owner_id, (SELECT id FROM users WHERE lower(email) = lower($3) AND deleted_at IS NULL))
       WHERE id = $1`,
      [nodeId, models, ownerEmail ?? null],
    );
  }

  async stopped(nodeId: string): Promise<void> {
    await this.db.query(`UPDATE nodes SET stopped_at = now(), models = '{}' WHERE id = $1`, [nodeId]);
  }

  /** model id → number of live workers that have it loaded. */
  async liveModels(): Promise<Map<string, number>> {
    const rows = (await this.db.query(
      `SELECT m AS model, count(*)::int AS nodes FROM nodes n, unnest(n.models) AS m WHERE ${liveNode('n', '$1')} GROUP BY m`,
      [this.config.inference.nodeLiveSeconds],
    )) as Array<{ model: string; nodes: number }>;
    return new Map(rows.map((r) => [r.model, r.nodes]));
  }
}
