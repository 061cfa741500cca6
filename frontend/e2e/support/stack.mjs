#!/usr/bin/env node
// The real platform for the `full-stack` Playwright project, run the way `make serve` runs it: this script starts
// `scripts/serve.mjs --no-build` (production API serving frontend/dist + worker, NODE_ENV=production, the tiny model
// written by `npm run model:tiny` and loaded by the worker, migrations) on a database and a Redis prefix of its own,
// and, in this process, what a real deployment has elsewhere:
//   - an SMTP server that keeps every e-mail: the sign-up and deletion codes are read from it;
//   - a local OAuth 2 / OpenID Connect server standing in for Google (both from @glob/testing, as the backend's tests);
//   - a stand-in for Stripe: its Checkout Sessions API, and a checkout page whose 'Pay' delivers the signed
//     `checkout.session.completed` webhook to the API and returns to the session's success URL (production refuses
//     test-mode purchases, so the platform is paid as a real deployment is);
//   - a small control endpoint for the tests: GET /ready, GET /mail?to=&since=, POST /oauth/profile.
// Published release files go to provider-model.json's `releases` folder (emptied at start).
// It drops the database when it stops (SIGINT/SIGTERM).
//
//   node e2e/support/stack.mjs     starts, prints "stack ready <url>", runs until stopped
//   E2E_DB=name E2E_PORT=4310 E2E_CONTROL_PORT=4311 ...   fixed database name / ports (the Playwright config sets them)
//   E2E_STACK_LOG=1                the API's and worker's logs at level `log` (default: warnings only)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, databaseUrl, dropDatabase, freePort, query, startOAuthServer, startSmtpCatcher } from '@glob/testing';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const backend = join(root, 'backend');
const fromBackend = createRequire(join(backend, 'package.json'));

/** The stack database's PostgreSQL server: E2E_PG_URL, else the tests' (TEST_DATABASE_URL, else DATABASE_URL, else local). */
const PG_SERVER = process.env.E2E_PG_URL;
export const TINY_MODEL_ID = 'glob-tiny-chat';
const PROVIDER_MODEL = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'provider-model.json'), 'utf8'));

/**
 * The stack's catalog: the built-in one plus the provider-only models (last, so the defaults stay the tiny model). The
 * platform holds their files (the tiny model's weights under their names) outside its models directory (it challenges
 * nodes with them; its worker, which loads the tiny model alone, never serves them); nodes find them by file name.
 */
function writeCatalog() {
  const builtIn = JSON.parse(readFileSync(join(backend, 'models', 'catalog.example.json'), 'utf8'));
  const tiny = builtIn.models.find((m) => m.id === TINY_MODEL_ID);
  const catalog = join(root, PROVIDER_MODEL.catalog);
  mkdirSync(dirname(catalog), { recursive: true });
  const providers = [PROVIDER_MODEL, PROVIDER_MODEL.desktop, PROVIDER_MODEL.installer].map(({ id, name, file }) => {
    const path = join(root, dirname(PROVIDER_MODEL.catalog), file);
    rmSync(path, { force: true });
    symlinkSync(join(root, '.data', 'models', tiny.path), path);
    return { ...tiny, id, name, path };
  });
  writeFileSync(catalog, JSON.stringify({ models: [...builtIn.models, ...providers] }, null, 2));
  return catalog;
}

/** Deletes every Redis key under the stack's prefix (queues, streams, rate-limit counters, OAuth states). */
async function dropRedisPrefix(redisUrl, prefix) {
  const Redis = fromBackend('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The ports `make dev` and `make serve` use by default: API, web dev server, worker metrics, embedded PostgreSQL. */
const DEFAULT_PORTS = [3000, 5173, 9464, 54329];

/**
 * Holds every default port that is free, for as long as the stack runs: the stack must never need them (another
 * copy of the platform may be running on this machine), and this way every run proves it. Resolves to a release.
 */
async function holdDefaultPorts() {
  const held = [];
  for (const port of DEFAULT_PORTS) {
    const server = createServer();
    const ok = await new Promise((r) => {
      server.once('error', () => r(false));
      server.listen({ port, exclusive: true }, () => r(true));
    });
    if (ok) held.push(server);
  }
  return () => Promise.all(held.map((s) => new Promise((r) => s.close(r))));
}

/** The tests' side door: readiness, the captured mail, the next OAuth profile. */
async function startControl(port, { smtp, oauth, isReady }) {
  const server = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const json = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && url.pathname === '/ready') return isReady() ? json(200, { ready: true }) : json(503, { ready: false });
    if (req.method === 'GET' && url.pathname === '/mail') {
      const to = url.searchParams.get('to')?.toLowerCase();
      const since = Number(url.searchParams.get('since') ?? 0);
      const mails = smtp.mails.filter((m) => m.seq > since && (!to || m.to.includes(to)));
      // The text with quoted-printable undone, and the 6-digit code of a code e-mail (null in others).
      const shown = mails.map((m) => ({ seq: m.seq, to: m.to, subject: m.subject, code: /code is: (\d{6})/.exec(m.text)?.[1] ?? null, raw: m.text }));
      return json(200, { last: smtp.mails.length, mails: shown });
    }
    if (req.method === 'POST' && url.pathname === '/oauth/profile') {
      let body = '';
      for await (const chunk of req) body += chunk;
      oauth.state.profile = { ...oauth.state.profile, ...JSON.parse(body || '{}') };
      return json(200, { profile: oauth.state.profile, issuer: oauth.issuer });
    }
    json(404, { error: 'not found' });
  });
  await new Promise((r, j) => server.once('error', j).listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const STRIPE_WEBHOOK_SECRET = 'whsec_e2e_stand_in';

/**
 * Stripe at the third-party edge: POST /v1/checkout/sessions (what the Stripe SDK calls) answers a session whose
 * `url` is this server's own checkout page; GET /checkout/{id} shows the amount and a 'Pay' button; POST
 * /checkout/{id}/pay sends the API the webhook Stripe would send (signed with the webhook secret, as Stripe signs
 * it) and redirects the browser to the session's success URL.
 */
async function startStripe(apiUrl) {
  const Stripe = fromBackend('stripe');
  const signer = new Stripe('sk_test_e2e_stand_in');
  const sessions = new Map();
  const server = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stripe');
    let body = '';
    for await (const chunk of req) body += chunk;
    const self = `http://127.0.0.1:${server.address().port}`;
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const params = Object.fromEntries(new URLSearchParams(body));
      const id = `cs_test_e2e_${sessions.size + 1}`;
      const session = { id, object: 'checkout.session', url: `${self}/checkout/${id}`, client_reference_id: params.client_reference_id, params };
      sessions.set(id, session);
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session));
    }
    const match = /^\/checkout\/([\w]+)(\/pay)?$/.exec(url.pathname);
    const session = match && sessions.get(match[1]);
    if (session && req.method === 'GET' && !match[2]) {
      const amount = (Number(session.params['line_items[0][price_data][unit_amount]']) / 100).toFixed(2);
      const name = session.params['line_items[0][price_data][product_data][name]'];
      return res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html lang="en"><link rel="icon" href="data:,"><title>Checkout</title><main><h1>Pay $${amount}</h1><p>${name}</p><form method="post" action="/checkout/${session.id}/pay"><button>Pay</button></form></main></html>`,
        );
    }
    if (session && req.method === 'POST' && match[2]) {
      const payload = JSON.stringify({
        id: `evt_${session.id}`,
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: { id: session.id, object: 'checkout.session', client_reference_id: session.client_reference_id, payment_status: 'paid' } },
      });
      const signature = signer.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET });
      const delivered = await fetch(`${apiUrl}/api/payments/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
      if (!delivered.ok) return res.writeHead(502).end(`webhook refused: ${delivered.status}`);
      return res.writeHead(303, { location: session.params.success_url }).end();
    }
    res.writeHead(404).end();
  });
  await new Promise((r, j) => server.once('error', j).listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Ready = the API answers and the worker has registered its node with the tiny model loaded (what makes it `available`). */
async function waitUntilServing(url, dbUrl, serve, timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (serve.exitCode !== null || serve.signalCode) throw new Error(`scripts/serve.mjs exited (${serve.exitCode ?? serve.signalCode})`);
    try {
      const health = await fetch(`${url}/api/health`);
      if (health.ok) {
        const rows = await query(dbUrl, `SELECT 1 FROM nodes WHERE stopped_at IS NULL AND $1 = ANY(models)`, [TINY_MODEL_ID]);
        if (rows.length > 0) return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`The platform did not serve ${TINY_MODEL_ID} at ${url} within ${timeoutMs / 1000} s`);
}

/** The stop of the stack being started, so a signal during start-up still cleans up. */
let starting = null;

export async function startStack({ dbName, port, controlPort, log = process.env.E2E_STACK_LOG === '1' } = {}) {
  for (const file of ['dist/main.js', 'dist/worker.js', 'dist/database/cli.js']) {
    if (!existsSync(join(backend, file))) throw new Error(`backend/${file} is missing: run \`npm run build -w backend\` first`);
  }
  if (!existsSync(join(root, 'frontend/dist/index.html'))) throw new Error('frontend/dist is missing: run `npm run build -w frontend` first');
  const name = dbName ?? `glob_e2e_${randomBytes(5).toString('hex')}`;
  const listen = port ?? (await freePort());
  const url = `http://127.0.0.1:${listen}`;
  let ready = false;
  const cleanups = [];
  let serve;
  let stopped = null;
  const stop = () => (stopped ??= stopAll());
  const stopAll = async () => {
    if (serve && serve.exitCode === null && !serve.signalCode) {
      await new Promise((r) => {
        serve.once('exit', r);
        serve.kill('SIGTERM'); // serve.mjs stops the API and the worker, then exits
        setTimeout(() => serve.kill('SIGKILL'), 15_000).unref();
      });
    }
    for (const cleanup of [...cleanups].reverse()) await cleanup().catch((e) => console.error('[stack] cleanup failed:', e.message));
  };
  starting = stop;
  try {
    cleanups.push(await holdDefaultPorts());
    await createDatabase(name, { server: PG_SERVER });
    cleanups.push(() => dropDatabase(name, PG_SERVER));
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    cleanups.push(() => dropRedisPrefix(redisUrl, `e2e_${name}`));
    const smtp = await startSmtpCatcher();
    cleanups.push(smtp.close);
    // Google alone, and whoever signs in until a test says otherwise (POST /oauth/profile).
    const oauth = await startOAuthServer({
      providers: ['google'],
      profile: { sub: 'google-user-1', email: 'oauth.user@example.com', email_verified: true, name: 'OAuth User' },
    });
    cleanups.push(oauth.close);
    const control = await startControl(controlPort ?? 0, { smtp, oauth, isReady: () => ready });
    cleanups.push(control.close);
    const stripe = await startStripe(url);
    cleanups.push(stripe.close);

    // Release files published during the run (release.spec): none from an earlier run.
    const releasesDir = join(root, PROVIDER_MODEL.releases);
    rmSync(releasesDir, { recursive: true, force: true });
    const env = {
      ...process.env,
      MODEL_CATALOG: writeCatalog(),
      RELEASES_DIR: releasesDir,
      DATABASE_URL: databaseUrl(name, PG_SERVER),
      DATABASE_POOL_SIZE: '4',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `e2e_${name}`,
      PORT: String(listen),
      HOST: '127.0.0.1',
      WEB_ORIGIN: url, // also the OAuth redirect base: {url}/app/oauth/callback/google
      // Browsers refuse an IP address as a passkey's relying party: passkeys are used at http://localhost:<port>.
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGIN: `http://localhost:${listen}`,
      JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      SMTP_URL: smtp.url,
      ...oauth.env,
      STRIPE_SECRET_KEY: 'sk_test_e2e_stand_in',
      STRIPE_WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      // Every response checked against the spec, as in the backend's own tests.
      VALIDATE_RESPONSES: 'true',
      // Relaxed only where the tests would trip them: the marketing forms' tests post many times from one IP, and the
      // journey signs the same address up again within a minute (the resend wait). The sign-in, code-check and
      // code-sending limits stay as deployed.
      CONTACT_RATE_LIMIT: '100',
      ANALYTICS_RATE_LIMIT: '1000',
      OTP_RESEND_SECONDS: '2',
      // Every test client is 127.0.0.1: the per-IP limits (not the per-address ones) would count the whole suite.
      SIGNUP_RATE_LIMIT: '1000',
      OTP_SEND_IP_RATE_LIMIT: '1000',
      LOGIN_IP_RATE_LIMIT: '1000',
      // The worker: only the tiny model, one llama.cpp thread each (2-core machine), two replies at once.
      WORKER_MODELS: TINY_MODEL_ID,
      WORKER_NAME: `e2e-${name}`,
      // Its metrics port is free too (9464, the default, is held above).
      WORKER_PORT: String(await freePort()),
      WORKER_CONCURRENCY: '2',
      INFERENCE_THREADS: '1',
      LOG_LEVEL: log ? 'log' : 'warn',
    };
    serve = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), '--no-build'], {
      env,
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await waitUntilServing(url, databaseUrl(name, PG_SERVER), serve);
    ready = true;
    return { url, controlUrl: control.url, dbName: name, databaseUrl: databaseUrl(name, PG_SERVER), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let stack;
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await (stack?.stop ?? starting)?.();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, shutdown);
  stack = await startStack({
    dbName: process.env.E2E_DB || undefined,
    port: process.env.E2E_PORT ? Number(process.env.E2E_PORT) : undefined,
    controlPort: process.env.E2E_CONTROL_PORT ? Number(process.env.E2E_CONTROL_PORT) : undefined,
  });
  console.log(`stack ready ${stack.url} (database ${stack.dbName}, control ${stack.controlUrl})`);
  setInterval(() => undefined, 1 << 30); // keep running until a signal arrives
}
