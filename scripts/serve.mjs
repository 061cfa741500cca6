#!/usr/bin/env node
// make serve: production build, migrations, then one API process (serving /api and the built web app on PORT)
// and one worker process, in the foreground. Ctrl-C stops both.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDatabase, ensureRedis, log, onShutdown, root, runOrFail, start } from './lib.mjs';

if (!process.argv.includes('--no-build')) {
  log('Building backend and web app');
  await runOrFail('Backend build', 'npm', ['run', 'build', '-w', 'backend']);
  await runOrFail('Web build', 'npm', ['run', 'build', '-w', 'frontend']);
}

// Production refuses to invent secrets; for a local `make serve` they are generated once and kept in .data/.
let secrets = {};
if (!process.env.JWT_ACCESS_SECRET || !process.env.JWT_REFRESH_SECRET) {
  const file = join(root, '.data', 'serve-secrets.json');
  if (existsSync(file)) secrets = JSON.parse(readFileSync(file, 'utf8'));
  else {
    secrets = { JWT_ACCESS_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };
    mkdirSync(join(root, '.data'), { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  log('JWT secrets: generated for this machine in .data/serve-secrets.json (set JWT_ACCESS_SECRET and JWT_REFRESH_SECRET in a real deployment)');
}

const children = [];
const db = await ensureDatabase();
const redisUrl = await ensureRedis(children);
const port = process.env.PORT ?? '3000';
const env = {
  NODE_ENV: 'production',
  ...secrets,
  DATABASE_URL: db.url,
  ...(db.poolSize ? { DATABASE_POOL_SIZE: db.poolSize } : {}),
  REDIS_URL: redisUrl,
  PORT: port,
  WEB_DIST: join(root, 'frontend', 'dist'),
  WEB_ORIGIN: process.env.WEB_ORIGIN ?? `http://localhost:${port}`,
};
onShutdown(children, db.stop);

await runOrFail('Tiny model', 'npm', ['run', '--silent', 'model:tiny', '-w', 'backend'], env);
log('Migrating the database');
await runOrFail('Migrations', 'node', ['backend/dist/database/cli.js', 'migrate'], env);
// A process that dies is started again (with backoff); Ctrl-C stops them all.
start(children, 'api', 'node', ['backend/dist/main.js'], env, { restart: true });
start(children, 'worker', 'node', ['backend/dist/worker.js'], env, { restart: true });
log(`Glob Network: http://localhost:${port}  (API docs: http://localhost:${port}/api/docs). Ctrl-C stops it.`);
