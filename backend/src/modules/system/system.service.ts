import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Redis from 'ioredis';
import type { Schemas } from '../../contract/types';
import { REDIS } from '../../redis/redis.module';
import { StatsRepository } from './stats.repository';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

const uptime = () => Math.round(process.uptime() * 10) / 10;

async function timed(check: () => Promise<unknown>): Promise<Schemas['HealthCheck']> {
  const start = process.hrtime.bigint();
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2000 ms')), 2000).unref())]);
    return { status: 'up', latency_ms: Number(process.hrtime.bigint() - start) / 1e6 };
  } catch (err) {
    return { status: 'down', latency_ms: null, error: err instanceof Error ? err.message : String(err) };
  }
}

@Injectable()
export class SystemService {
  constructor(
    private readonly stats: StatsRepository,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Alive: the process answers, whatever its dependencies do. */
  liveness(): Schemas['Liveness'] {
    return { status: 'ok', uptime_seconds: uptime(), version: VERSION };
  }

  /**
   * Ready: PostgreSQL and Redis answer; for a worker (`models` given, what it has loaded) also at least one model
   * loaded. `ok` only when every check is up.
   */
  async readiness(models?: string[]): Promise<Schemas['Health']> {
    const [database, redis] = await Promise.all([timed(() => this.stats.ping()), timed(() => this.redis.ping())]);
    const checks: Schemas['Health']['checks'] = { database, redis };
    if (models) {
      checks.models = models.length ? { status: 'up', latency_ms: 0 } : { status: 'down', latency_ms: null, error: 'No model loaded' };
    }
    return {
      status: Object.values(checks).every((c) => c.status === 'up') ? 'ok' : 'degraded',
      checks,
      uptime_seconds: uptime(),
      version: VERSION,
    };
  }

  /** Counted from the database on every call: with nothing recorded, honest zeros. */
  async platformStats(): Promise<Schemas['PlatformStats']> {
    const row = await this.stats.counts();
    const completed = Number(row.total_tasks);
    const failed = Number(row.failed_tasks);
    const finished = completed + failed;
    return {
      active_users: Number(row.active_users),
      total_tasks: completed,
      data_processed_gb: Math.round(Number(row.bytes_processed) / 1e7) / 100,
      active_nodes: Number(row.active_nodes),
      connected_peers: Number(row.connected_peers),
      active_tasks: Number(row.active_tasks),
      pending_tasks: Number(row.pending_tasks),
      success_rate: finished === 0 ? null : Math.round((completed / finished) * 1000) / 10,
      updated_at: new Date().toISOString(),
    };
  }
}
