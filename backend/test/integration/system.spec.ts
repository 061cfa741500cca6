import type Redis from 'ioredis';
import { REDIS } from '../../src/redis/redis.module';
import { expectSpecResponse } from '../support/contract';
import { startStack, TestStack } from '../support/app';

describe('system: health and platform statistics', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('reports PostgreSQL and Redis up', async () => {
    const res = await stack.http.get('/api/health').expect(200);
    expectSpecResponse(res, 'getHealth');
    expect(res.body.status).toBe('ok');
    expect(res.body.checks.database.status).toBe('up');
    expect(res.body.checks.redis.status).toBe('up');
  });

  it('answers honest zeros on an empty database, on both stats routes', async () => {
    for (const [path, op] of [
      ['/api/stats/platform', 'getPlatformStats'],
      ['/api/system/stats/platform', 'getSystemPlatformStats'],
    ] as const) {
      const res = await stack.http.get(path).expect(200);
      expectSpecResponse(res, op);
      expect(res.body).toMatchObject({
        active_users: 0,
        total_tasks: 0,
        data_processed_gb: 0,
        active_nodes: 0,
        connected_peers: 0,
        active_tasks: 0,
        pending_tasks: 0,
        success_rate: null,
      });
    }
  });

  it('counts users, tasks, data and recently seen nodes from the database', async () => {
    const [alice, bob] = (await stack.db.query(
      `INSERT INTO users (email, username) VALUES ('alice@example.com', 'alice'), ('bob@example.com', 'bob') RETURNING id`,
    )) as Array<{ id: string }>;
    await stack.db.query(`INSERT INTO users (email, username, deleted_at) VALUES (NULL, NULL, now())`);
    const [node] = (await stack.db.query(
      `INSERT INTO nodes (owner_id, name, host, last_seen_at) VALUES ($1, 'n1', 'h1', now()),
              ($1, 'n2', 'h2', now() - interval '5 seconds'),
              ($2, 'n3', 'h3', now() - interval '10 minutes') RETURNING id`,
      [alice!.id, bob!.id],
    )) as Array<{ id: string }>;
    await stack.db.query(
      `INSERT INTO inference_tasks (user_id, node_id, model_id, status, bytes_processed) VALUES
        ($1, $2, 'tiny', 'completed', 1500000000), ($1, $2, 'tiny', 'completed', 500000000),
        ($1, $2, 'tiny', 'completed', 0), ($1, $2, 'tiny', 'failed', 999),
        ($1, $2, 'tiny', 'running', 10), ($1, NULL, 'tiny', 'queued', 0), ($1, NULL, 'tiny', 'queued', 0)`,
      [alice!.id, node!.id],
    );
    const res = await stack.http.get('/api/stats/platform').expect(200);
    expectSpecResponse(res, 'getPlatformStats');
    expect(res.body).toMatchObject({
      active_users: 2,
      total_tasks: 3,
      data_processed_gb: 2,
      active_nodes: 2,
      connected_peers: 1,
      active_tasks: 1,
      pending_tasks: 2,
      success_rate: 75,
    });
  });

  it('reports degraded with 503 when Redis is gone', async () => {
    const redis = stack.app.get<Redis>(REDIS);
    redis.disconnect();
    try {
      const res = await stack.http.get('/api/health').expect(503);
      expectSpecResponse(res, 'getHealth');
      expect(res.body.status).toBe('degraded');
      expect(res.body.checks.redis.status).toBe('down');
      expect(res.body.checks.database.status).toBe('up');
      // Not ready, yet alive: a balancer stops sending it traffic, nothing restarts it.
      const ready = await stack.http.get('/api/health/ready').expect(503);
      expectSpecResponse(ready, 'getReadiness');
      expect(ready.body.checks.redis.status).toBe('down');
      const live = await stack.http.get('/api/health/live').expect(200);
      expectSpecResponse(live, 'getLiveness');
    } finally {
      // The client may already be reconnecting on its own (a health probe's command can start it).
      if (['end', 'close', 'wait'].includes(redis.status)) await redis.connect();
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    }
  });
});
