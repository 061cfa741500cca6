/** Which node holds which remote job, by which lock token, and what it has sent: the node jobs' state in Redis. */
import { ConflictException, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { JobLeases, type Lease } from '../../jobs/job-leases';
import type { InferenceJob } from '../../jobs/jobs';
import { REDIS } from '../../redis/redis.module';
import type { ReplyRun } from '../../observability/metrics';
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

  async save(a: Assignment): Promise<void> {
    const ttl = this.config.inference.replyTimeoutSeconds + this.config.inference.streamTtlSeconds;
    await this.redis.set(this.key(a.jobId), JSON.stringify(a), 'EX', ttl);
  }

  /** The node now holds the job: its assignment, one of the node's held jobs, due its first token within the deadline. */
  async hold(a: Assignment): Promise<void> {
    await this.save(a);
    await this.redis.sadd(this.heldKey(a.nodeId), a.jobId);
    await this.redis.zadd(this.deadlinesKey(), a.claimedAt + this.config.inference.nodeFirstTokenMs, a.jobId);
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

  /** Adds this call's text and token events to what the job has carried; answers the totals. */
  async countSent(jobId: string, bytes: number, events: number): Promise<{ bytes: number; events: number }> {
    const key = this.sentKey(jobId);
    // Three commands sent at once (the client pipelines them with whatever else this turn sends); each count is atomic.
    const [sentBytes, sentEvents] = await Promise.all([
      this.redis.hincrby(key, 'bytes', bytes),
      this.redis.hincrby(key, 'events', events),
      this.redis.expire(key, this.config.inference.replyTimeoutSeconds + this.config.inference.streamTtlSeconds),
    ]);
    return { bytes: sentBytes, events: sentEvents };
  }

  async release(a: Assignment, end: () => Promise<void>): Promise<void> {
    await end();
    await this.redis.srem(this.heldKey(a.nodeId), a.jobId);
    await this.redis.zrem(this.deadlinesKey(), a.jobId);
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
