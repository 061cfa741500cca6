#!/usr/bin/env node
// make dev: database + Redis (found or started), migrations, then API, worker and web dev server with reload.
import {
  checkPorts,
  embeddedDatabase,
  ensureDatabase,
  ensureRedis,
  localRedisPrefix,
  log,
  onShutdown,
  packNodeAgent,
  runOrFail,
  scriptCommand,
  start,
} from './lib.mjs';

const apiPort = process.env.PORT ?? '3000';
const webPort = process.env.WEB_PORT ?? '5173';
const workerPort = process.env.WORKER_PORT ?? '9464';
await checkPorts([
  { port: apiPort, what: 'the API', setting: 'PORT' },
  { port: webPort, what: 'the web dev server', setting: 'WEB_PORT' },
  { port: workerPort, what: "the worker's metrics", setting: 'WORKER_PORT' },
  ...(process.env.DATABASE_URL ? [] : [{ port: embeddedDatabase().port, what: 'the embedded PostgreSQL', setting: 'PGLITE_PORT' }]),
]);

const children = [];
const db = await ensureDatabase();
const redisUrl = await ensureRedis(children);
const env = {
  NODE_ENV: 'development',
  DATABASE_URL: db.url,
  ...(db.poolSize ? { DATABASE_POOL_SIZE: db.poolSize } : {}),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: localRedisPrefix(apiPort),
  PORT: apiPort,
  WEB_ORIGIN: process.env.WEB_ORIGIN ?? `http://localhost:${webPort}`,
  // Buying a package credits at once, without a payment (never in production; set STRIPE_* to use Stripe).
  PAYMENTS_TEST_MODE: process.env.PAYMENTS_TEST_MODE ?? 'true',
  // Whose node the local worker is: sign up with this address to receive its task rewards.
  WORKER_OWNER_EMAIL: process.env.WORKER_OWNER_EMAIL ?? 'provider@example.com',
  // The worker's metrics and health probes.
  WORKER_PORT: workerPort,
  // Log lines for a terminal (make serve and production write one JSON object per line).
  LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty',
  // Nodes talk to the API itself, not through the web dev server's proxy (which runs only while make dev does).
  PUBLIC_API_URL: process.env.PUBLIC_API_URL ?? `http://localhost:${apiPort}`,
};
const stop = onShutdown(children, db.stop);

// A model to chat with out of the box: the tiny GGUF the project generates (first run only).
log('Model: the generated tiny model (.data/models/glob-tiny-chat.gguf)');
await runOrFail('Tiny model', 'npm', ['run', '--silent', 'model:tiny', '-w', 'backend'], env);

// The pairing command runs the agent package the API serves: this checkout's agent.
if (!process.env.NODE_AGENT_PACKAGE && !process.env.NODE_AGENT_NPM_NAME) env.NODE_AGENT_PACKAGE = await packNodeAgent();

log('Migrating the database');
await runOrFail('Migrations', 'npm', ['run', '--silent', 'db:migrate', '-w', 'backend'], env);

for (const [name, workspace, script, extraArgs, scriptEnv] of [
  ['api', 'backend', 'dev:api', [], env],
  ['worker', 'backend', 'dev:worker', [], env],
  ['web', 'frontend', 'dev', ['--port', webPort, '--strictPort'], { API_URL: `http://localhost:${apiPort}`, WEB_PORT: webPort }],
]) {
  const { cmd, args, cwd } = scriptCommand(workspace, script, extraArgs);
  start(children, name, cmd, args, scriptEnv, { cwd });
}

log(`Web app:  http://localhost:${webPort}`);
log(`API:      http://localhost:${apiPort}/api  (docs: http://localhost:${apiPort}/api/docs)`);
log(
  `Metrics:  http://localhost:${apiPort}/metrics and http://localhost:${env.WORKER_PORT}/metrics, Authorization: Bearer <metricsToken in .data/dev-secrets.json>`,
);
log(
  process.env.SMTP_URL
    ? `E-mail:   ${process.env.SMTP_URL}`
    : 'E-mail:   no SMTP_URL, so e-mails (and sign-up codes) are printed in the api/worker log',
);
log(`Node owner: ${env.WORKER_OWNER_EMAIL} earns the rewards of this machine's worker (sign up with it, or set WORKER_OWNER_EMAIL)`);
log('Ctrl-C stops everything.');
process.stdin.resume?.();
void stop;
