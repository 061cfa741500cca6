import { Inject, Injectable } from '@nestjs/common';
import { activeStreams } from '../../observability/metrics';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import { REDIS } from '../../redis/redis.module';

/** A slot lives this long unless renewed, so a crashed API process cannot hold a user's slots for good. */
const SLOT_TTL_MS = 60_000;
const RETRY_AFTER_SECONDS = 5;
export const TOO_MANY_STREAMS = `Too many open streams. Close one or try again in ${RETRY_AFTER_SECONDS} seconds.`;

// Drop expired slots, count, and take one if below the cap, atomically.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

export interface StreamSlot {
  release(): Promise<void>;
}

/** The open event streams of each user, across every API process (a sorted set per user in Redis). */
@Injectable()
export class StreamSlots {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Takes one of the user's slots, or 429 with Retry-After when all are in use. The slot renews itself until released. */
  async acquire(userId: string): Promise<StreamSlot> {
    const key = `${this.config.redis.prefix}:streams-open:${userId}`;
    const id = randomUUID();
    const now = Date.now();
    const ok = await this.redis.eval(ACQUIRE, 1, key, now, now + SLOT_TTL_MS, this.config.inference.streamsPerUser, id, SLOT_TTL_MS);
    if (ok !== 1) throw new RateLimitedException(RETRY_AFTER_SECONDS, TOO_MANY_STREAMS);
    const renew = setInterval(() => {
      this.redis.zadd(key, 'XX', Date.now() + SLOT_TTL_MS, id).catch(() => undefined);
    }, SLOT_TTL_MS / 3);
    renew.unref();
    let released = false;
    activeStreams.inc();
    return {
      release: async () => {
        if (released) return;
        released = true;
        activeStreams.dec();
        clearInterval(renew);
        await this.redis.zrem(key, id).catch(() => undefined);
      },
    };
  }
}
