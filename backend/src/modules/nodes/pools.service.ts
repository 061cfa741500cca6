import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { CatalogService } from '../catalog/catalog.service';
import { type ModelFacts, ModelFilesService } from '../catalog/model-files.service';
import { NodePoolsRepository, type PoolMemberRow, type PoolRow } from './node-pools.repository';
import { type PlanNode, type PoolPlan, offeredMemory, planPool } from './pool-plan';
import type { NodeIdentity } from './provider-nodes.repository';

type NodeHeartbeat = RequestBody<'nodeHeartbeat'>;

const toPlanNode = (m: PoolMemberRow): PlanNode => ({
  id: m.node_id,
  memoryBytes: Number(m.ram_bytes),
  memoryPercent: m.memory_percent,
  vramBytes: m.vram_bytes === null ? null : Number(m.vram_bytes),
  gpu: m.gpu,
  gpuPercent: m.gpu_percent,
  files: m.files,
});

/**
 * A member runs its part now: online, not paused, reporting this pool as the one it is ready for, and saying where its
 * tunnel listens (a member opens it only once assigned, so the coordinator is told to start only when it can reach
 * everyone); the coordinator also offers the model (so a healthy pool's model is in the model list).
 */
const ready = (pool: PoolRow, coordinatorId: string | null, m: PoolMemberRow): boolean =>
  m.live &&
  !m.paused &&
  !m.battery_paused &&
  m.pool_ready === pool.id &&
  m.pool_endpoint !== null &&
  (m.node_id !== coordinatorId || m.models.includes(pool.model_id));

/** Paused by its owner whatever else; paused by its battery while it calls in; else online or offline. */
export const nodeStatus = (r: { paused: boolean; battery_paused: boolean; live: boolean }): Schemas['NodeStatus'] =>
  r.paused || (r.live && r.battery_paused) ? 'paused' : r.live ? 'online' : 'offline';

/**
 * Pools: an owner's nodes serving one model split across them with llama.cpp's RPC backend. The platform plans the
 * split (see pool-plan.ts) and tells each member its part in the answer to its heartbeat; the coordinator then serves
 * the model like any node, and the model is offered only while every member is up.
 */
@Injectable()
export class PoolsService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly transactions: Transactions,
    private readonly pools: NodePoolsRepository,
    private readonly modelFiles: ModelFilesService,
  ) {}

  async create(ownerId: string, body: RequestBody<'createPool'>): Promise<Schemas['Pool']> {
    if (!this.catalog.has(body.model_id)) throw new BadRequestException(`There is no model ${body.model_id} in the network's catalog`);
    const id = await this.transactions.run(async (tx) => {
      const owned = await this.pools.lockOwnedNodes(ownerId, body.node_ids, tx);
      if (owned.length !== body.node_ids.length) throw new NotFoundException('Node not found');
      if ((await this.pools.pooled(body.node_ids, tx)).length > 0) throw new ConflictException('A node can be in one pool at a time');
      return this.pools.create(
        { ownerId, name: body.name, modelId: body.model_id, tunnelKey: randomBytes(32).toString('hex'), nodeIds: body.node_ids },
        tx,
      );
    });
    const pool = (await this.pools.byId(id))!;
    return this.describe(pool, await this.pools.members([id]), await this.modelFiles.facts(pool.model_id));
  }

  async list(ownerId: string): Promise<Schemas['PoolList']> {
    const pools = await this.pools.listOwned(ownerId);
    const members = await this.pools.members(pools.map((p) => p.id));
    const facts = new Map(
      await Promise.all([...new Set(pools.map((p) => p.model_id))].map(async (id) => [id, await this.modelFiles.facts(id)] as const)),
    );
    return {
      pools: pools.map((p) =>
        this.describe(
          p,
          members.filter((m) => m.pool_id === p.id),
          facts.get(p.model_id) ?? null,
        ),
      ),
    };
  }

  /** The members learn it from their next heartbeat (no assignment) and stop their parts. */
  async remove(ownerId: string, id: string): Promise<void> {
    if (!(await this.pools.remove(id, ownerId))) throw new NotFoundException('Pool not found');
  }

  /** The pools the node is a member of (at most one), as the owner's list describes them. */
  async ofNode(nodeId: string): Promise<Schemas['Pool'][]> {
    const pool = await this.pools.ofNode(nodeId);
    if (!pool) return [];
    return [this.describe(pool, await this.pools.members([pool.id]), await this.modelFiles.facts(pool.model_id))];
  }

  /** The split was planned with every member, so a member that leaves dissolves the pool, as its owner would. */
  async leave(node: NodeIdentity, poolId: string): Promise<void> {
    const pool = await this.pools.ofNode(node.id);
    if (pool?.id !== poolId) throw new NotFoundException('Pool not found');
    await this.remove(node.owner_id, poolId);
  }

  /** A revoked node leaves its pool at once, and the remaining members get a new tunnel key at their next heartbeat. */
  async onMemberRevoked(nodeId: string): Promise<void> {
    await this.pools.removeMember(nodeId, randomBytes(32).toString('hex'));
  }

  /**
   * Records what the node reported of its pool part and answers its assignment (null outside a pool). Also keeps the
   * plan current and strips the pooled model from what the coordinator offers while another member is down.
   */
  async onHeartbeat(
    node: NodeIdentity,
    body: NodeHeartbeat,
    models: string[],
  ): Promise<{ assignment: Schemas['PoolAssignment'] | null; models: string[] }> {
    await this.pools.report(node.id, { files: body.files ?? [], endpoint: body.pool_endpoint ?? null, ready: body.pool_ready ?? null });
    const pool = await this.pools.ofNode(node.id);
    if (!pool) return { assignment: null, models };
    const members = await this.pools.members([pool.id]);
    const plan = await this.plan(pool, members);
    const others = members.filter((m) => m.node_id !== plan.coordinatorId);
    const othersReady = others.every((m) => ready(pool, plan.coordinatorId, m));
    const coordinating = plan.coordinatorId === node.id;
    const assignment: Schemas['PoolAssignment'] | null =
      plan.coordinatorId && !plan.problem
        ? {
            pool_id: pool.id,
            model_id: pool.model_id,
            role: coordinating ? 'coordinator' : 'shard',
            key: pool.tunnel_key,
            healthy: othersReady,
            members: plan.order.map((id) => ({
              node_id: id,
              endpoint: members.find((m) => m.node_id === id)!.pool_endpoint,
              layers: plan.layers.get(id)!,
            })),
          }
        : null;
    // The pooled model is the pool's: only its coordinator offers it, and only while every other member is up.
    const offered = models.filter((m) => m !== pool.model_id || (coordinating && othersReady && assignment !== null));
    const now = members.map((m) => (m.node_id === node.id ? { ...m, models: offered } : m));
    if (assignment && now.every((m) => ready(pool, plan.coordinatorId, m))) await this.pools.markServed(pool.id);
    return { assignment, models: offered };
  }

  private async plan(pool: PoolRow, members: PoolMemberRow[]): Promise<PoolPlan> {
    const plan = planPool(pool.model_id, await this.modelFiles.facts(pool.model_id), members.map(toPlanNode), pool.coordinator_id);
    await this.pools.savePlan(pool.id, plan.coordinatorId, plan.layers);
    return plan;
  }

  private describe(pool: PoolRow, members: PoolMemberRow[], facts: ModelFacts | null): Schemas['Pool'] {
    const plan = planPool(pool.model_id, facts, members.map(toPlanNode), pool.coordinator_id);
    const healthy = plan.coordinatorId !== null && !plan.problem && members.every((m) => ready(pool, plan.coordinatorId, m));
    const byId = new Map(members.map((m) => [m.node_id, m]));
    return {
      id: pool.id,
      name: pool.name,
      model_id: pool.model_id,
      status: healthy ? 'healthy' : pool.served_at ? 'degraded' : 'forming',
      model_layers: plan.modelLayers,
      model_bytes: plan.modelBytes,
      problem: plan.problem,
      members: plan.order.map((id) => {
        const m = byId.get(id)!;
        const layers = plan.layers.get(id) ?? 0;
        return {
          node_id: id,
          name: m.name,
          role: plan.coordinatorId === null ? null : id === plan.coordinatorId ? 'coordinator' : 'shard',
          status: nodeStatus(m),
          ready: ready(pool, plan.coordinatorId, m),
          memory_bytes: offeredMemory(toPlanNode(m)),
          layers,
          layer_share: plan.modelLayers ? Math.round((layers / plan.modelLayers) * 1000) / 1000 : 0,
        };
      }),
      created_at: pool.created_at.toISOString(),
    };
  }
}
