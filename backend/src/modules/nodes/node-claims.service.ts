/** A node's claim of its next job: a `verify` job waiting for it, else a reply or embed job from its models' queues. */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { JobLeases, type Lease } from '../../jobs/job-leases';
import { inferenceQueue, type InferenceJob, type InferenceQueue } from '../../jobs/jobs';
import { generationInput } from '../../jobs/generation-input';
import { nodeChangedSignal } from '../../jobs/jobs.service';
import { withRequestId } from '../../observability/logging';
import { CatalogService } from '../catalog/catalog.service';
import { TokenCounter } from '../catalog/token-counter';
import { RepliesService } from '../inference/replies.service';
import { outdated } from './agent-version';
import { NodeJobEventsService } from './node-job-events.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { type Assignment, NodeJobStore } from './node-job-store';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { NodePoolsRepository } from './node-pools.repository';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';

/**
 * A waiting claim looks again at least this often, for what reaches a queue unannounced (a job an in-cluster worker's
 * stall check or retry put back). Jobs queued, given back or lost by a stalled node, and the node's own changes (its
 * models, slots, pause), are announced and wake it at once; each look reads PostgreSQL and Redis, and every idle node
 * has a claim waiting.
 */
const RECHECK_MS = 5_000;
/** Token events a job may carry beyond its completion cap (an honest generator sends at most one per token). */
const EVENT_SLACK = 16;
/** Bytes a job may carry beyond its completion cap times the model's longest token. */
const BYTE_SLACK = 256;

/**
 * Remote nodes take jobs from the same per-model queues as the in-cluster workers (BullMQ manual processing, see
 * JobLeases): a claim waits for a job of the node's models, woken when one is announced (NodeJobSignals), and takes it
 * with the completion cap and seed the platform decides.
 */
@Injectable()
export class NodeClaimsService {
  private readonly logger = new Logger('NodeJobs');
  private readonly waiters = new Set<{ queues: Set<string>; wake: () => void }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CatalogService,
    private readonly store: NodeJobStore,
    private readonly leases: JobLeases,
    private readonly replies: RepliesService,
    private readonly nodes: ProviderNodesRepository,
    private readonly pools: NodePoolsRepository,
    private readonly counter: TokenCounter,
    private readonly events: NodeJobEventsService,
    private readonly holds: NodeJobHoldsService,
    private readonly verifyJobs: NodeVerifyJobsService,
  ) {}

  /**
   * The catalog models among these that the platform can count tokens of: a node is offered jobs only for those, so
   * every remote reply is priced by the platform's own count.
   */
  catalogModels(models: string[]): string[] {
    return models.filter((m) => this.catalog.has(m) && this.counter.canCount(m));
  }

  /** Wakes the claims waiting on this queue (a job was announced on it), or on this node (nodeChangedSignal). */
  wake(signal: string): void {
    for (const w of this.waiters) if (w.queues.has(signal)) w.wake();
  }

  /** Wakes every waiting claim (the process is shutting down). */
  wakeAll(): void {
    for (const w of this.waiters) w.wake();
  }

  /** Resolves when one of these signals (a queue, or the node's own) is announced, or after `ms`. */
  private waitFor(queues: string[]): { wait: (ms: number) => Promise<void>; cancel: () => void } {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiter = { queues: new Set<string>(queues), wake };
    this.waiters.add(waiter);
    return {
      wait: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
      },
      cancel: () => this.waiters.delete(waiter),
    };
  }

  /** The next job for the node, or null after the wait; nothing is taken once `hungUp` aborts (the node left). */
  async claim(node: NodeIdentity, body: RequestBody<'claimNodeJob'> | undefined, hungUp?: AbortSignal): Promise<Schemas['NodeJob'] | null> {
    const deadline = Date.now() + (body?.wait_seconds ?? 25) * 1000;
    await this.nodes.touch(node.id, true);
    for (;;) {
      if (hungUp?.aborted) return null;
      const state = await this.nodes.state(node.id);
      // An agent older than the platform accepts takes nothing (its heartbeat tells it how to update).
      if (!state || state.revoked || outdated(state.agent_version, this.config.inference.nodeMinVersion)) return null;
      // A node holds at most the jobs it runs at once: one that claims more is asking to sit on them.
      if ((await this.store.heldCount(node.id)) >= state.slots) return null;
      const working = !state.paused && !state.battery_paused;
      const replay = working ? await this.verifyJobs.replay(node.id) : null;
      if (replay) return replay;
      const queues = working ? this.catalogModels(state.models).map(inferenceQueue) : [];
      // Listening before looking: a job announced while we look is not missed.
      const waiter = this.waitFor([...queues, nodeChangedSignal(node.id)]);
      try {
        for (const queue of queues.sort(() => Math.random() - 0.5)) {
          if (hungUp?.aborted) return null;
          const job = await this.take(node, queue);
          if (!job) continue;
          // Taken while the node hung up, or past its slots by concurrent claims: straight back to the queue.
          if (hungUp?.aborted || (await this.store.heldCount(node.id)) > state.slots) {
            await this.holds.giveBack(node, job.job_id);
            return null;
          }
          return job;
        }
        const left = deadline - Date.now();
        if (left <= 0) return null;
        await waiter.wait(Math.min(left, RECHECK_MS));
      } finally {
        waiter.cancel();
      }
      if (Date.now() >= deadline) return null;
    }
  }

  private async take(node: NodeIdentity, queue: InferenceQueue): Promise<Schemas['NodeJob'] | null> {
    for (;;) {
      const taken = await this.leases.take(queue, `${node.id}:${randomUUID()}`);
      if (!taken) return null;
      const { lease, data } = taken;
      if (!(await this.replies.begin(data, node.id))) {
        // Ended meanwhile, or a node already streamed part of it (ended now): the job is done with.
        await this.leases.complete(lease);
        continue;
      }
      if (data.embed) return this.embedJob(node, lease, data);
      // The completion cap comes from the platform's count of the prompt, never from anything the node says.
      const input = generationInput(data);
      const promptTokens = await this.counter.countInput(data.modelId, input);
      // The same budget rule as the in-cluster worker's: a hold that cannot pay for the prompt ends the reply.
      const budget = await this.replies.budget(data, node.id, promptTokens);
      if (!budget) {
        await this.leases.complete(lease);
        continue;
      }
      const maxBytes = budget.maxTokens * (await this.counter.maxTokenBytes(data.modelId)) + BYTE_SLACK;
      const claimedAt = Date.now();
      const pool = await this.pools.ofNode(node.id);
      const a: Assignment = {
        ...lease,
        nodeId: node.id,
        modelId: data.modelId,
        claimedAt,
        promptTokens,
        maxTokens: budget.maxTokens,
        maxBytes,
        maxEvents: budget.maxTokens + EVENT_SLACK,
        seed: data.params.seed ?? randomInt(2 ** 32),
        kind: pool?.coordinator_id === node.id && pool.model_id === data.modelId ? 'pool' : 'remote',
      };
      await this.store.hold(a);
      // Stopped before any node took it: it ends now, with nothing generated.
      if (await this.replies.stopRequested(data)) {
        await this.events.settle(a, data, 'abort');
        continue;
      }
      this.logClaim(node, lease, data, 'job');
      return {
        job_id: lease.jobId,
        model_id: data.modelId,
        ...input,
        // The reply's sampling as it was asked, with the cap and the seed the platform decided.
        params: { ...data.params, max_tokens: budget.maxTokens, seed: a.seed },
        lock_ms: this.config.inference.jobLockMs,
        first_token_ms: this.config.inference.nodeFirstTokenMs,
        max_bytes: maxBytes,
        ...(data.requestId ? { request_id: data.requestId } : {}),
      };
    }
  }

  /**
   * An embedding job as the node gets it: its texts; what it is charged was counted when it was queued. Its vectors
   * are due within the first-token deadline, like a reply's first token.
   */
  private async embedJob(node: NodeIdentity, lease: Lease, data: InferenceJob): Promise<Schemas['NodeJob']> {
    const claimedAt = Date.now();
    const a: Assignment = {
      ...lease,
      nodeId: node.id,
      modelId: data.modelId,
      claimedAt,
      promptTokens: data.embed!.promptTokens,
      maxTokens: 0,
      maxBytes: 0,
      maxEvents: 0,
      seed: 0,
      kind: 'remote',
    };
    await this.store.hold(a);
    this.logClaim(node, lease, data, 'embed job');
    return {
      job_id: lease.jobId,
      model_id: data.modelId,
      kind: 'embed',
      input: data.embed!.input,
      params: { temperature: 0, max_tokens: 1, top_p: 1, seed: 0 },
      lock_ms: this.config.inference.jobLockMs,
      first_token_ms: this.config.inference.nodeFirstTokenMs,
      max_bytes: 0,
      ...(data.requestId ? { request_id: data.requestId } : {}),
    };
  }

  /** Logged in the id of the request that asked for the reply (the node's own call has another). */
  private logClaim(node: NodeIdentity, lease: Lease, data: InferenceJob, what: string): void {
    withRequestId(data.requestId, () =>
      this.logger.log({
        msg: `Node ${node.id} claimed ${what} ${lease.jobId}`,
        job_id: lease.jobId,
        node_id: node.id,
        task_id: data.taskId,
        model: data.modelId,
      }),
    );
  }
}
