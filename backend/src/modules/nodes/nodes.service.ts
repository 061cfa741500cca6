import { ConflictException, Inject, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { hashSecret, newSecret } from '../../auth/bearer-secret';
import { NODE_CREDENTIAL_PREFIX } from '../../auth/node-credential.guard';
import { RateLimiter } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { JobsService } from '../../jobs/jobs.service';
import { SpotChecksRepository } from '../trust/spot-checks.repository';
import { TasksRepository } from '../inference/tasks.repository';
import { LOWEST_HARDWARE_SCORE } from '../rewards/rewards';
import { RewardsService } from '../rewards/rewards.service';
import { toGlob } from '../../common/units';
import { networkOrigin } from './network-origin';
import { outdated, updateMessage } from './agent-version';
import { JoinTokensRepository } from './join-tokens.repository';
import { ModelProofsService } from '../trust/model-proofs.service';
import { NodeClaimsService } from './node-claims.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { NodeAgentPackageService } from './node-agent-package.service';
import { nodeStatus, PoolsService } from './pools.service';
import { type Allocation, ProviderNodesRepository, type NodeIdentity, type ProviderNodeRow } from './provider-nodes.repository';

const JOIN_TOKEN_PREFIX = 'glb_join_';
/** The window of a node's earnings page, in UTC days (today included). */
const EARNINGS_DAYS = 30;
const JOIN_TOKEN_TTL_SECONDS = 15 * 60;
/** Below this battery charge (on battery) a node takes no jobs. */
const BATTERY_PAUSE_PERCENT = 20;
const BAD_JOIN_TOKEN = 'This join token is invalid or has expired. Create a new one in the web app.';

/**
 * Provider nodes: pairing by a single-use join token traded for a node credential (both stored only as hashes),
 * the node's heartbeat, and its owner's view and controls.
 */
@Injectable()
export class NodesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly joinTokens: JoinTokensRepository,
    private readonly nodes: ProviderNodesRepository,
    private readonly claims: NodeClaimsService,
    private readonly holds: NodeJobHoldsService,
    private readonly rewards: RewardsService,
    private readonly pools: PoolsService,
    private readonly limiter: RateLimiter,
    private readonly proofs: ModelProofsService,
    private readonly tasks: TasksRepository,
    private readonly checks: SpotChecksRepository,
    private readonly agentPackage: NodeAgentPackageService,
    private readonly jobs: JobsService,
  ) {}

  async createJoinToken(userId: string): Promise<Schemas['JoinToken']> {
    const { limit, windowSeconds } = this.config.rateLimits.joinToken;
    const retryAfter = await this.limiter.hit('join-token', userId, limit, windowSeconds);
    if (retryAfter !== null) throw new RateLimitedException(retryAfter);
    const { join_token: token, expires_at } = await this.issueJoinToken(userId);
    const agent = await this.agentPackage.describe();
    return { join_token: token, expires_at, command: this.agentPackage.command(token, agent), agent };
  }

  /** A join token of the account: single use, valid JOIN_TOKEN_TTL_SECONDS, shown once and stored as a hash. */
  async issueJoinToken(userId: string, tx?: Tx): Promise<Schemas['DeviceCodeGrant']> {
    const token = newSecret(JOIN_TOKEN_PREFIX);
    const expiresAt = await this.joinTokens.create(userId, hashSecret(token), JOIN_TOKEN_TTL_SECONDS, tx);
    return { join_token: token, expires_at: expiresAt.toISOString() };
  }

  /** The token is used up in the same transaction that creates the node: a second or late use gets 401 and nothing is created. */
  async register(body: RequestBody<'registerNode'>): Promise<Schemas['NodeCredential']> {
    const credential = newSecret(NODE_CREDENTIAL_PREFIX);
    const { host, benchmark } = body;
    const node = await this.transactions.run(async (tx) => {
      const token = await this.joinTokens.consume(hashSecret(body.join_token), tx);
      if (!token) throw new UnauthorizedException(BAD_JOIN_TOKEN);
      const created = await this.nodes.create(
        {
          ownerId: token.userId,
          credentialHash: hashSecret(credential),
          name: body.name,
          hostname: host.hostname,
          os: host.os,
          arch: host.arch,
          cpuCores: host.cpu_cores,
          memoryBytes: host.memory_bytes,
          gpu: host.gpu ?? null,
          vramBytes: host.vram_bytes ?? null,
          claimedTps: benchmark.tokens_per_second,
          // A node's own benchmark is a claim: it starts at the lowest score until the platform has measured it.
          hardwareScore: LOWEST_HARDWARE_SCORE,
        },
        tx,
      );
      await this.joinTokens.setNode(token.id, created.id, tx);
      return created;
    });
    return { node_id: node.id, credential, name: node.name, allocation: allocationOf(node) };
  }

  /** The node reports in: seen now, its loaded models and battery recorded, the locks of its jobs renewed. */
  /** A node's heartbeat, from `ip` (the address it connects from, as the API sees it behind its trusted proxies). */
  async heartbeat(node: NodeIdentity, body: RequestBody<'nodeHeartbeat'>, ip?: string): Promise<Schemas['NodeState']> {
    await this.nodes.touch(node.id);
    const battery = body.battery_percent ?? null;
    // Only proven models count: the others get a challenge to answer.
    const proofs = await this.proofs.onHeartbeat(node.id, this.claims.catalogModels(body.models), body.proofs ?? []);
    const pool = await this.pools.onHeartbeat(node, body, proofs.proven);
    const agentVersion = body.agent_version ?? null;
    const minimum = this.config.inference.nodeMinVersion;
    const changed = await this.nodes.report(node.id, {
      // An agent too old to take jobs serves nothing: its models are not offered.
      models: outdated(agentVersion, minimum) ? [] : pool.models,
      batteryPaused: battery !== null && battery < BATTERY_PAUSE_PERCENT,
      slots: body.slots ?? 1,
      agentVersion,
      compute: body.compute ?? null,
      origin: networkOrigin(ip),
    });
    if (changed) await this.jobs.announceNode(node.id);
    await this.holds.renewAll(node.id);
    const row = (await this.nodes.state(node.id))!;
    const totals = (await this.rewards.totalsByNode([row.id])).get(row.id)!;
    return {
      node_id: row.id,
      name: row.name,
      paused: row.paused || row.battery_paused,
      allocation: allocationOf(row),
      earned: toGlob(totals.earnedUnits),
      pending: toGlob(totals.pendingUnits),
      pool: pool.assignment,
      challenges: proofs.challenges,
      update_required: outdated(agentVersion, minimum) ? { minimum_version: minimum!, message: updateMessage(agentVersion, minimum!) } : null,
    };
  }

  async list(ownerId: string): Promise<Schemas['NodeList']> {
    const rows = await this.nodes.listOwned(ownerId);
    const ids = rows.map((r) => r.id);
    const [totals, proven] = [await this.rewards.totalsByNode(ids), await this.proofs.provenBy(ids)];
    return { nodes: rows.map((r) => toNode(r, totals.get(r.id)!, proven.get(r.id)!, this.config.inference.nodeMinVersion)) };
  }

  /** What the owner's node earned over the last EARNINGS_DAYS, for what work, and how its work was checked. */
  async earnings(ownerId: string, id: string): Promise<Schemas['NodeEarnings']> {
    const row = await this.nodes.state(id);
    if (!row || row.owner_id !== ownerId) throw new NotFoundException('Node not found');
    const [rewards, tokens, checks, seconds] = [
      await this.rewards.dailyByNode(id, EARNINGS_DAYS),
      await this.tasks.servedByDay(id, EARNINGS_DAYS),
      await this.checks.verdictsOf(id),
      await this.nodes.onlineSeconds(id, EARNINGS_DAYS),
    ];
    const daily = rewards.map((d) => ({ date: d.date, tokens: tokens.get(d.date) ?? 0, earned: toGlob(d.earned), pending: toGlob(d.pending) }));
    const earnedUnits = rewards.reduce((s, d) => s + d.earned, 0);
    const pendingUnits = rewards.reduce((s, d) => s + d.pending, 0);
    const hours = seconds / 3600;
    return {
      node_id: id,
      days: EARNINGS_DAYS,
      tokens_served: daily.reduce((s, d) => s + d.tokens, 0),
      earned: toGlob(earnedUnits),
      pending: toGlob(pendingUnits),
      online_hours: Math.round(hours * 10) / 10,
      glob_per_hour: hours >= 1 ? Math.round((toGlob(earnedUnits + pendingUnits) / hours) * 1000) / 1000 : 0,
      checks,
      daily,
    };
  }

  /**
   * The owner's node's earnings figures per model over the same EARNINGS_DAYS as `earnings`, most tokens first: a model
   * it only earned on (a pool member's share, a verification) shows with no tasks.
   */
  async earningsByModel(ownerId: string, id: string): Promise<Schemas['NodeModelFigures'][]> {
    const row = await this.nodes.state(id);
    if (!row || row.owner_id !== ownerId) throw new NotFoundException('Node not found');
    const [served, rewards] = [await this.tasks.servedByModel(id, EARNINGS_DAYS), await this.rewards.byModelOfNode(id, EARNINGS_DAYS)];
    return [...new Set([...served.keys(), ...rewards.keys()])]
      .map((model) => ({ model, work: served.get(model) ?? { tasks: 0, tokens: 0 }, paid: rewards.get(model) ?? { earned: 0, pending: 0 } }))
      .sort(
        (a, b) =>
          b.work.tokens - a.work.tokens || b.paid.earned + b.paid.pending - (a.paid.earned + a.paid.pending) || a.model.localeCompare(b.model),
      )
      .map(({ model, work, paid }) => ({
        model_id: model,
        tasks: work.tasks,
        tokens: work.tokens,
        earned: toGlob(paid.earned),
        pending: toGlob(paid.pending),
      }));
  }

  async update(ownerId: string, id: string, body: RequestBody<'updateNode'>): Promise<Schemas['Node']> {
    if (body.paused === false) {
      const node = await this.nodes.state(id);
      if (node?.owner_id === ownerId && node.suspended_at)
        throw new ConflictException(
          'The platform suspended this node: one of its replies failed verification. It comes back on its own once it has proven its models again.',
        );
    }
    if (!(await this.nodes.change(id, ownerId, body))) throw new NotFoundException('Node not found');
    await this.jobs.announceNode(id);
    const row = (await this.nodes.byId(id))!;
    const totals = (await this.rewards.totalsByNode([id])).get(id)!;
    return toNode(row, totals, (await this.proofs.provenBy([id])).get(id)!, this.config.inference.nodeMinVersion);
  }

  /**
   * The credential ends at once; a job the node holds goes back to the queue (or ends, if part of it was sent), and
   * the node leaves its pool, whose tunnel key changes so the revoked machine can no longer reach the others.
   */
  async revoke(ownerId: string, id: string): Promise<void> {
    if (!(await this.nodes.revoke(id, ownerId))) throw new NotFoundException('Node not found');
    await this.holds.returnAll(id);
    await this.pools.onMemberRevoked(id);
  }
}

const allocationOf = (r: Allocation): Schemas['NodeAllocation'] => ({
  cpu_percent: r.cpu_percent,
  memory_percent: r.memory_percent,
  gpu_percent: r.gpu_percent,
  disk_gb: r.disk_gb,
});

function toNode(
  r: ProviderNodeRow,
  totals: { earnedUnits: number; pendingUnits: number },
  proven: Schemas['ProvenModel'][],
  minVersion: string | null,
): Schemas['Node'] {
  return {
    id: r.id,
    name: r.name,
    status: nodeStatus(r),
    last_seen_at: r.last_seen_at.toISOString(),
    created_at: r.created_at.toISOString(),
    uptime_30d: Math.round(Math.min(1, Math.max(0, r.uptime)) * 1000) / 1000,
    host: {
      hostname: r.host,
      os: r.os ?? '',
      arch: r.arch ?? '',
      cpu_cores: r.cpu_cores,
      memory_bytes: Number(r.ram_bytes),
      gpu: r.gpu,
      vram_bytes: r.vram_bytes === null ? null : Number(r.vram_bytes),
    },
    models: r.live ? r.models : [],
    proven_models: proven,
    hardware_score: Number(r.hardware_score),
    measured_tokens_per_second: r.measured_tps === null ? null : Math.round(r.measured_tps * 10) / 10,
    paused_reason: r.paused_reason,
    agent_version: r.agent_version,
    update_required: outdated(r.agent_version, minVersion),
    compute: r.compute_backend
      ? { backend: r.compute_backend, vram_bytes: r.compute_vram_bytes === null ? null : Number(r.compute_vram_bytes) }
      : null,
    allocation: allocationOf(r),
    tasks_served: r.tasks_served,
    earned: toGlob(totals.earnedUnits),
    pending: toGlob(totals.pendingUnits),
  };
}
