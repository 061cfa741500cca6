import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { withScripts } from './scripts';

export const REDIS = Symbol('REDIS');

/** Options shared by the command client and BullMQ (which needs maxRetriesPerRequest: null for blocking calls). */
export function redisOptions(config: Pick<AppConfig, 'redis'>, forBullmq = false): RedisOptions {
  return {
    // Named after the deployment's prefix, so CLIENT LIST shows (and tests count) whose connections they are.
    connectionName: config.redis.prefix.replace(/[^A-Za-z0-9:_-]/g, '_'),
    lazyConnect: false,
    connectTimeout: 5_000,
    enableOfflineQueue: forBullmq,
    maxRetriesPerRequest: forBullmq ? null : 1,
    // The shared command client: commands issued in one turn of the event loop (many streams' appends, a node's
    // checks) go to Redis in one write. Never on BullMQ's blocking connections, nor on the stream hub's subscriber.
    enableAutoPipelining: !forBullmq,
  };
}

export function createRedis(config: Pick<AppConfig, 'redis'>, forBullmq = false): Redis {
  return withScripts(new Redis(config.redis.url, redisOptions(config, forBullmq)));
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
    this.logger.log('Redis connection closed');
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const redis = createRedis(config);
        redis.on('error', (err) => new Logger('Redis').warn(err.message));
        await new Promise<void>((resolve, reject) => {
          if (redis.status === 'ready') return resolve();
          redis.once('ready', () => resolve());
          redis.once('end', () => reject(new Error(`Cannot connect to Redis at ${config.redis.url}`)));
        });
        return redis;
      },
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
