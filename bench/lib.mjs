// Shared by the bench scripts: a real API process on loopback with a database of its own.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { createDatabase, databaseUrl, dropDatabase, freePort, startSmtpCatcher } from '@glob/testing';

export { freePort };

export const root = resolve(import.meta.dirname, '..');

/**
 * The node agent's bundle (as npm ships it), the backend build and the tiny model, each made when missing, for the
 * benches that run a worker beside a node agent. Answers the models directory and the tiny model's file.
 */
export function prepareNodeBench() {
  for (const [built, workspace] of [
    ['node-agent/dist/glob-node.cjs', 'glob-node'],
    ['backend/dist/main.js', 'backend'],
  ])
    if (!existsSync(join(root, built))) spawnSync('npm', ['run', 'build', '-w', workspace], { cwd: root, stdio: 'inherit' });
  const modelsDir = join(root, '.data', 'models');
  const modelPath = join(modelsDir, 'glob-tiny-chat.gguf');
  if (!existsSync(modelPath)) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
  return { modelsDir, modelPath };
}

/**
 * The backend's settings for benches that pair node agents: no worker of its own (the bench starts what serves), the
 * node limits lifted, and GLOB enough for every reply. `modelsDir` is prepareNodeBench's.
 */
export const nodeBenchEnv = (modelsDir) => ({
  WELCOME_BONUS_GLOB: '1000000',
  MODELS_DIR: modelsDir,
  WORKER_MODELS: 'none',
  JOIN_TOKEN_RATE_LIMIT: '1000000',
  NODE_RATE_LIMIT: '1000000000',
  NODE_REGISTER_RATE_LIMIT: '1000000',
});

/**
 * The node agent (`npm run node`'s bundle) as a provider runs it: its own environment (none of the backend's), HTTP
 * only, serving `model` from `modelsDir` with `threads` on the CPU. One `dataDir` per node: with `pair` it pairs with
 * a fresh join token of `provider` (and proves its model); every later start in that directory is the same node.
 * `nodeArgs` go to its Node.js (e.g. --cpu-prof), `args` to the agent. The child process.
 */
export async function spawnAgent(backend, { provider, pair, dataDir, modelsDir, model, name, threads = '1', nodeArgs = [], args = [], stdio }) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|GLOB_)/.test(k)));
  const argv = ['node-agent/dist/glob-node.cjs', '--api', backend.base, '--name', name, '--home', dataDir];
  if (pair) {
    const token = await (await fetch(`${backend.base}/api/nodes/join-tokens`, { method: 'POST', headers: provider.auth })).json();
    argv.push('--join-token', token.join_token);
  }
  argv.push('--models-dir', modelsDir, '--data-dir', join(dataDir, 'node'), '--threads', threads, '--gpu', 'off', '--models', model, ...args);
  return spawn('node', [...nodeArgs, ...argv], { cwd: root, env, stdio: stdio ?? ['ignore', 'ignore', 'pipe'] });
}

/**
 * Builds the backend if needed, creates a database, migrates, starts the API; stop() undoes it all. `dir`: another
 * copy of the repository whose built backend runs instead (a previous release, side by side); `nodeArgs`: flags for
 * the API's node process (e.g. --cpu-prof).
 */
export async function startBackend(env = {}, { dir = root, nodeArgs = [] } = {}) {
  if (!existsSync(join(dir, 'backend/dist/main.js')) || !existsSync(join(dir, 'engine/dist/generation.js'))) {
    spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: dir, stdio: 'inherit' });
  }
  // On the tests' PostgreSQL server (TEST_DATABASE_URL, else DATABASE_URL, else 127.0.0.1:5432).
  const db = `glob_bench_${randomBytes(4).toString('hex')}`;
  await createDatabase(db);
  const port = await freePort();
  // E-mail goes through SMTP to a catcher here, sent by a mail-only worker: a production API never logs an e-mail's text.
  const smtp = await startSmtpCatcher();
  const fullEnv = {
    ...process.env,
    SMTP_URL: smtp.url,
    NODE_ENV: 'production',
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    TWO_FACTOR_KEY: randomBytes(32).toString('hex'),
    DATABASE_URL: databaseUrl(db),
    REDIS_PREFIX: `bench:${db}`,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...LIFTED_LIMITS,
    ...env,
  };
  spawnSync('node', ['backend/dist/database/cli.js', 'migrate'], { cwd: dir, env: fullEnv, stdio: 'ignore' });
  const api = spawn('node', [...nodeArgs, 'backend/dist/main.js'], { cwd: dir, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const { WORKER_PORT: _port, ...mailerEnv } = fullEnv;
  const mailer = spawn('node', ['backend/dist/worker.js'], {
    cwd: dir,
    env: { ...mailerEnv, WORKER_MODELS: 'none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [api.stdout, api.stderr, mailer.stdout, mailer.stderr]) {
    stream.on('data', (chunk) => {
      // Only warnings and errors reach the console (a bench prints figures): JSON lines of level warn or above.
      if (/"level":"(warn|error|fatal)"|Error/.test(String(chunk))) process.stderr.write(chunk);
    });
  }
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    env: fullEnv,
    /** The API process's pid (to read its CPU time). */
    apiPid: api.pid,
    /** The mail-only worker's pid. */
    mailerPid: mailer.pid,
    /** The 6-digit code last e-mailed to `email` (caught by the SMTP catcher), waiting for it to appear. */
    async codeFor(email, after = 0) {
      for (let i = 0; i < 100; i++) {
        const at = smtp.mails.findLastIndex((m) => m.to.includes(email.toLowerCase()));
        const code = at >= after ? /code is: (\d{6})/.exec(smtp.mails[at].text)?.[1] : undefined;
        if (code) return { code, mark: at + 1 };
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`No code e-mailed to ${email}`);
    },
    async stop() {
      for (const child of [api, mailer]) {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      }
      await smtp.close();
      await dropDatabase(db);
    },
  };
}

export function table(rows) {
  const widths = Object.keys(rows[0]).map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (values) => values.map((v, i) => String(v).padStart(widths[i])).join('  ');
  console.log(line(Object.keys(rows[0])));
  for (const r of rows) console.log(line(Object.values(r)));
}

/**
 * A signed-up user of the bench backend, made the way the web app signs up (send-otp → the e-mailed code →
 * verify-otp → register-with-otp): its id, bearer header, wallet address and the session's tokens.
 */
export async function benchUser(backend, name = 'bench') {
  const email = `${name}-${randomBytes(3).toString('hex')}@bench.example.com`;
  const post = async (path, body, expected) => {
    const res = await fetch(`${backend.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== expected) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  await post('/api/users/send-otp', { email, purpose: 'signup' }, 202);
  const { code } = await backend.codeFor(email);
  const { verification_token } = await post('/api/users/verify-otp', { email, otp: code, purpose: 'signup' }, 200);
  const body = await post('/api/users/register-with-otp', { email, password: 'a quiet mountain stream', username: name, verification_token }, 201);
  const auth = { authorization: `Bearer ${body.access_token}` };
  const wallet = await (await fetch(`${backend.base}/api/wallet/${body.user.id}`, { headers: auth })).json();
  return { id: body.user.id, email, auth, address: wallet.address, accessToken: body.access_token };
}

/** The per-IP limits a bench on loopback would trip: every client of a bench is 127.0.0.1. */
export const LIFTED_LIMITS = {
  LOGIN_RATE_LIMIT: '1000000000',
  LOGIN_IP_RATE_LIMIT: '1000000000',
  SIGNUP_RATE_LIMIT: '1000000',
  OTP_SEND_IP_RATE_LIMIT: '1000000',
  OTP_VERIFY_RATE_LIMIT: '1000000',
};

/** The p-th percentile of `xs` (the value at that rank), and the median. */
export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
export const median = (xs) => pct(xs, 50);

/** A process's CPU time so far (user + system, every thread), in ms: Linux reports it in 1/100 s (USER_HZ). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Every thread of a process (and what it starts later) on these CPUs (`taskset` list, e.g. "0" or "1-3"), so a
 * generator and the platform each have cores of their own, as on separate machines.
 */
export function pin(pid, cpus) {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`taskset could not pin ${pid} to CPUs ${cpus}`);
}

/**
 * A process's read and write system calls so far (/proc/<pid>/io: every socket read and write counts): what relaying
 * costs is mostly these, so their number per token says how well frames are batched.
 */
export function ioCalls(pid) {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^syscr: (\d+)/m.exec(io)[1]) + Number(/^syscw: (\d+)/m.exec(io)[1]);
}

/**
 * One streamed reply through the web app's stream, read to its end: when it was asked for, when its first token event
 * arrived (null if none did), when its last token event arrived and when it ended (ms, performance.now()), and its completion tokens.
 */
export async function streamedReply(backend, user, { model, messages, maxTokens }) {
  const t0 = performance.now();
  const res = await startAppReply(backend, user, { model, messages, maxTokens });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let first = null;
  let last = null;
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const from = Math.max(0, text.length - 16);
    text += decoder.decode(value, { stream: true });
    if (text.includes('"type":"token"', from)) {
      last = performance.now();
      first ??= last;
    }
  }
  const usage = JSON.parse(/"usage":(\{[^}]*\})/.exec(text)?.[1] ?? '{"completion_tokens":0}');
  // `last`: the reply's last text arrived (its end event, with the usage, may come a moment later).
  return { t0, first, last: last ?? performance.now(), end: performance.now(), tokens: usage.completion_tokens };
}

let replySeq = 0;
/** Starts a reply through the web app's stream (POST /api/inference/stream/start) at temperature 0; the fetch Response. */
export async function startAppReply(backend, user, { model, messages, maxTokens }) {
  const res = await fetch(`${backend.base}/api/inference/stream/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...user.auth },
    body: JSON.stringify({
      streamId: `bench_${Date.now()}_${++replySeq}`,
      modelId: model,
      messages,
      params: { max_tokens: maxTokens, temperature: 0, top_p: 1 },
    }),
  });
  if (!res.ok) throw new Error(`stream/start answered ${res.status}: ${await res.text()}`);
  return res;
}

/**
 * The bench itself as a node, paired over HTTP with `provider`'s join token and serving `model` (whose file is
 * `modelPath`), once the model is proven. It answers the model challenge with the file's
 * byte ranges; no trusted generator may be up then (it would judge the made-up text). Answers its node id, headers
 * and a heartbeat.
 */
export async function benchNode(backend, provider, { name, model, modelPath }) {
  const json = { 'content-type': 'application/json' };
  const { hashRanges } = createRequire(import.meta.url)(join(root, 'engine/dist/file-proof.js'));
  const token = await (await fetch(`${backend.base}/api/nodes/join-tokens`, { method: 'POST', headers: provider.auth })).json();
  const host = { hostname: 'bench', os: process.platform, arch: process.arch, cpu_cores: 1, memory_bytes: 1 << 30, gpu: null, vram_bytes: null };
  const paired = await (
    await fetch(`${backend.base}/api/nodes/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ join_token: token.join_token, name, host, models: [model], benchmark: { model_id: model, tokens_per_second: 1 } }),
    })
  ).json();
  const auth = { ...json, authorization: `Bearer ${paired.credential}` };
  let proofs = [];
  /** One heartbeat, carrying the answers to the previous one's challenges. */
  const heartbeat = async () => {
    const body = { models: [model], running_jobs: 0, ...(proofs.length ? { proofs: proofs.splice(0) } : {}) };
    const state = await (await fetch(`${backend.base}/api/nodes/heartbeat`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json();
    proofs = await Promise.all(
      (state.challenges ?? []).map(async (c) => ({
        challenge_id: c.challenge_id,
        range_hashes: await hashRanges(modelPath, c.nonce, c.ranges),
        text: 'x',
      })),
    );
  };
  // The first beat gets the challenge, the second answers it.
  await heartbeat();
  await heartbeat();
  return { id: paired.node_id, auth, heartbeat };
}
