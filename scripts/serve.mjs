#!/usr/bin/env node
// make serve: production build, migrations, then one API process (serving /api and the built web app on PORT)
// and one worker process, in the foreground. Ctrl-C stops both. With API_PROCESSES=n (n > 1), n API processes on
// the ports after PORT behind nginx (ops/nginx/api-proxy.conf) on PORT, round robin.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkPorts,
  has,
  nginxForApis,
  embeddedDatabase,
  ensureDatabase,
  ensureRedis,
  localRedisPrefix,
  log,
  onShutdown,
  packNodeAgent,
  root,
  runOrFail,
  start,
} from './lib.mjs';

const port = process.env.PORT ?? '3000';
const workerPort = process.env.WORKER_PORT ?? '9464';
const apiProcesses = Number(process.env.API_PROCESSES ?? '1');
if (!Number.isInteger(apiProcesses) || apiProcesses < 1) {
  console.error(`API_PROCESSES must be a whole number of at least 1 (got ${process.env.API_PROCESSES})`);
  process.exit(2);
}
if (apiProcesses > 1 && !has('nginx', ['-v'])) {
  console.error('API_PROCESSES > 1 runs the API processes behind nginx, which is not installed (apt-get install nginx-light)');
  process.exit(2);
}
/** Where each API process listens: PORT itself, or behind nginx on PORT the ports after it. */
const apiPorts = apiProcesses === 1 ? [port] : Array.from({ length: apiProcesses }, (_, i) => String(Number(port) + 1 + i));
await checkPorts([
  { port, what: 'the API and web app', setting: 'PORT' },
  ...apiPorts.filter((p) => p !== port).map((p) => ({ port: p, what: 'an API process behind nginx', setting: 'PORT' })),
  { port: workerPort, what: "the worker's metrics", setting: 'WORKER_PORT' },
  ...(process.env.DATABASE_URL ? [] : [{ port: embeddedDatabase().port, what: 'the embedded PostgreSQL', setting: 'PGLITE_PORT' }]),
]);

if (!process.argv.includes('--no-build')) {
  log('Building backend and web app');
  await runOrFail('Backend build', 'npm', ['run', 'build', '-w', 'backend']);
  await runOrFail('Web build', 'npm', ['run', 'build', '-w', 'frontend']);
}

// Production refuses to invent secrets; for a local `make serve` the missing ones are generated once and kept in .data/.
const SECRET_NAMES = ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'TWO_FACTOR_KEY', 'METRICS_TOKEN'];
let secrets = {};
const missing = SECRET_NAMES.filter((name) => !process.env[name]);
if (missing.length) {
  const file = join(root, '.data', 'serve-secrets.json');
  const stored = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const kept = SECRET_NAMES.every((name) => stored[name]);
  // Each is 32 random bytes in hex (TWO_FACTOR_KEY must be exactly that; the JWT secrets and METRICS_TOKEN need 32+ and 16+ characters).
  for (const name of SECRET_NAMES) stored[name] ??= randomBytes(32).toString('hex');
  if (!kept) {
    mkdirSync(join(root, '.data'), { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  secrets = Object.fromEntries(missing.map((name) => [name, stored[name]]));
  log(`${missing.join(', ')}: generated for this machine in .data/serve-secrets.json (set ${SECRET_NAMES.join(', ')} in a real deployment)`);
}

const children = [];
const db = await ensureDatabase();
const redisUrl = await ensureRedis(children);
const env = {
  NODE_ENV: 'production',
  ...secrets,
  DATABASE_URL: db.url,
  ...(db.poolSize ? { DATABASE_POOL_SIZE: db.poolSize } : {}),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: localRedisPrefix(port),
  PORT: port,
  WEB_DIST: join(root, 'frontend', 'dist'),
  WEB_ORIGIN: process.env.WEB_ORIGIN ?? `http://localhost:${port}`,
  // The worker's metrics and health probes.
  WORKER_PORT: workerPort,
  // No mail server: e-mails, sign-up codes included, are written to the log (as under make dev).
  ...(process.env.SMTP_URL ? {} : { MAIL_LOG_TEXT: process.env.MAIL_LOG_TEXT ?? 'true' }),
};
onShutdown(children, db.stop);

await runOrFail('Tiny model', 'npm', ['run', '--silent', 'model:tiny', '-w', 'backend'], env);
// The pairing command runs the agent package the API serves: this checkout's agent.
if (!process.env.NODE_AGENT_PACKAGE && !process.env.NODE_AGENT_NPM_NAME) env.NODE_AGENT_PACKAGE = await packNodeAgent();
log('Migrating the database');
await runOrFail('Migrations', 'node', ['backend/dist/database/cli.js', 'migrate'], env);
// A process that dies is started again (with backoff); Ctrl-C stops them all.
for (const [i, p] of apiPorts.entries()) {
  const behindProxy = apiProcesses > 1 ? { PORT: p, HOST: '127.0.0.1', TRUST_PROXY: process.env.TRUST_PROXY ?? 'loopback' } : {};
  start(children, apiProcesses > 1 ? `api-${i + 1}` : 'api', 'node', ['backend/dist/main.js'], { ...env, ...behindProxy }, { restart: true });
}
if (apiProcesses > 1) {
  start(children, 'nginx', 'nginx', nginxForApis(join(root, '.data', 'nginx'), port, apiPorts), {}, { restart: true });
  log(`${apiProcesses} API processes on ports ${apiPorts.join(', ')}, behind nginx on ${port}`);
}
start(children, 'worker', 'node', ['backend/dist/worker.js'], env, { restart: true });
log(`Glob Network: http://localhost:${port}  (API docs: http://localhost:${port}/api/docs). Ctrl-C stops it.`);
if (!process.env.SMTP_URL) log('E-mail: no SMTP_URL, so e-mails (and sign-up codes) are written to the api/worker log');
log(
  `Metrics: http://localhost:${port}/metrics and http://localhost:${env.WORKER_PORT}/metrics with Authorization: Bearer <METRICS_TOKEN>${secrets.METRICS_TOKEN ? ' (in .data/serve-secrets.json)' : ''}`,
);
