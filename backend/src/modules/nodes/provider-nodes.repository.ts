import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import { liveNode } from '../../database/live-node';

export interface NewProviderNode {
  ownerId: string;
  credentialHash: string;
  name: string;
  hostname: string;
  os: string;
  arch: string;
  cpuCores: number;
  memoryBytes: number;
  gpu: string | null;
  vramBytes: number | null;
  claimedTps: number;
  hardwareScore: number;
}

export interface Allocation {
  cpu_percent: number;
  memory_percent: number;
  gpu_percent: number;
  disk_gb: number;
}

/** A paired node's own columns: what the node's calls (claims, heartbeats) decide by. */
export interface NodeState extends Allocation {
  id: string;
  owner_id: string;
  name: string;
  host: string;
  os: string | null;
  arch: string | null;
  cpu_cores: number;
  ram_bytes: string;
  gpu: string | null;
  vram_bytes: string | null;
  hardware_score: string;
  claimed_tps: number | null;
  measured_tps: number | null;
  /** Completion tokens, as the platform counted them, of the jobs its measured speed rests on. */
  measured_tokens: string;
  /** How many jobs it runs at once; it never holds more. */
  slots: number;
  /** Why the platform paused it; null unless the platform did. */
  paused_reason: string | null;
  /** When the platform suspended it (a reply failed verification); null when it is not suspended. */
  suspended_at: Date | null;
  /** The version its agent last reported. */
  agent_version: string | null;
  /** The backend its engine computes on, and the GPU's memory, as last reported. */
  compute_backend: 'cpu' | 'cuda' | 'vulkan' | 'metal' | null;
  compute_vram_bytes: string | null;
  models: string[];
  paused: boolean;
  battery_paused: boolean;
  created_at: Date;
  last_seen_at: Date;
  live: boolean;
  revoked: boolean;
}

/** A paired node as its owner sees it: its state and what its history adds up to. */
export interface ProviderNodeRow extends NodeState {
  /** Share of the last 30 days (since pairing, if later) it was present. */
  uptime: number;
  tasks_served: number;
}

/** What the credential guard learns about the caller. */
export interface NodeIdentity {
  id: string;
  owner_id: string;
}

export interface NodeChanges {
  name?: string;
  paused?: boolean;
  allocation?: Allocation;
}

const STATE = (live: string) => `n.id, n.owner_id, n.name, n.host, n.os, n.arch, n.cpu_cores, n.ram_bytes, n.gpu, n.vram_bytes, n.hardware_score,
  n.claimed_tps, n.measured_tps, n.measured_tokens, n.slots, n.paused_reason, n.suspended_at, n.agent_version, n.compute_backend, n.compute_vram_bytes, n.models, n.paused, n.battery_paused, n.cpu_percent, n.memory_percent, n.gpu_percent, n.disk_gb, n.created_at,
  n.last_seen_at, ${liveNode('n', live)} AS live, n.revoked_at IS NOT NULL AS revoked`;

/** The state and the history: its presence over 30 days and every task it served, which grow with the node's age. */
const ROW = (live: string) => `${STATE(live)},
  least(1, (coalesce((SELECT sum(p.seconds) FROM node_presence p WHERE p.node_id = n.id AND p.day > current_date - 30), 0)
      + CASE WHEN ${liveNode('n', live)} THEN extract(epoch FROM now() - n.last_seen_at) ELSE 0 END)
    / greatest(1, extract(epoch FROM now() - greatest(n.created_at, now() - interval '30 days'))))::float8 AS uptime,
  (SELECT count(*)::int FROM inference_tasks t WHERE t.node_id = n.id AND t.status = 'completed') AS tasks_served`;

/** Paired nodes in the nodes table: their credentials, owner settings, reports, presence and measured speed. */
@Injectable()
export class ProviderNodesRepository extends ConfiguredRepository {
  async create(n: NewProviderNode, tx: Tx): Promise<ProviderNodeRow> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO nodes (owner_id, credential_hash, name, host, os, arch, cpu_cores, ram_bytes, gpu, vram_bytes, claimed_tps, hardware_score, models)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, '{}') RETURNING id`,
      [n.ownerId, n.credentialHash, n.name, n.hostname, n.os, n.arch, n.cpuCores, n.memoryBytes, n.gpu, n.vramBytes, n.claimedTps, n.hardwareScore],
      tx,
    );
    return (await this.byId(row!.id, tx))!;
  }

  /** The node a credential belongs to, unless revoked. */
  byCredential(credentialHash: string, tx?: Tx): Promise<NodeIdentity | undefined> {
    return this.one<NodeIdentity>(`SELECT id, owner_id FROM nodes WHERE credential_hash = $1 AND revoked_at IS NULL`, [credentialHash], tx);
  }

  /** Whether the node is still paired (not revoked): what its credential was checked against when a long request began. */
  async isActive(id: string, tx?: Tx): Promise<boolean> {
    return (await this.one<{ id: string }>(`SELECT id FROM nodes WHERE id = $1 AND revoked_at IS NULL`, [id], tx)) !== undefined;
  }

  /**
   * The node's state alone, in time that does not grow with its history: what each of its calls reads (a claim, a
   * heartbeat), many times a minute.
   */
  state(id: string, tx?: Tx): Promise<NodeState | undefined> {
    return this.one<NodeState>(`SELECT ${STATE('$2')} FROM nodes n WHERE n.id = $1`, [id, this.config.inference.nodeLiveSeconds], tx);
  }

  /** The node as its owner sees it: its state and its history's figures. */
  byId(id: string, tx?: Tx): Promise<ProviderNodeRow | undefined> {
    return this.one<ProviderNodeRow>(`SELECT ${ROW('$2')} FROM nodes n WHERE n.id = $1`, [id, this.config.inference.nodeLiveSeconds], tx);
  }

  /** The owner's paired nodes that are not revoked, newest first. */
  listOwned(ownerId: string, tx?: Tx): Promise<ProviderNodeRow[]> {
    return this.rows<ProviderNodeRow>(
      `SELECT ${ROW('$2')} FROM nodes n WHERE n.owner_id = $1 AND n.credential_hash IS NOT NULL AND n.revoked_at IS NULL
       ORDER BY n.created_at DESC, n.id`,
      [ownerId, this.config.inference.nodeLiveSeconds],
      tx,
    );
  }

  /** Seconds the node was online over the last `days` days. */
  async onlineSeconds(nodeId: string, days: number, tx?: Tx): Promise<number> {
    const row = await this.one<{ seconds: string }>(
      `SELECT coalesce(sum(seconds), 0) AS seconds FROM node_presence WHERE node_id = $1 AND day > current_date - $2::int`,
      [nodeId, days],
      tx,
    );
    return Number(row?.seconds ?? 0);
  }

  /**
   * The node called in: it is seen now, and today's presence grows by the time since its previous call, at most
   * the live window (a node silent longer was away for the rest). The row lock orders concurrent calls. `claiming`:
   * the call asks for work, which is marked too (a node that stops asking is not given another's work to replay).
   */
  async touch(id: string, claiming = false, tx?: Tx): Promise<void> {
    await this.rows(
      `WITH before AS (SELECT last_seen_at FROM nodes WHERE id = $1 FOR UPDATE),
            seen AS (UPDATE nodes SET last_seen_at = now(), claimed_at = CASE WHEN $3 THEN now() ELSE claimed_at END WHERE id = $1)
       INSERT INTO node_presence (node_id, day, seconds)
       SELECT $1, current_date, least(greatest(extract(epoch FROM now() - b.last_seen_at), 0), $2) FROM before b
       ON CONFLICT (node_id, day) DO UPDATE SET seconds = node_presence.seconds + EXCLUDED.seconds`,
      [id, this.config.inference.nodeLiveSeconds, claiming],
      tx,
    );
  }

  /** What the node reported: its loaded models, whether its battery pauses it, how many jobs it runs at once, its agent's version. */
  async report(
    id: string,
    r: {
      models: string[];
      batteryPaused: boolean;
      slots: number;
      agentVersion: string | null;
      compute: { backend: string; vram_bytes: number | null } | null;
      /** The network it connects from (networkOrigin); null leaves the last one standing. */
      origin: string | null;
    },
    tx?: Tx,
  ): Promise<boolean> {
    // A heartbeat without `compute` leaves the last report standing. Answers whether what its claims wait on changed.
    const row = await this.one<{ changed: boolean }>(
      `WITH before AS (SELECT models, battery_paused, slots FROM nodes WHERE id = $1 FOR UPDATE)
       UPDATE nodes n SET models = $2, battery_paused = $3, slots = $4, agent_version = $5,
              compute_backend = coalesce($6, n.compute_backend),
              compute_vram_bytes = CASE WHEN $6::text IS NULL THEN n.compute_vram_bytes ELSE $7::bigint END,
              origin = coalesce($8, n.origin)
       FROM before WHERE n.id = $1
       RETURNING (before.models IS DISTINCT FROM n.models OR before.battery_paused IS DISTINCT FROM n.battery_paused
                  OR before.slots IS DISTINCT FROM n.slots) AS changed`,
      [id, r.models, r.batteryPaused, r.slots, r.agentVersion, r.compute?.backend ?? null, r.compute?.vram_bytes ?? null, r.origin],
      tx,
    );
    return row?.changed ?? false;
  }

  /**
   * The node missed a job's first-token deadline: counted, and at `pauseAt` misses in a row it is paused with
   * `reason`. Answers the misses in a row.
   */
  async missedFirstToken(id: string, pauseAt: number, reason: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ missed: number }>(
      `UPDATE nodes SET missed_first_tokens = missed_first_tokens + 1,
              paused = paused OR missed_first_tokens + 1 >= $2,
              paused_reason = CASE WHEN missed_first_tokens + 1 >= $2 AND NOT paused THEN $3 ELSE paused_reason END
       WHERE id = $1 RETURNING missed_first_tokens AS missed`,
      [id, pauseAt, reason],
      tx,
    );
    return row?.missed ?? 0;
  }

  /** A first token in time ends a run of misses. */
  async firstTokenInTime(id: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE nodes SET missed_first_tokens = 0 WHERE id = $1 AND missed_first_tokens > 0`, [id], tx);
  }

  /**
   * The owner's change; false when the node is not the owner's (or revoked). A suspended node stays paused whatever the
   * owner asks; a node the owner resumes starts its probation over (every reply verified again).
   */
  async change(id: string, ownerId: string, c: NodeChanges, tx?: Tx): Promise<boolean> {
    const changed = await this.count(
      `UPDATE nodes SET name = coalesce($3, name), cpu_percent = coalesce($5, cpu_percent),
              paused = CASE WHEN suspended_at IS NOT NULL THEN true ELSE coalesce($4, paused) END,
              paused_reason = CASE WHEN $4 = false AND suspended_at IS NULL THEN NULL ELSE paused_reason END,
              spot_checks_passed = CASE WHEN $4 = false AND paused AND suspended_at IS NULL THEN 0 ELSE spot_checks_passed END,
              missed_first_tokens = CASE WHEN $4 = false THEN 0 ELSE missed_first_tokens END,
              memory_percent = coalesce($6, memory_percent), gpu_percent = coalesce($7, gpu_percent), disk_gb = coalesce($8, disk_gb)
       WHERE id = $1 AND owner_id = $2 AND credential_hash IS NOT NULL AND revoked_at IS NULL RETURNING id`,
      [
        id,
        ownerId,
        c.name ?? null,
        c.paused ?? null,
        c.allocation?.cpu_percent ?? null,
        c.allocation?.memory_percent ?? null,
        c.allocation?.gpu_percent ?? null,
        c.allocation?.disk_gb ?? null,
      ],
      tx,
    );
    return changed > 0;
  }

  /** Ends the credential; false when the node is not the owner's (or already revoked). */
  async revoke(id: string, ownerId: string, tx?: Tx): Promise<boolean> {
    const revoked = await this.count(
      `UPDATE nodes SET revoked_at = now(), models = '{}' WHERE id = $1 AND owner_id = $2 AND credential_hash IS NOT NULL AND revoked_at IS NULL RETURNING id`,
      [id, ownerId],
      tx,
    );
    return revoked > 0;
  }

  /** Every model a paired, unrevoked node has loaded (whether or not it is online now). */
  async remoteModels(tx?: Tx): Promise<string[]> {
    const rows = await this.rows<{ model: string }>(
      `SELECT DISTINCT unnest(models) AS model FROM nodes WHERE credential_hash IS NOT NULL AND revoked_at IS NULL`,
      [],
      tx,
    );
    return rows.map((r) => r.model);
  }

  /**
   * A job's speed and tokens added to the node's measured ones (the speed as an average giving `weight` to the newest)
   * in one statement, so jobs that end at once never lose one another's; the node's new figures, or undefined.
   */
  addSpeed(id: string, tps: number, tokens: number, weight: number, tx?: Tx): Promise<{ measured_tps: number; measured_tokens: string } | undefined> {
    return this.one(
      `UPDATE nodes SET measured_tps = coalesce(measured_tps * (1 - $4::float8) + $2::float8 * $4::float8, $2::float8),
              measured_tokens = measured_tokens + $3
       WHERE id = $1 RETURNING measured_tps, measured_tokens`,
      [id, tps, tokens, weight],
      tx,
    );
  }

  /** The score that follows from the measured figures of `measuredTokens`, unless a later job has moved them on (its end sets its own). */
  async setScore(id: string, hardwareScore: number, measuredTokens: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE nodes SET hardware_score = $2 WHERE id = $1 AND measured_tokens = $3`, [id, hardwareScore, measuredTokens], tx);
  }
}
