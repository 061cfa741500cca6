#!/usr/bin/env node
// The real backend serving the production build, for the `full-stack` Playwright project.
// Creates a random PostgreSQL database, migrates it, starts the API (serving frontend/dist) and the worker with
// NODE_ENV=test on a free port and a unique Redis prefix, and drops the database when it stops (SIGINT/SIGTERM).
//
//   node e2e/support/stack.mjs            starts, prints "stack ready <url>", runs until stopped
//   E2E_DB=name E2E_PORT=4310 ...         fixed database name / port (the Playwright config sets both)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const backend = join(root, 'backend');
const pg = createRequire(join(backend, 'package.json'))('pg');

export const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name) {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(sql) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitForHealth(url, children, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const c of children) if (c.exitCode !== null) throw new Error(`${c.spawnargs.join(' ')} exited with ${c.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`The API did not become healthy at ${url}`);
}

export async function startStack({ dbName, port, log = process.env.E2E_STACK_LOG === '1' } = {}) {
  for (const file of ['dist/main.js', 'dist/worker.js', 'dist/database/cli.js']) {
    if (!existsSync(join(backend, file))) throw new Error(`backend/${file} is missing: run \`npm run build -w backend\` first`);
  }
  if (!existsSync(join(root, 'frontend/dist/index.html'))) throw new Error('frontend/dist is missing: run `npm run build -w frontend` first');
  const name = dbName ?? `glob_e2e_${randomBytes(5).toString('hex')}`;
  const listen = port ?? (await freePort());
  const url = `http://127.0.0.1:${listen}`;
  await admin(`CREATE DATABASE "${name}"`);
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(name),
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `e2e_${name}`,
    PORT: String(listen),
    HOST: '127.0.0.1',
    WEB_DIST: join(root, 'frontend/dist'),
    WEB_ORIGIN: url,
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    CONTACT_RATE_LIMIT: '100',
    ANALYTICS_RATE_LIMIT: '1000',
    LOG_LEVEL: log ? 'log' : 'warn',
    WORKER_CONCURRENCY: '1',
    INFERENCE_THREADS: '1',
  };
  const children = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise((r) => {
            if (c.exitCode !== null || c.signalCode) return r();
            c.once('exit', r);
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 8000).unref();
          }),
      ),
    );
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((e) => console.error('[stack] drop failed:', e.message));
  };
  try {
    const migrate = spawnSync(process.execPath, [join(backend, 'dist/database/cli.js'), 'migrate'], { env, cwd: root, encoding: 'utf8' });
    if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr || migrate.stdout}`);
    const io = log ? 'inherit' : ['ignore', 'ignore', 'inherit'];
    children.push(spawn(process.execPath, [join(backend, 'dist/main.js')], { env, cwd: root, stdio: io }));
    children.push(spawn(process.execPath, [join(backend, 'dist/worker.js')], { env, cwd: root, stdio: io }));
    await waitForHealth(url, children);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dbName: name, databaseUrl: databaseUrl(name), stop };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stack = await startStack({
    dbName: process.env.E2E_DB || undefined,
    port: process.env.E2E_PORT ? Number(process.env.E2E_PORT) : undefined,
  });
  console.log(`stack ready ${stack.url} (database ${stack.dbName})`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, shutdown);
  setInterval(() => undefined, 1 << 30); // keep running until a signal arrives
}
