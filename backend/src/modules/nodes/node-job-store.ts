/** Which node holds which remote job, by which lock token, and what it has sent: the node jobs' state in Redis. */
import { ConflictException, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import type { Redis, Result } from 'ioredis';
import { fixedWindowLua } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { JobLeases, type Lease } from '../../jobs/job-leases';
import type { InferenceJob } from '../../jobs/jobs';
import { REDIS } from '../../redis/redis.module';
import { defineScript, withScripts } from '../../redis/scripts';
import type { ReplyRun } from '../../observability/metrics';
import { appendLua } from '../inference/streams';
import { TasksRepository } from '../inference/tasks.repository';
import type { NodeIdentity } from './provider-nodes.repository';

/** Which node holds a job, with the lock token it holds it by; kept past the job's end so late calls get 409. */
export interface Assignment extends Lease {
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

/** The keys a streamed frame reads and writes beside the job's own (see NodeJobStore.frame). */
export interface FrameKeys {
  /** The stopped reply waiting for this node's commitment, if the platform stopped it (JSON with its `nodeId`). */
  stopped: string;
  /** The node's token events this second (RateLimiter's fixed window). */
  rate: string;
  /** The requester's stop (its value: the requester's user id). */
  stop: string;
  /** The reply's token stream. */
  stream: string;
}

/**
 * What a frame found: the reply stopped by the platform (nothing counted); a batch the job already took whole (sent
 * again after a call that timed out or a stream that broke: nothing counted twice); one that would leave a gap in the
 * job's events; or its counts, the requester's stop, and whether its text went on. `taken`/`events`: the job's token
 * events the platform has taken.
 */
export type FrameResult =
  | { kind: 'stopped' }
  | { kind: 'taken-before'; taken: number; stop: boolean; perSecond: number }
  | { kind: 'gap'; taken: number }
  | { kind: 'counted'; bytes: number; events: number; perSecond: number; stop: boolean; relayed: boolean };

/**
 * A frame of a node's reply in one script (one round trip; a frame is what a streaming node sends every 20 ms): the
 * platform's stop read; the node's rate added to (by every event sent, resent ones too) and the requester's stop read;
 * with the batch's `from`, the events the job took already skipped (a gap refused); the job's counts added to, and the
 * text appended to the reply's stream only within the caps (past one, nothing goes on and the caller ends the job).
 * KEYS: stopped, sent, rate, stop, stream. ARGV: node id, sent TTL s, rate window ms, requester id, max bytes, max
 * events, max events per second, from ('' for a batch without), then the text of each token event.
 */
const FRAME_LUA = `
local s = redis.call('GET', KEYS[1])
if s and cjson.decode(s).nodeId == ARGV[1] then return {0} end
${fixedWindowLua('KEYS[3]', 'ARGV[3]', '#ARGV - 8')}
local stop = redis.call('GET', KEYS[4]) == ARGV[4] and 1 or 0
local first = 9
if ARGV[8] ~= '' then
  local taken = tonumber(redis.call('HGET', KEYS[2], 'events') or '0')
  local from = tonumber(ARGV[8])
  if from > taken then return {3, taken} end
  first = first + taken - from
  if first > #ARGV then return {2, taken, stop, count} end
end
local text = table.concat(ARGV, '', first, #ARGV)
local bytes = redis.call('HINCRBY', KEYS[2], 'bytes', #text)
local events = redis.call('HINCRBY', KEYS[2], 'events', #ARGV - first + 1)
redis.call('EXPIRE', KEYS[2], ARGV[2])
if bytes > tonumber(ARGV[5]) or events > tonumber(ARGV[6]) or count > tonumber(ARGV[7]) or text == '' then
  return {1, bytes, events, count, stop, 0}
end
local event = cjson.encode({type = 'token', text = text})
${appendLua('KEYS[5]', 'event')}
return {1, bytes, events, count, stop, 1}
`;

defineScript('globNodeFrame', 5, FRAME_LUA);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    globNodeFrame(...args: Array<string | number>): Result<number[], Context>;
  }
}

/** How the node's reply ran, for the inference metrics. */
export const runOf = (a: Assignment): ReplyRun => ({ kind: a.kind ?? 'remote', firstTokenAt: a.firstTokenAt });

/**
 * Remote nodes take jobs from the same per-model queues as the in-cluster workers (BullMQ manual processing,
 * see JobLeases) and hand what they generate to the same inference core (RepliesService). Which node holds
 * which job, and by which lock token, lives in Redis, so any API process can answer any node.
 */
@Injectable()
export class NodeJobStore {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly leases: JobLeases,
    private readonly tasks: TasksRepository,
  ) {}

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

  /** What a job has carried so far: bytes of text and token events. */
  private sentKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-job-sent:${jobId}`;
  }

  async assignment(jobId: string): Promise<Assignment | null> {
    const raw = await this.redis.get(this.key(jobId));
    return raw ? (JSON.parse(raw) as Assignment) : null;
  }

  /** How long a job's assignment and counts outlive its start: past any reply's time and its stream's. */
  private ttlSeconds(): number {
    return this.config.inference.replyTimeoutSeconds + this.config.inference.streamTtlSeconds;
  }

  async save(a: Assignment): Promise<void> {
    await this.redis.set(this.key(a.jobId), JSON.stringify(a), 'EX', this.ttlSeconds());
  }

  /**
   * The node now holds the job: its assignment, one of the node's held jobs, due its first token within the deadline;
   * all three at once (one round trip, and never a job held in part).
   */
  async hold(a: Assignment): Promise<void> {
    await this.redis
      .multi()
      .set(this.key(a.jobId), JSON.stringify(a), 'EX', this.ttlSeconds())
      .sadd(this.heldKey(a.nodeId), a.jobId)
      .zadd(this.deadlinesKey(), a.claimedAt + this.config.inference.nodeFirstTokenMs, a.jobId)
      .exec();
  }

  /** How many jobs the node holds (its verify jobs included). */
  heldCount(nodeId: string): Promise<number> {
    return this.redis.scard(this.heldKey(nodeId));
  }

  /** The ids of the jobs the node holds. */
  heldJobs(nodeId: string): Promise<string[]> {
    return this.redis.smembers(this.heldKey(nodeId));
  }

  async holds(nodeId: string, jobId: string): Promise<boolean> {
    return (await this.redis.sismember(this.heldKey(nodeId), jobId)) === 1;
  }

  /** One more job the node holds (a verify job: it has no assignment). */
  async addHeld(nodeId: string, jobId: string): Promise<void> {
    await this.redis.sadd(this.heldKey(nodeId), jobId);
  }

  /** The job no longer counts among the node's. */
  async forget(nodeId: string, jobId: string): Promise<void> {
    await this.redis.srem(this.heldKey(nodeId), jobId);
  }

  /**
   * Takes the job off the first-token deadlines: true for the caller whose ZREM removed it (its first token came in
   * time, or it is the one API process that handles the missed deadline).
   */
  async clearDeadline(jobId: string): Promise<boolean> {
    return (await this.redis.zrem(this.deadlinesKey(), jobId)) > 0;
  }

  /** Jobs whose first-token deadline has passed (at most 100). */
  dueDeadlines(now: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.deadlinesKey(), '-inf', now, 'LIMIT', 0, 100);
  }

  /**
   * One frame of token events (see FRAME_LUA): `texts` each event's text, `from` the batch's place among the job's
   * token events (undefined: taken as it comes), `perSecondCap` the node's most token events a second, counted in
   * windows of `rateWindowMs`.
   */
  async frame(
    a: Assignment,
    keys: FrameKeys,
    requester: string,
    texts: string[],
    from: number | undefined,
    perSecondCap: number,
    rateWindowMs: number,
  ): Promise<FrameResult> {
    // Its answer's fields by what it found: [0], [2, taken, stop, per second], [3, taken], [1, bytes, events, per second, stop, relayed].
    const [found, x, y, z, stop, relayed] = await withScripts(this.redis).globNodeFrame(
      keys.stopped,
      this.sentKey(a.jobId),
      keys.rate,
      keys.stop,
      keys.stream,
      a.nodeId,
      this.ttlSeconds(),
      rateWindowMs,
      requester,
      a.maxBytes,
      a.maxEvents,
      perSecondCap,
      from ?? '',
      ...texts,
    );
    if (found === 0) return { kind: 'stopped' };
    if (found === 2) return { kind: 'taken-before', taken: x!, stop: y === 1, perSecond: z! };
    if (found === 3) return { kind: 'gap', taken: x! };
    return { kind: 'counted', bytes: x!, events: y!, perSecond: z!, stop: stop === 1, relayed: relayed === 1 };
  }

  async release(a: Assignment, end: () => Promise<void>): Promise<void> {
    await end();
    await this.redis.multi().srem(this.heldKey(a.nodeId), a.jobId).zrem(this.deadlinesKey(), a.jobId).exec();
  }

  /**
   * The job this node holds, its lock renewed: 403 when it does not hold it (never claimed, or lost the lock),
   * 409 when the reply has ended.
   */
  async held(node: NodeIdentity, jobId: string): Promise<{ a: Assignment; data: InferenceJob }> {
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
}
