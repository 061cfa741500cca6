import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { REDIS } from '../redis/redis.module';

/** Where every stop is announced (the stream id): whoever generates that reply, worker or the API for a remote node, ends it. */
export const stopChannel = (prefix: string) => `${prefix}:inference:stop`;

/** Where a stop for a stream waits for its worker; the value is the user who asked. */
export const stopKey = (prefix: string, streamId: string) => `${prefix}:stop:${streamId}`;

/**
 * How a running reply is told to stop, by whoever decides it (its requester, a revoked key): the stop is kept for its
 * generator to find and announced at once, so a reply stops without the decider knowing who generates it.
 */
@Injectable()
export class StopSignals {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async stop(userId: string, streamId: string): Promise<void> {
    await this.redis.set(stopKey(this.config.redis.prefix, streamId), userId, 'EX', 3600);
    await this.redis.publish(stopChannel(this.config.redis.prefix), streamId);
  }
}
