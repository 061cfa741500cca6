import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { REDIS } from '../../redis/redis.module';

/** BullMQ's highest (least urgent) job priority. */
export const MAX_PRIORITY = 2_097_151;

/**
 * The fair-queueing rule: a reply's queue priority (lower is taken sooner, first come first served within one
 * priority) is 1 + the number of the same user's replies of that model already waiting or running. A burst of 20
 * gets 1..20, and another user's reply (1) goes before the burst's second. Never 0: BullMQ takes unprioritized
 * jobs before every prioritized one.
 */
export const fairPriority = (openBefore: number): number => Math.min(MAX_PRIORITY, 1 + Math.max(0, Math.floor(openBefore)));

/** How long past the reply timeout an entry outlives its reply unless removed (the reaper ends every reply by then). */
const LEAK_MARGIN_MS = 60_000;

// Drop expired entries, add this reply (score: when it expires), keep the key as long as its newest entry; answer
// how many of the user's replies of the model are open, this one included.
const JOIN = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('ZCARD', KEYS[1])
`;

const COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
`;

/**
 * Each user's open replies per model (queued or running), across every API process and worker: a sorted set of
 * stream ids per user and model in Redis, scored by when an entry expires, so an end that is never reported (a
 * crashed process) cannot hold a user's place for good. Replies join as they are enqueued and leave when their task
 * ends, however it ends (TasksService.finish).
 */
@Injectable()
export class FairQueue {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  private key(userId: string, modelId: string): string {
    return `${this.config.redis.prefix}:fair:${modelId}:${userId}`;
  }

  private get ttlMs(): number {
    return this.config.inference.replyTimeoutSeconds * 1000 + LEAK_MARGIN_MS;
  }

  /** Counts the reply among the user's open ones and answers its queue priority. */
  async join(userId: string, modelId: string, streamId: string): Promise<number> {
    const now = Date.now();
    const open = Number(await this.redis.eval(JOIN, 1, this.key(userId, modelId), now, now + this.ttlMs, streamId, this.ttlMs));
    return fairPriority(open - 1);
  }

  /** The reply ended (or never made it to the queue). */
  async leave(userId: string, modelId: string, streamId: string): Promise<void> {
    await this.redis.zrem(this.key(userId, modelId), streamId);
  }

  /** The user's replies of the model waiting or running. */
  async open(userId: string, modelId: string): Promise<number> {
    return Number(await this.redis.eval(COUNT, 1, this.key(userId, modelId), Date.now()));
  }
}
