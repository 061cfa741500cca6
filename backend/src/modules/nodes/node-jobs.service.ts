import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  PayloadTooLargeException,
} from '@nestjs/common';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { JobLeases, type Lease } from '../../jobs/job-leases';
import { inferenceQueue, type InferenceJob, type InferenceQueue } from '../../jobs/jobs';
import { jobsAddedChannel } from '../../jobs/jobs.service';
import { createRedis, REDIS } from '../../redis/redis.module';
import { loadCatalog } from '../inference/catalog';
import { RepliesService } from '../inference/replies.service';
import { hardwareScore } from '../inference/rewards';
import { TasksRepository } from '../inference/tasks.repository';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';

/** One events call carries at most this much; the body parser of that route enforces the bytes. */
export const NODE_EVENTS_MAX = 512;
export const NODE_EVENTS_MAX_BYTES = 256 * 1024;
export const NODE_EVENTS_TOO_LARGE = 'At most 512 events and 256 KiB per call';

/** A waiting claim looks again at least this often (a job a stalled node lost goes back to the queue unannounced). */
const RECHECK_MS = 1_000;
/** Weight of the newest job in a node's measured speed. */
const SPEED_WEIGHT = 0.3;

/** Which node holds a job, with the lock token it holds it by; kept past the job's end so late calls get 409. */
interface Assignment extends Lease {
  nodeId: string;
  claimedAt: number;
  firstTokenAt?: number;
}

type NodeJobEvent = Schemas['NodeJobEvent'];

/**
 * Remote nodes take jobs from the same per-model queues as the in-cluster workers (BullMQ manual processing,
 * see JobLeases) and hand what they generate to the same inference core (RepliesService). Which node holds
 * which job, and by which lock token, lives in Redis, so any API process can answer any node.
 */
@Injectable()
export class NodeJobsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NodeJobs');
  private readonly catalog: Set<string>;
  private subscriber: Redis | undefined;
  private readonly waiters = new Set<{ queues: Set<string>; wake: () => void }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly leases: JobLeases,
    private readonly replies: RepliesService,
    private readonly tasks: TasksRepository,
    private readonly nodes: ProviderNodesRepository,
  ) {
    this.catalog = new Set(loadCatalog(config).map((m) => m.id));
  }

  async onApplicationBootstrap(): Promise<void> {
    // The stalled-job check of every queue a remote node may hold a job of runs here (and starts with a queue's first
    // claim), so a silent node loses its job even when no in-cluster worker serves that model.
    this.leases.watch(this.catalogModels(await this.nodes.remoteModels()).map(inferenceQueue));
    this.subscriber = createRedis(this.config, true);
    this.subscriber.on('error', () => undefined);
    await this.subscriber.subscribe(jobsAddedChannel(this.config.redis.prefix));
    this.subscriber.on('message', (_channel, queue: string) => {
      for (const w of this.waiters) if (w.queues.has(queue)) w.wake();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    for (const w of this.waiters) w.wake();
    await this.subscriber?.quit().catch(() => undefined);
  }

  /** The catalog models among these (a node is offered jobs only for models the platform knows). */
  catalogModels(models: string[]): string[] {
    return models.filter((m) => this.catalog.has(m));
  }

  private key(jobId: string): string {
    return `${this.config.redis.prefix}:node-job:${jobId}`;
  }

  private heldKey(nodeId: string): string {
    return `${this.config.redis.prefix}:node-jobs:${nodeId}`;
  }

  private async assignment(jobId: string): Promise<Assignment | null> {
    const raw = await this.redis.get(this.key(jobId));
    return raw ? (JSON.parse(raw) as Assignment) : null;
  }

  private async save(a: Assignment): Promise<void> {
    const ttl = this.config.inference.replyTimeoutSeconds + this.config.inference.streamTtlSeconds;
    await this.redis.set(this.key(a.jobId), JSON.stringify(a), 'EX', ttl);
  }

  /** Resolves when a job is announced on one of these queues, or after `ms`. */
  private waitFor(queues: InferenceQueue[]): { wait: (ms: number) => Promise<void>; cancel: () => void } {
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

  /** The next job for a model this node has loaded, waiting up to `waitSeconds`; null when none came. */
  /** The next job for the node, or null after the wait; nothing is taken once `hungUp` aborts (the node left). */
  async claim(node: NodeIdentity, body: RequestBody<'claimNodeJob'> | undefined, hungUp?: AbortSignal): Promise<Schemas['NodeJob'] | null> {
    const deadline = Date.now() + (body?.wait_seconds ?? 25) * 1000;
    await this.nodes.touch(node.id);
    for (;;) {
      if (hungUp?.aborted) return null;
      const state = await this.nodes.byId(node.id);
      if (!state || state.revoked) return null;
      const queues = state.paused || state.battery_paused ? [] : this.catalogModels(state.models).map(inferenceQueue);
      // Listening before looking: a job announced while we look is not missed.
      const waiter = this.waitFor(queues);
      try {
        for (const queue of queues.sort(() => Math.random() - 0.5)) {
          if (hungUp?.aborted) return null;
          const job = await this.take(node, queue);
          if (!job) continue;
          // Taken while the node hung up: straight back to the queue for another node.
          if (hungUp?.aborted) {
            await this.giveBack(node, job.job_id);
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
      await this.save({ ...lease, nodeId: node.id, claimedAt: Date.now() });
      await this.redis.sadd(this.heldKey(node.id), lease.jobId);
      return {
        job_id: lease.jobId,
        model_id: data.modelId,
        messages: data.messages,
        params: {
          temperature: data.params.temperature,
          max_tokens: data.params.maxTokens,
          top_p: data.params.topP,
          ...(data.params.seed !== undefined ? { seed: data.params.seed } : {}),
          ...(data.params.stop?.length ? { stop: data.params.stop } : {}),
        },
        hold_tokens: this.replies.holdTokens(data),
        lock_ms: this.config.inference.jobLockMs,
      };
    }
  }

  /**
   * The job this node holds, its lock renewed: 403 when it does not hold it (never claimed, or lost the lock),
   * 409 when the reply has ended.
   */
  private async held(node: NodeIdentity, jobId: string): Promise<{ a: Assignment; data: InferenceJob }> {
    const a = await this.assignment(jobId);
    if (!a || a.nodeId !== node.id) throw new ForbiddenException(`This node does not hold job ${jobId}`);
    const task = await this.tasks.byStream(jobId);
    if (!task || (task.status !== 'queued' && task.status !== 'running')) throw new ConflictException(`Job ${jobId} has already ended`);
    const data = await this.leases.renew(a);
    if (!data) {
      await this.redis.srem(this.heldKey(node.id), jobId);
      throw new ForbiddenException(`This node does not hold job ${jobId}`);
    }
    return { a, data };
  }

  /** Token events go to the requester's stream; a final `done` settles the reply, an `error` ends it at no charge. */
  async events(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobEvents'>): Promise<Schemas['NodeJobAck']> {
    const events = body.events;
    if (events.length > NODE_EVENTS_MAX) throw new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE);
    const end = events.findIndex((e) => e.type !== 'token');
    if (end >= 0 && end !== events.length - 1) throw new BadRequestException('events: a done or error event must be the last');
    await this.nodes.touch(node.id);
    const { a, data } = await this.held(node, jobId);
    const final = end >= 0 ? (events[end] as Exclude<NodeJobEvent, { type: 'token' }>) : null;
    if (final?.type === 'done') {
      const why = this.replies.implausibleUsage(data, { promptTokens: final.usage.prompt_tokens, completionTokens: final.usage.completion_tokens });
      if (why) throw new BadRequestException(`usage: ${why}`);
    }

    const text = events.map((e) => (e.type === 'token' ? e.text : '')).join('');
    if (text) {
      await this.replies.tokens(data, text);
      if (!a.firstTokenAt && !final) await this.save({ ...a, firstTokenAt: Date.now() });
    }
    if (final?.type === 'done') {
      const usage = { promptTokens: final.usage.prompt_tokens, completionTokens: final.usage.completion_tokens };
      await this.recordSpeed(node.id, usage.completionTokens, Date.now() - (a.firstTokenAt ?? a.claimedAt));
      await this.replies.complete(data, node.id, usage, final.stop_reason, Date.now() - a.claimedAt);
      await this.release(a, () => this.leases.complete(a));
    } else if (final?.type === 'error') {
      this.logger.warn(`Node ${node.id} failed job ${jobId}: ${final.message}`);
      await this.replies.fail(data, node.id, 'INTERNAL_ERROR');
      await this.release(a, () => this.leases.fail(a, final.message));
    }
    return { stop: !final && (await this.replies.stopRequested(data)) };
  }

  private async release(a: Assignment, end: () => Promise<void>): Promise<void> {
    await end();
    await this.redis.srem(this.heldKey(a.nodeId), a.jobId);
  }

  /**
   * A node's speed as the platform saw it: completion tokens over the time from its first token to its done
   * (from the claim when everything came in one call), averaged over jobs. Its hardware score follows the lower of
   * its claim and this.
   */
  private async recordSpeed(nodeId: string, completionTokens: number, ms: number): Promise<void> {
    if (completionTokens < 2 || ms <= 0) return;
    const node = await this.nodes.byId(nodeId);
    if (!node) return;
    const tps = completionTokens / (ms / 1000);
    const measured = node.measured_tps === null ? tps : node.measured_tps * (1 - SPEED_WEIGHT) + tps * SPEED_WEIGHT;
    const basis = Math.min(node.claimed_tps ?? measured, measured);
    await this.nodes.setSpeed(nodeId, measured, hardwareScore(basis, node.gpu !== null));
  }

  /** The node gives a job back: to the queue for another node, or ended (no charge) if part of it was sent. */
  async giveBack(node: NodeIdentity, jobId: string): Promise<void> {
    await this.nodes.touch(node.id);
    const { a, data } = await this.held(node, jobId);
    await this.handBack(a, data);
  }

  private async handBack(a: Assignment, data: InferenceJob): Promise<void> {
    if (await this.replies.started(data)) {
      await this.replies.fail(data, a.nodeId, 'WORKER_FAILED');
      await this.release(a, () => this.leases.fail(a, 'given back after part of the reply was sent'));
    } else {
      await this.release(a, () => this.leases.giveBack(a));
    }
  }

  /** A heartbeat renews the lock of every job the node holds; jobs it lost are forgotten. */
  async renewAll(nodeId: string): Promise<void> {
    for (const jobId of await this.redis.smembers(this.heldKey(nodeId))) {
      const a = await this.assignment(jobId);
      if (!a || a.nodeId !== nodeId || !(await this.leases.renew(a))) await this.redis.srem(this.heldKey(nodeId), jobId);
    }
  }

  /** A revoked node's jobs go back to the queue (or end, if part of the reply was sent). */
  async returnAll(nodeId: string): Promise<void> {
    for (const jobId of await this.redis.smembers(this.heldKey(nodeId))) {
      const a = await this.assignment(jobId);
      const data = a && a.nodeId === nodeId ? await this.leases.renew(a) : null;
      if (a && data) await this.handBack(a, data);
      else await this.redis.srem(this.heldKey(nodeId), jobId);
    }
  }
}
