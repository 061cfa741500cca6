/** Remote replies the platform stopped, kept until their node commits to what it had generated, then checked. */
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { REDIS } from '../../redis/redis.module';
import { SpotChecksService, type ServedReply } from './spot-checks.service';

/** A reply the platform stopped, kept until its node commits to it: the reply less its end, and its cap. */
type StoppedReply = Omit<ServedReply, 'ended'> & { maxTokens: number };

/**
 * A remote node's reply that the platform stopped after some text: the node is told at its next call and commits then
 * to what it had generated, and the reply is checked by that commitment as any other (SpotChecksService.afterReply),
 * or without one once the commitment is overdue (NODE_STOP_COMMIT_MS). Kept in Redis by job id, so any API process
 * can take the node's call.
 */
@Injectable()
export class StoppedRepliesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly spotChecks: SpotChecksService,
  ) {}

  /**
   * A reply the platform stopped, waiting for its node's commitment (ServedReply less its end, and its cap, as JSON);
   * read by a streamed frame's script too (NodeJobStore.frame).
   */
  stoppedKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-job-stopped:${jobId}`;
  }

  /** Stopped replies by the time their node's commitment is due. */
  private stoppedDueKey(): string {
    return `${this.config.redis.prefix}:node-job-stopped-due`;
  }

  /** The commitment a node sent with its end of a reply that someone else had ended meanwhile ('' for none). */
  private lateKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-job-late-commitment:${jobId}`;
  }

  private ttlSeconds(): number {
    return Math.ceil(this.config.inference.nodeStopCommitMs / 1000) + 60;
  }

  /**
   * Keeps the stopped reply of job `jobId` until its node commits to it, or its commitment is overdue. A node whose
   * end crossed the stop may have sent its commitment already (endedAfterStop): the reply is then checked by it.
   */
  async keep(jobId: string, served: Omit<ServedReply, 'ended'>, maxTokens: number): Promise<void> {
    await this.redis.set(this.stoppedKey(jobId), JSON.stringify({ ...served, maxTokens }), 'EX', this.ttlSeconds());
    await this.redis.zadd(this.stoppedDueKey(), Date.now() + this.config.inference.nodeStopCommitMs, jobId);
    const late = await this.redis.get(this.lateKey(jobId));
    if (late !== null) await this.checkStopped(jobId, late || null);
  }

  /**
   * A node ended a reply that had already ended (a stop crossed its end): its commitment is kept for the stopped
   * reply, checked by it now if that is kept already, or when it is (keep). Each side writes before it reads what
   * the other wrote, so at least one of them sees both; checkStopped checks once.
   */
  async endedAfterStop(jobId: string, nodeId: string, commitment: string | null): Promise<void> {
    await this.redis.set(this.lateKey(jobId), commitment ?? '', 'EX', this.ttlSeconds());
    if (await this.waitsFor(jobId, nodeId)) await this.checkStopped(jobId, commitment);
  }

  /** Whether this node's reply of job `jobId` was stopped and waits for its commitment. */
  async waitsFor(jobId: string, nodeId: string): Promise<boolean> {
    const raw = await this.redis.get(this.stoppedKey(jobId));
    return !!raw && (JSON.parse(raw) as StoppedReply).nodeId === nodeId;
  }

  /** Stopped replies whose node never committed in time: checked as replies without a commitment. */
  async uncommittedStops(now = Date.now()): Promise<void> {
    for (const jobId of await this.redis.zrangebyscore(this.stoppedDueKey(), '-inf', now, 'LIMIT', 0, 100)) await this.checkStopped(jobId, null);
  }

  /** Whoever removes the stopped reply first (its node's call, or the sweep) has it checked, once. */
  async checkStopped(jobId: string, commitment: string | null): Promise<void> {
    const raw = await this.redis.getdel(this.stoppedKey(jobId));
    await this.redis.zrem(this.stoppedDueKey(), jobId);
    if (!raw) return;
    const { maxTokens, ...served } = JSON.parse(raw) as StoppedReply;
    await this.spotChecks.afterReply({ ...served, ended: { stopReason: 'stopped', commitment, maxTokens } });
  }
}
