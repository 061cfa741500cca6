#!/usr/bin/env node
// What one reply costs the platform whatever its length: the same one-token replies (POST /api/inference/stream/start,
// read to its end), one after another, on an in-cluster worker and on a remote node agent, side by side, the order
// alternating round by round. Per path: the API process's CPU ms per reply (/proc/<pid>/stat) less what it spends
// meanwhile with nothing to do (its idle rate, measured before), its read and write system calls per reply
// (/proc/<pid>/io), the Redis commands per reply (INFO commandstats, every client: the worker's own included) and the
// busiest of them, the PostgreSQL transactions per reply (pg_stat_database of the bench's database), and the wall ms
// per reply. `bench/relay.mjs` has the cost per relayed token; this is what a reply adds to it, a large part of a
// short reply's cost. Prints figures; asserts nothing.
// Usage: node bench/reply-cost.mjs [replies=60] [rounds=2]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchUser, cpuMs, ioCalls, median, nodeBenchEnv, prepareNodeBench, root, spawnAgent, startBackend, streamedReply, table } from './lib.mjs';

const replies = Number(process.argv[2] ?? 60);
const rounds = Number(process.argv[3] ?? 2);
const MODEL = 'glob-tiny-chat';
const PATHS = { worker: 'worker, through the platform', agent: 'node agent, through the platform' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { modelsDir } = prepareNodeBench();

const backend = await startBackend({
  ...nodeBenchEnv(modelsDir),
  SPOT_CHECK_PERCENT: '0',
  SPOT_CHECK_FIRST: '0',
});
const db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
await db.connect();
const dataDir = mkdtempSync(join(tmpdir(), 'glob-bench-reply-cost-'));
let child = null;
try {
  const user = await benchUser(backend, 'bench-reply-cost');
  const provider = await benchUser(backend, 'bench-reply-cost-provider');
  const reply = (maxTokens) => streamedReply(backend, user, { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], maxTokens });

  /** Every Redis command's calls so far (INFO commandstats), by name. */
  const redisCalls = () => {
    const out = spawnSync('redis-cli', ['-u', backend.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'INFO', 'commandstats'], {
      encoding: 'utf8',
    }).stdout;
    return new Map([...out.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
  };
  /** The bench database's committed and rolled back transactions so far. */
  const pgTransactions = async () => {
    await db.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await db.query('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0].n);
  };

  let paired = false;
  const start = async (target) => {
    if (target === 'worker') {
      const { WORKER_PORT: _p, ...env } = backend.env;
      child = spawn('node', ['backend/dist/worker.js'], {
        cwd: root,
        env: { ...env, WORKER_MODELS: MODEL, WORKER_NAME: 'bench-reply-cost-worker', INFERENCE_THREADS: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } else {
      child = await spawnAgent(backend, { provider, pair: !paired, dataDir, modelsDir, model: MODEL, name: 'bench-reply-cost-node' });
      paired = true;
    }
    for (let i = 0; i < 120; i++) {
      try {
        if ((await reply(4)).tokens > 0) return;
      } catch {
        /* not serving yet */
      }
      await sleep(1000);
    }
    throw new Error(`the ${target} never served a reply`);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (c && c.exitCode === null && c.signalCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  };

  const cells = Object.fromEntries(
    Object.keys(PATHS).map((t) => [t, { apiMs: [], idleMs: [], calls: [], redis: [], pg: [], wallMs: [], top: new Map() }]),
  );
  const t00 = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? ['agent', 'worker'] : ['worker', 'agent']) {
      await start(target);
      // Settled first (an agent's start pairs it, proves and loads its model), then its idle rate.
      await sleep(5000);
      const idle0 = cpuMs(backend.apiPid);
      const i0 = performance.now();
      await sleep(10_000);
      const idlePerMs = (cpuMs(backend.apiPid) - idle0) / (performance.now() - i0);

      const api0 = cpuMs(backend.apiPid);
      const calls0 = ioCalls(backend.apiPid);
      const redis0 = redisCalls();
      const pg0 = await pgTransactions();
      const t0 = performance.now();
      for (let i = 0; i < replies; i++) await reply(1);
      const wall = performance.now() - t0;
      const api1 = cpuMs(backend.apiPid);
      const calls1 = ioCalls(backend.apiPid);
      const redis1 = redisCalls();
      // PostgreSQL counts a backend's transactions when it reports them: at once at most every second, else after
      // 10 s idle. Read after that, so that the last replies' count.
      await sleep(11_000);
      const pg1 = await pgTransactions();
      await stop();

      const cell = cells[target];
      cell.idleMs.push((idlePerMs * wall) / replies);
      cell.apiMs.push((api1 - api0 - idlePerMs * wall) / replies);
      cell.calls.push((calls1 - calls0) / replies);
      let redis = 0;
      for (const [name, n] of redis1) {
        const d = n - (redis0.get(name) ?? 0);
        // The bench's own INFO calls are not the platform's.
        if (name === 'info' || d <= 0) continue;
        redis += d;
        cell.top.set(name, (cell.top.get(name) ?? 0) + d / replies / rounds);
      }
      cell.redis.push(redis / replies);
      // The snapshot reads above are transactions of their own: two per measure.
      cell.pg.push((pg1 - pg0 - 2) / replies);
      cell.wallMs.push(wall / replies);
      console.error(`round ${round + 1}/${rounds}: ${target} done (load ${loadavg()[0].toFixed(1)})`);
    }
  }

  console.log(
    `\n${MODEL}, ${replies} one-token replies one after another per path and round, ${rounds} round(s), ` +
      `${((performance.now() - t00) / 60_000).toFixed(1)} min; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\nmedian over rounds; API CPU less its idle rate over the same time (shown)\n`,
  );
  table(
    Object.entries(PATHS).map(([target, path]) => {
      const c = cells[target];
      return {
        path,
        'API CPU ms/reply': median(c.apiMs).toFixed(1),
        'API idle ms/reply': median(c.idleMs).toFixed(1),
        'API syscalls/reply': median(c.calls).toFixed(0),
        'Redis commands/reply': median(c.redis).toFixed(1),
        'PostgreSQL transactions/reply': median(c.pg).toFixed(1),
        'wall ms/reply': median(c.wallMs).toFixed(0),
      };
    }),
  );
  for (const [target, path] of Object.entries(PATHS)) {
    const top = [...cells[target].top].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`\n${path}, Redis commands per reply: ${top.map(([n, v]) => `${n} ${v.toFixed(1)}`).join(', ')}`);
  }
} finally {
  if (child && child.exitCode === null) child.kill('SIGTERM');
  await db.end();
  await backend.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
