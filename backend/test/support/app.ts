import 'reflect-metadata';
import { createDatabase, databaseUrl, dropDatabase, randomName } from '@glob/testing';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApi, createWorker } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/config/config';
import { testCatalog } from './catalog';

export interface TestStack {
  config: AppConfig;
  app: NestExpressApplication;
  http: ReturnType<typeof request>;
  /** The API listening on loopback, for clients that stream (fetch + SSE). */
  url: string;
  db: DataSource;
  worker?: INestApplicationContext;
  close(): Promise<void>;
}

/**
 * A real API (and optionally the worker) on a database of its own, copied from the run's migrated
 * template, and a Redis key prefix of its own. Everything is removed by close().
 */
/**
 * `host`: where the API listens (loopback by default; '0.0.0.0' for clients on test hosts in network namespaces);
 * `logs`: where the API's (and the in-process worker's) log lines go instead of stdout.
 */
export async function startStack(
  opts: { env?: Record<string, string>; worker?: boolean; host?: string; port?: number; logs?: { write(line: string): void } } = {},
): Promise<TestStack> {
  const template = process.env.GLOB_TEST_TEMPLATE_DB;
  if (!template) throw new Error('GLOB_TEST_TEMPLATE_DB is not set: run the tests through jest (global setup)');
  const name = `${template}_${randomName('f')}`.slice(0, 63);
  await createDatabase(name, { template });
  const prefix = `globtest:${name}`;
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(name),
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    SMTP_URL: '',
    // Tests speak from many client IPs through X-Forwarded-For, as behind a local proxy.
    TRUST_PROXY: 'loopback',
    PAYMENTS_TEST_MODE: 'true',
    // The in-process worker sends mail only; inference tests start real worker processes (test/support/worker.ts).
    WORKER_MODELS: 'none',
    MODEL_CATALOG: testCatalog(),
    // No agent package is served unless a test builds one (the repository's may or may not have been packed).
    NODE_AGENT_PACKAGE: '/nonexistent/glob-node-0.0.0.tgz',
    ...opts.env,
  });
  const app = await createApi(config, opts.logs);
  await app.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  const { port } = (app.getHttpServer() as import('node:http').Server).address() as import('node:net').AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const worker = opts.worker ? await createWorker(config, opts.logs) : undefined;
  return {
    config,
    app,
    http: request(app.getHttpServer()),
    url,
    db: app.get(DataSource),
    worker,
    async close() {
      await worker?.close();
      // Streaming clients (fetch keep-alive) would otherwise hold the server open.
      (app.getHttpServer() as import('node:http').Server).closeAllConnections();
      await app.close();
      const redis = new Redis(config.redis.url);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await dropDatabase(name);
    },
  };
}
