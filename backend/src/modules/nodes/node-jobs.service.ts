import constants from '@glob/contract/constants.json';
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
  UnprocessableEntityException,
} from '@nestjs/common';
import type Redis from 'ioredis';
import { randomInt, randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { JobLeases, type Lease } from '../../jobs/job-leases';
import { inferenceQueue, type InferenceJob, type InferenceQueue } from '../../jobs/jobs';
import { generationInput } from '../../jobs/generation-input';
import { jobsAddedChannel } from '../../jobs/jobs.service';
import { createRedis, REDIS } from '../../redis/redis.module';
import { withRequestId } from '../../observability/logging';
import { RateLimiter } from '../../common/rate-limit';
import { loadCatalog } from '../inference/catalog';
import { RepliesService, type StopReason } from '../inference/replies.service';
import { hardwareScore, LOWEST_HARDWARE_SCORE } from '../rewards/rewards';
import { TasksRepository } from '../inference/tasks.repository';
import { SpotChecksService, type ServedReply } from '../trust/spot-checks.service';
import { PeerReplaysService } from '../trust/peer-replays.service';
import { stopChannel } from '../../jobs/stop-signals';
import { TokenCounter } from '../inference/token-counter';
import { EmbeddingsService } from '../inference/embeddings.service';
import { fromBase64 } from '../inference/vectors';
import { outdated } from './agent-version';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';
import { NodePoolsRepository } from './node-pools.repository';
import type { ReplyRun } from '../../observability/metrics';
import type { TokenLogprob } from '@glob/engine/logprobs';
import { VERIFY_TOP } from '@glob/engine/verification';

/** One events call carries at most this many events and this much text (the spec's; checked once the body is parsed). */
export const NODE_EVENTS_MAX = constants.nodeJobEvents.maxEvents;
export const NODE_EVENTS_MAX_BYTES = constants.nodeJobEvents.maxTextBytes;
/** The most a call's body may be: the text's limit, and room for a done event's logprobs (thousands of tokens with candidates). */
export const NODE_EVENTS_BODY_MAX_BYTES = 16 * 1024 * 1024;
export const NODE_EVENTS_TOO_LARGE = `At most ${NODE_EVENTS_MAX} events and ${NODE_EVENTS_MAX_BYTES / 1024} KiB per call`;

/** A waiting claim looks again at least this often (a job a stalled node lost goes back to the queue unannounced). */
const RECHECK_MS = 1_000;
/** Weight of the newest job in a node's measured speed. */
const SPEED_WEIGHT = 0.3;
/** Completion tokens a node serves, as the platform counted and timed them, before its measured speed sets its score. */
export const SCORE_WARMUP_TOKENS = 512;
/** First-token deadlines missed in a row that pause a node. */
export const MISSES_TO_PAUSE = 3;
export const SLOW_NODE = `The platform paused this node: it missed the first-token deadline of ${MISSES_TO_PAUSE} jobs in a row.`;
/** Token events a job may carry beyond its completion cap (an honest generator sends at most one per token). */
const EVENT_SLACK = 16;
/** Bytes a job may carry beyond its completion cap times the model's longest token. */
const BYTE_SLACK = 256;

/** Which node holds a job, with the lock token it holds it by; kept past the job's end so late calls get 409. */
interface Assignment extends Lease {
  nodeId: string;
  modelId: string;
  claimedAt: number;
  firstTokenAt?: number;
  /** The prompt's tokens as the platform counted them, and the completion cap the node was given. */
  promptTokens: number;
  maxTokens: number;
  /** The most text (bytes) and token events the job may carry. */
  maxBytes: number;
  maxEvents: number;
  /** The seed the node samples with: the request's, or one the platform chose, so a spot check can replay the reply. */
  seed: number;
  /** A provider's node, or the coordinator of a pool serving the pool's model (for the metrics). */
  kind?: 'remote' | 'pool';
}

/** How the node's reply ran, for the inference metrics. */
const runOf = (a: Assignment): ReplyRun => ({ kind: a.kind ?? 'remote', firstTokenAt: a.firstTokenAt });

/** The id of a job that replays another node's work for a check (its text goes to the check, not to a requester). */
const REPLAY_JOB = 'chk_';

/** A cap of what a node may send was passed: the job has ended as failed (413). */
class OverCapException extends PayloadTooLargeException {}

type NodeJobEvent = Schemas['NodeJobEvent'];
/** A reply the platform stopped, kept until its node commits to it: the reply less its end, and its cap. */
type StoppedReply = Omit<ServedReply, 'ended'> & { maxTokens: number };

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
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly leases: JobLeases,
    private readonly replies: RepliesService,
    private readonly tasks: TasksRepository,
    private readonly nodes: ProviderNodesRepository,
    private readonly pools: NodePoolsRepository,
    private readonly counter: TokenCounter,
    private readonly limiter: RateLimiter,
    private readonly spotChecks: SpotChecksService,
    private readonly peerReplays: PeerReplaysService,
    private readonly embeddings: EmbeddingsService,
  ) {
    this.catalog = new Set(loadCatalog(config).map((m) => m.id));
  }

  async onApplicationBootstrap(): Promise<void> {
    // The stalled-job check of every queue a remote node may hold a job of runs here (and starts with a queue's first
    // claim), so a silent node loses its job even when no in-cluster worker serves that model.
    this.leases.watch(this.catalogModels(await this.nodes.remoteModels()).map(inferenceQueue));
    this.subscriber = createRedis(this.config, true);
    this.subscriber.on('error', () => undefined);
    const added = jobsAddedChannel(this.config.redis.prefix);
    const stops = stopChannel(this.config.redis.prefix);
    await this.subscriber.subscribe(added, stops);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === stops) {
        this.endNow(message).catch((err: Error) => this.logger.warn(`Stopping job ${message}: ${err.message}`));
        return;
      }
      for (const w of this.waiters) if (w.queues.has(message)) w.wake();
    });
    const every = Math.min(1_000, Math.max(100, Math.floor(this.config.inference.nodeFirstTokenMs / 4)));
    this.deadlineTimer = setInterval(() => {
      this.missedDeadlines().catch((err: Error) => this.logger.warn(`First-token check failed: ${err.message}`));
      this.peerReplays.expire().catch((err: Error) => this.logger.warn(`Replay expiry failed: ${err.message}`));
      this.uncommittedStops().catch((err: Error) => this.logger.warn(`Stopped-reply check failed: ${err.message}`));
    }, every);
    this.deadlineTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    for (const w of this.waiters) w.wake();
    await this.subscriber?.quit().catch(() => undefined);
  }

  /**
   * The catalog models among these that the platform can count tokens of: a node is offered jobs only for those, so
   * every remote reply is priced by the platform's own count.
   */
  catalogModels(models: string[]): string[] {
    return models.filter((m) => this.catalog.has(m) && this.counter.canCount(m));
  }

  private key(jobId: string): string {
    return `${this.config.redis.prefix}:node-job:${jobId}`;
  }

  private heldKey(nodeId: string): string {
    return `${this.config.redis.prefix}:node-jobs:${nodeId}`;
  }

  /** Jobs waiting for their first token, scored by their deadline. */
  private deadlinesKey(): string {
    return `${this.config.redis.prefix}:node-job-deadlines`;
  }

  /** A `verify` job a node holds (it expires with the reply timeout). */
  private replayKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-replay:${jobId}`;
  }

  /** A reply the platform stopped, waiting for its node's commitment (ServedReply less its end, and its cap). */
  private stoppedKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-job-stopped:${jobId}`;
  }

  /** Stopped replies by the time their node's commitment is due. */
  private stoppedDueKey(): string {
    return `${this.config.redis.prefix}:node-job-stopped-due`;
  }

  /** What a job has carried so far: bytes of text and token events. */
  private sentKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-job-sent:${jobId}`;
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

  /** The next job for the node, or null after the wait; nothing is taken once `hungUp` aborts (the node left). */
  async claim(node: NodeIdentity, body: RequestBody<'claimNodeJob'> | undefined, hungUp?: AbortSignal): Promise<Schemas['NodeJob'] | null> {
    const deadline = Date.now() + (body?.wait_seconds ?? 25) * 1000;
    await this.nodes.touch(node.id);
    await this.nodes.askedForWork(node.id);
    for (;;) {
      if (hungUp?.aborted) return null;
      const state = await this.nodes.byId(node.id);
      // An agent older than the platform accepts takes nothing (its heartbeat tells it how to update).
      if (!state || state.revoked || outdated(state.agent_version, this.config.inference.nodeMinVersion)) return null;
      // A node holds at most the jobs it runs at once: one that claims more is asking to sit on them.
      if ((await this.redis.scard(this.heldKey(node.id))) >= state.slots) return null;
      const working = !state.paused && !state.battery_paused;
      const replay = working ? await this.replay(node.id) : null;
      if (replay) return replay;
      const queues = working ? this.catalogModels(state.models).map(inferenceQueue) : [];
      // Listening before looking: a job announced while we look is not missed.
      const waiter = this.waitFor(queues);
      try {
        for (const queue of queues.sort(() => Math.random() - 0.5)) {
          if (hungUp?.aborted) return null;
          const job = await this.take(node, queue);
          if (!job) continue;
          // Taken while the node hung up, or past its slots by concurrent claims: straight back to the queue.
          if (hungUp?.aborted || (await this.redis.scard(this.heldKey(node.id))) > state.slots) {
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
      await this.save(a);
      await this.redis.sadd(this.heldKey(node.id), lease.jobId);
      await this.redis.zadd(this.deadlinesKey(), claimedAt + this.config.inference.nodeFirstTokenMs, lease.jobId);
      // Stopped before any node took it: it ends now, with nothing generated.
      if (await this.replies.stopRequested(data)) {
        await this.settle(a, data, 'abort');
        continue;
      }
      // Logged in the id of the request that asked for the reply (the node's own call has another).
      withRequestId(data.requestId, () =>
        this.logger.log({
          msg: `Node ${node.id} claimed job ${lease.jobId}`,
          job_id: lease.jobId,
          node_id: node.id,
          task_id: data.taskId,
          model: data.modelId,
        }),
      );
      return {
        job_id: lease.jobId,
        model_id: data.modelId,
        ...input,
        params: {
          temperature: data.params.temperature,
          max_tokens: budget.maxTokens,
          top_p: data.params.topP,
          seed: a.seed,
          ...(data.params.stop?.length ? { stop: data.params.stop } : {}),
          ...(data.params.jsonSchema ? { json_schema: data.params.jsonSchema } : {}),
          ...(data.params.logprobs !== undefined ? { logprobs: data.params.logprobs } : {}),
        },
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
    await this.save(a);
    await this.redis.sadd(this.heldKey(node.id), lease.jobId);
    await this.redis.zadd(this.deadlinesKey(), claimedAt + this.config.inference.nodeFirstTokenMs, lease.jobId);
    withRequestId(data.requestId, () =>
      this.logger.log({
        msg: `Node ${node.id} claimed embed job ${lease.jobId}`,
        job_id: lease.jobId,
        node_id: node.id,
        task_id: data.taskId,
        model: data.modelId,
      }),
    );
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

  /**
   * An embed job's vectors: checked and settled by the inference core; vectors that fail the check end the job as
   * failed for this node, at no charge (422).
   */
  async embeddingsOf(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobEmbeddings'>): Promise<void> {
    await this.nodes.touch(node.id);
    const { a, data } = await this.held(node, jobId);
    if (!data.embed) throw new ConflictException(`Job ${jobId} is not an embed job`);
    if (await this.redis.zrem(this.deadlinesKey(), jobId)) await this.nodes.firstTokenInTime(node.id);
    const vectors = body.embeddings.map(fromBase64);
    const problem = vectors.some((v) => !v)
      ? 'a vector is not whole float32 values'
      : await withRequestId(data.requestId, () =>
          this.embeddings.finish(data, node.id, vectors as Float32Array[], Date.now() - a.claimedAt, runOf(a)),
        );
    if (problem && vectors.some((v) => !v)) await this.embeddings.fail(data, node.id, runOf(a));
    await this.release(a, () => (problem ? this.leases.fail(a, problem) : this.leases.complete(a)));
    if (!problem) await this.spotChecks.afterEmbeddings(data.taskId, node.id, data, vectors as Float32Array[]);
    if (problem) throw new UnprocessableEntityException(`Job ${jobId} has ended: ${problem}`);
  }

  /** An embed job answered with text, or stopped: it ends as failed for its node, and nobody pays. */
  private async endEmbed(a: Assignment, data: InferenceJob, why: string): Promise<void> {
    this.logger.warn(`Node ${a.nodeId} ended embed job ${a.jobId} without vectors: ${why}`);
    await this.embeddings.fail(data, a.nodeId, runOf(a));
    await this.release(a, () => this.leases.fail(a, why));
  }

  /** A check of another owner's node's work waiting for this node, as a `verify` job. */
  private async replay(nodeId: string): Promise<Schemas['NodeJob'] | null> {
    const r = await this.peerReplays.next(nodeId);
    if (!r) return null;
    const jobId = `${REPLAY_JOB}${r.id}`;
    const { model_id, params } = r.job;
    await this.redis.set(this.replayKey(jobId), '1', 'EX', this.config.inference.replyTimeoutSeconds);
    await this.redis.sadd(this.heldKey(nodeId), jobId);
    return {
      job_id: jobId,
      model_id,
      kind: 'verify',
      ...generationInput(r.job),
      params: { temperature: params.temperature, max_tokens: params.max_tokens, top_p: params.top_p, seed: params.seed },
      tokens: this.peerReplays.tokensOf(r),
      top: VERIFY_TOP,
      lock_ms: this.config.inference.jobLockMs,
      first_token_ms: this.config.inference.nodeFirstTokenMs,
      max_bytes: 0,
    };
  }

  /** A `verify` job's events: only an `error` (it could not be run) is expected; anything else is an answer it cannot be. */
  private async replayEvents(node: NodeIdentity, jobId: string, final: NodeJobEvent | null): Promise<Schemas['NodeJobAck']> {
    await this.holdsReplay(node, jobId);
    await this.endReplay(node.id, jobId, null);
    if (final?.type !== 'error') throw new ConflictException(`Job ${jobId} is a verify job: it is answered with its recomputation`);
    return { stop: false };
  }

  /** POST /api/nodes/jobs/{jobId}/recomputation: a `verify` job's answer, handed to its check. */
  async recomputationOf(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobRecomputation'>): Promise<void> {
    await this.nodes.touch(node.id);
    if (!jobId.startsWith(REPLAY_JOB)) {
      // Another node's job is not this node's business (403), its own reply is answered with events (409).
      await this.held(node, jobId);
      throw new ConflictException(`Job ${jobId} is not a verify job`);
    }
    await this.holdsReplay(node, jobId);
    await this.endReplay(node.id, jobId, body.steps);
  }

  private async holdsReplay(node: NodeIdentity, jobId: string): Promise<void> {
    if (!(await this.redis.exists(this.replayKey(jobId))) || !(await this.redis.sismember(this.heldKey(node.id), jobId)))
      throw new ForbiddenException(`This node does not hold job ${jobId}`);
  }

  private async endReplay(nodeId: string, jobId: string, answer: string | null): Promise<void> {
    await this.redis.del(this.replayKey(jobId));
    await this.redis.srem(this.heldKey(nodeId), jobId);
    await this.peerReplays.answered(jobId.slice(REPLAY_JOB.length), nodeId, answer);
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

  /**
   * Token events go to the requester's stream, within the job's caps (bytes, events, and the node's events per
   * second: past one the job ends as failed, 413); a final `done` settles the reply by the platform's own count of
   * the text it relayed, an `error` ends it at no charge.
   */
  async events(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobEvents'>): Promise<Schemas['NodeJobAck']> {
    const events = body.events;
    if (events.length > NODE_EVENTS_MAX) throw new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE);
    const end = events.findIndex((e) => e.type !== 'token');
    if (end >= 0 && end !== events.length - 1) throw new BadRequestException('events: a done or error event must be the last');
    await this.nodes.touch(node.id);
    const final = end >= 0 ? (events[end] as Exclude<NodeJobEvent, { type: 'token' }>) : null;
    const text = events.map((e) => (e.type === 'token' ? e.text : '')).join('');
    if (Buffer.byteLength(text) > NODE_EVENTS_MAX_BYTES) throw new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE);
    const tokenEvents = events.length - (final ? 1 : 0);
    if (jobId.startsWith(REPLAY_JOB)) return this.replayEvents(node, jobId, final);
    const stopped = await this.afterStop(node, jobId, final);
    if (stopped) return stopped;
    const { a, data } = await this.held(node, jobId);
    if (data.embed && (tokenEvents > 0 || final?.type === 'done')) {
      await this.endEmbed(a, data, 'it sent text for an embed job');
      throw new ConflictException(`Job ${jobId} has ended: an embed job is answered with its vectors`);
    }
    if (tokenEvents > 0) await this.withinCaps(a, data, tokenEvents, Buffer.byteLength(text));
    if (text) {
      await this.replies.tokens(data, text);
      if (!a.firstTokenAt) {
        await this.save({ ...a, firstTokenAt: Date.now() });
        if (await this.redis.zrem(this.deadlinesKey(), jobId)) await this.nodes.firstTokenInTime(node.id);
      }
    }
    // The job's end is logged (and settled) in the id of the request that asked for the reply.
    const fields = { job_id: jobId, node_id: node.id, task_id: data.taskId, model: data.modelId };
    if (final?.type === 'done') {
      const reported = { promptTokens: final.usage.prompt_tokens, completionTokens: final.usage.completion_tokens };
      await withRequestId(data.requestId, async () => {
        this.logger.log({ msg: `Node ${node.id} finished job ${jobId} (${final.stop_reason})`, ...fields, stop_reason: final.stop_reason });
        await this.settle(a, data, final.stop_reason, reported, final.logprobs, final.commitment ?? null);
      });
    } else if (final?.type === 'error') {
      await withRequestId(data.requestId, async () => {
        this.logger.warn({ msg: `Node ${node.id} failed job ${jobId}: ${final.message}`, ...fields });
        await this.replies.fail(data, node.id, 'INTERNAL_ERROR', 0, runOf(a));
        await this.release(a, () => this.leases.fail(a, final.message));
      });
    }
    return { stop: !final && (await this.replies.stopRequested(data)) };
  }

  /** Counts what this call adds to the job; past a cap the job ends as failed for the node and nobody pays. */
  private async withinCaps(a: Assignment, data: InferenceJob, events: number, bytes: number): Promise<void> {
    const key = this.sentKey(a.jobId);
    const [[, sentBytes], [, sentEvents]] = (await this.redis
      .multi()
      .hincrby(key, 'bytes', bytes)
      .hincrby(key, 'events', events)
      .expire(key, this.config.inference.replyTimeoutSeconds + this.config.inference.streamTtlSeconds)
      .exec()) as [[null, number], [null, number], unknown];
    const perSecond = await this.limiter.add('node-events', a.nodeId, events, 1);
    const why =
      sentBytes > a.maxBytes
        ? `its text passed ${a.maxBytes} bytes, the most ${a.maxTokens} tokens can decode to`
        : sentEvents > a.maxEvents
          ? `it sent more than ${a.maxEvents} token events for at most ${a.maxTokens} tokens`
          : perSecond.count > this.config.inference.nodeEventsPerSecond
            ? `the node sent more than ${this.config.inference.nodeEventsPerSecond} token events in a second`
            : null;
    if (!why) return;
    this.logger.warn(`Node ${a.nodeId} went past a cap on job ${a.jobId}: ${why}`);
    await this.replies.fail(data, a.nodeId, 'WORKER_FAILED', 0, runOf(a));
    await this.release(a, () => this.leases.fail(a, `past a cap: ${why}`));
    throw new OverCapException(`Job ${a.jobId} has ended: ${why}.`);
  }

  /**
   * The reply is complete: priced by the platform's count of the prompt and of the text it relayed (at most the
   * completion cap the node was given); the node's own report is only recorded beside it.
   */
  private async settle(
    a: Assignment,
    data: InferenceJob,
    stopReason: StopReason,
    reported?: { promptTokens: number; completionTokens: number },
    logprobs?: TokenLogprob[],
    commitment: string | null = null,
  ) {
    const text = await this.replies.streamedText(data);
    const usage = { promptTokens: a.promptTokens, completionTokens: Math.min(a.maxTokens, await this.counter.countText(a.modelId, text)) };
    const now = Date.now();
    const completed = await this.replies.complete(data, a.nodeId, usage, stopReason, now - a.claimedAt, runOf(a), logprobs);
    const served = {
      taskId: data.taskId,
      nodeId: a.nodeId,
      job: data,
      seed: a.seed,
      text,
      completionTokens: usage.completionTokens,
      pooled: a.kind === 'pool',
      ...(logprobs ? { logprobs } : {}),
    };
    if (completed && !reported && usage.completionTokens > 0) {
      // Stopped by the platform after some text: the node is told at its next call (kept before the job is released,
      // so that call never finds the job simply gone) and commits then to what it had generated.
      const ttl = Math.ceil(this.config.inference.nodeStopCommitMs / 1000) + 60;
      await this.redis.set(this.stoppedKey(a.jobId), JSON.stringify({ ...served, maxTokens: a.maxTokens }), 'EX', ttl);
      await this.redis.zadd(this.stoppedDueKey(), Date.now() + this.config.inference.nodeStopCommitMs, a.jobId);
    }
    await this.release(a, () => this.leases.complete(a));
    if (completed) await this.recordSpeed(a, usage.completionTokens, now);
    if (completed && reported) {
      await this.tasks.recordReported(data.taskId, reported);
      // A reply the node ended at the cap its hold pays for says `budget` or `length`: the same end to the verifier.
      const end = stopReason === 'budget' ? 'length' : stopReason;
      await this.spotChecks.afterReply({ ...served, ended: { stopReason: end, commitment, maxTokens: a.maxTokens } });
    }
  }

  /**
   * A call of the node whose reply the platform stopped: it is told to stop (its tokens are no longer relayed) until
   * its done (or error) event, whose commitment the reply is then checked by as any other. Null for any other job.
   */
  private async afterStop(
    node: NodeIdentity,
    jobId: string,
    final: Exclude<NodeJobEvent, { type: 'token' }> | null,
  ): Promise<Schemas['NodeJobAck'] | null> {
    const raw = await this.redis.get(this.stoppedKey(jobId));
    if (!raw || (JSON.parse(raw) as StoppedReply).nodeId !== node.id) return null;
    if (final) await this.checkStopped(jobId, final.type === 'done' ? (final.commitment ?? null) : null);
    return { stop: true };
  }

  /** Stopped replies whose node never committed in time: checked as replies without a commitment. */
  async uncommittedStops(now = Date.now()): Promise<void> {
    for (const jobId of await this.redis.zrangebyscore(this.stoppedDueKey(), '-inf', now, 'LIMIT', 0, 100)) await this.checkStopped(jobId, null);
  }

  /** Whoever removes the stopped reply first (its node's call, or the sweep) has it checked, once. */
  private async checkStopped(jobId: string, commitment: string | null): Promise<void> {
    const raw = await this.redis.getdel(this.stoppedKey(jobId));
    await this.redis.zrem(this.stoppedDueKey(), jobId);
    if (!raw) return;
    const { maxTokens, ...served } = JSON.parse(raw) as StoppedReply;
    await this.spotChecks.afterReply({ ...served, ended: { stopReason: 'stopped', commitment, maxTokens } });
  }

  /**
   * A stop (the requester's, a client that left, a revoked API key, or the reaper's) ends a remote node's reply here
   * at once, with what was relayed so far, whatever the node does next: its following calls get 409.
   */
  private async endNow(jobId: string): Promise<void> {
    const a = await this.assignment(jobId);
    if (!a) return;
    const data = await this.leases.renew(a);
    if (!data) return;
    if (data.embed) return this.endEmbed(a, data, 'stopped');
    await this.settle(a, data, 'abort');
  }

  private async release(a: Assignment, end: () => Promise<void>): Promise<void> {
    await end();
    await this.redis.srem(this.heldKey(a.nodeId), a.jobId);
    await this.redis.zrem(this.deadlinesKey(), a.jobId);
  }

  /**
   * Jobs whose first token did not come in time go back to the queue for another node (or end at no charge if part
   * was sent), and their node is marked slow: MISSES_TO_PAUSE misses in a row pause it. Any API process may find a
   * job due; the one whose ZREM removes it handles it.
   */
  async missedDeadlines(now = Date.now()): Promise<number> {
    const due = await this.redis.zrangebyscore(this.deadlinesKey(), '-inf', now, 'LIMIT', 0, 100);
    let handled = 0;
    for (const jobId of due) {
      if (!(await this.redis.zrem(this.deadlinesKey(), jobId))) continue;
      try {
        const a = await this.assignment(jobId);
        if (!a || a.firstTokenAt) continue;
        const data = await this.leases.renew(a);
        if (data) await this.handBack(a, data);
        const missed = await this.nodes.missedFirstToken(a.nodeId, MISSES_TO_PAUSE, SLOW_NODE);
        this.logger.warn(`Node ${a.nodeId} sent no first token for job ${jobId} in time (${missed} in a row)`);
        handled++;
      } catch (err) {
        this.logger.warn(`First-token deadline of job ${jobId}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return handled;
  }

  /**
   * A node's speed as the platform saw it, on its own clock: the completion tokens it counted over the time from the
   * claim to the end, averaged over jobs, so holding tokens back and sending them in a burst only lowers it. Its
   * hardware score follows this speed once SCORE_WARMUP_TOKENS are measured, and is the lowest until then; what the
   * node claims (its benchmark, a GPU) never counts.
   */
  private async recordSpeed(a: Assignment, completionTokens: number, endedAt: number): Promise<void> {
    const ms = endedAt - a.claimedAt;
    if (completionTokens < 1 || ms <= 0) return;
    const node = await this.nodes.byId(a.nodeId);
    if (!node) return;
    const tps = completionTokens / (ms / 1000);
    const measured = node.measured_tps === null ? tps : node.measured_tps * (1 - SPEED_WEIGHT) + tps * SPEED_WEIGHT;
    const measuredTokens = Number(node.measured_tokens) + completionTokens;
    const score = measuredTokens >= SCORE_WARMUP_TOKENS ? hardwareScore(measured, false) : LOWEST_HARDWARE_SCORE;
    await this.nodes.setSpeed(a.nodeId, measured, measuredTokens, score);
  }

  /** The node gives a job back: to the queue for another node, or ended (no charge) if part of it was sent. */
  async giveBack(node: NodeIdentity, jobId: string): Promise<void> {
    await this.nodes.touch(node.id);
    if (jobId.startsWith(REPLAY_JOB)) {
      if (!(await this.redis.sismember(this.heldKey(node.id), jobId))) throw new ForbiddenException(`This node does not hold job ${jobId}`);
      return this.endReplay(node.id, jobId, null);
    }
    const { a, data } = await this.held(node, jobId);
    await this.handBack(a, data);
  }

  private async handBack(a: Assignment, data: InferenceJob): Promise<void> {
    if (await this.replies.started(data)) {
      await this.replies.fail(data, a.nodeId, 'WORKER_FAILED', 0, runOf(a));
      await this.release(a, () => this.leases.fail(a, 'given back after part of the reply was sent'));
    } else {
      await this.release(a, () => this.leases.giveBack(a));
    }
  }

  /** A heartbeat renews the lock of every job the node holds; jobs it lost are forgotten. */
  async renewAll(nodeId: string): Promise<void> {
    for (const jobId of await this.redis.smembers(this.heldKey(nodeId))) {
      if (jobId.startsWith(REPLAY_JOB)) {
        // A replay not finished within the reply timeout no longer takes a slot.
        if (!(await this.redis.exists(this.replayKey(jobId)))) await this.redis.srem(this.heldKey(nodeId), jobId);
        continue;
      }
      const a = await this.assignment(jobId);
      if (!a || a.nodeId !== nodeId || !(await this.leases.renew(a))) await this.redis.srem(this.heldKey(nodeId), jobId);
    }
  }

  /** A revoked node's jobs go back to the queue (or end, if part of the reply was sent). */
  async returnAll(nodeId: string): Promise<void> {
    for (const jobId of await this.redis.smembers(this.heldKey(nodeId))) {
      if (jobId.startsWith(REPLAY_JOB)) {
        await this.endReplay(nodeId, jobId, null);
        continue;
      }
      const a = await this.assignment(jobId);
      const data = a && a.nodeId === nodeId ? await this.leases.renew(a) : null;
      if (a && data) await this.handBack(a, data);
      else await this.redis.srem(this.heldKey(nodeId), jobId);
    }
  }
}
