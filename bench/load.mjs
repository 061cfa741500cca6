#!/usr/bin/env node
// The platform's relay under load, without a model: workers in load-generator mode (WORKER_LOAD_TOKENS_PER_SECOND:
// made-up tokens at a set rate, each stamped with the time it was written) answer `streams` concurrent replies
// (POST /api/inference/stream/start, read to the end) through one API process, then through two behind nginx
// (ops/nginx/api-proxy.conf), side by side in one run. Per configuration: tokens relayed per second, the delay from a
// token's writing to its arrival at the reader (p50 / p99), the API processes' memory per open stream (RSS with every
// stream open against before) and their CPU per relayed token. Prints figures; asserts nothing.
// Usage: node bench/load.mjs [streams=2000] [tokensPerSecond=2] [seconds=20]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { nginxForApis } from '../scripts/lib.mjs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUser, cpuMs, freePort, pct, prepareNodeBench, root, startBackend, table } from './lib.mjs';

const streams = Number(process.argv[2] ?? 2000);
const rate = Number(process.argv[3] ?? 2);
const seconds = Number(process.argv[4] ?? 20);
const MODEL = 'glob-tiny-chat';
const USERS = Math.ceil(streams / 100);
const { modelsDir } = prepareNodeBench();
const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const backend = await startBackend({
  MODELS_DIR: modelsDir,
  WORKER_MODELS: 'none',
  WELCOME_BONUS_GLOB: '1000000',
  STREAMS_PER_USER: '100000',
  SPOT_CHECK_PERCENT: '0',
  SPOT_CHECK_FIRST: '0',
  REPLY_TIMEOUT_SECONDS: '3600',
});
const children = [];
const spawnChild = (name, cmd, args, env) => {
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  children.push(child);
  child.on('exit', (code) => code && console.error(`${name} exited ${code}: ${err}`));
  return child;
};
const nginxDir = mkdtempSync(join(tmpdir(), 'glob-load-nginx-'));
try {
  // Two load-generating workers (a bench mode the production configuration refuses).
  const { WORKER_PORT: _p, ...workerEnv } = backend.env;
  for (const i of [1, 2])
    spawnChild(`worker-${i}`, 'node', ['backend/dist/worker.js'], {
      ...workerEnv,
      NODE_ENV: 'development',
      WORKER_MODELS: MODEL,
      WORKER_NAME: `load-worker-${i}`,
      WORKER_LOAD_TOKENS_PER_SECOND: String(rate),
    });
  // A second API process on the same database and Redis, and nginx in front of both.
  const port2 = await freePort();
  const api2 = spawnChild('api-2', 'node', ['backend/dist/main.js'], {
    ...backend.env,
    PORT: String(port2),
    HOST: '127.0.0.1',
    TRUST_PROXY: 'loopback',
  });
  const proxyPort = await freePort();
  spawnChild('nginx', 'nginx', nginxForApis(nginxDir, `127.0.0.1:${proxyPort}`, [new URL(backend.base).port, port2]), process.env);
  const proxy = `http://127.0.0.1:${proxyPort}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port2}/api/health`)).ok && (await fetch(`${proxy}/api/health`)).ok) break;
    } catch {
      /* starting */
    }
    await sleep(250);
  }

  const users = [];
  for (let i = 0; i < USERS; i++) users.push(await benchUser(backend, `load-${i}`));
  let seq = 0;
  /** One reply through `base`: the delays of its tokens (arrival − writing, ms) and their count. */
  const reply = async (base, user, maxTokens) => {
    const res = await fetch(`${base}/api/inference/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...user.auth },
      body: JSON.stringify({
        streamId: `load_${Date.now()}_${++seq}`,
        modelId: MODEL,
        prompt: 'Load',
        params: { max_tokens: maxTokens, temperature: 0 },
      }),
    });
    if (!res.ok) throw new Error(`start ${res.status}: ${await res.text()}`);
    const delays = [];
    const arrivals = [];
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body) {
      const now = Date.now();
      buf += decoder.decode(chunk, { stream: true });
      const cut = buf.lastIndexOf('\n\n');
      if (cut < 0) continue;
      for (const m of buf.slice(0, cut).matchAll(/t(\d{13}) /g)) {
        delays.push(now - Number(m[1]));
        arrivals.push(now);
      }
      buf = buf.slice(cut + 2);
    }
    return { delays, arrivals };
  };
  const run = async (label, base, pids) => {
    // Wait for both workers to serve.
    for (let i = 0; i < 120; i++) {
      try {
        if ((await reply(base, users[0], 1)).delays.length) break;
      } catch {
        /* not serving yet */
      }
      await sleep(1000);
    }
    const rss0 = pids.reduce((n, p) => n + rssBytes(p), 0);
    const cpu0 = pids.reduce((n, p) => n + cpuMs(p), 0);
    const maxTokens = Math.round(rate * seconds);
    const t0 = performance.now();
    let peakRss = 0;
    const sampler = setInterval(
      () =>
        (peakRss = Math.max(
          peakRss,
          pids.reduce((n, p) => n + rssBytes(p), 0),
        )),
      500,
    );
    // Started over the first second, as users arrive.
    const all = await Promise.all(
      Array.from({ length: streams }, (_, i) =>
        sleep((i / streams) * 1000).then(() =>
          reply(base, users[i % USERS], maxTokens).catch((err) => {
            console.error(`${label}: ${err.message}`);
            return { delays: [], arrivals: [] };
          }),
        ),
      ),
    );
    clearInterval(sampler);
    const wall = (performance.now() - t0) / 1000;
    const cpu = pids.reduce((n, p) => n + cpuMs(p), 0) - cpu0;
    const delays = all.flatMap((r) => r.delays);
    const completed = all.filter((r) => r.delays.length === maxTokens).length;
    // While every stream is open (from the last one's first token to the first one's last): the relay at full load,
    // without the ramp while the replies are being started.
    const open = all.filter((r) => r.arrivals.length);
    const from = Math.max(...open.map((r) => r.arrivals[0]));
    const to = Math.min(...open.map((r) => r.arrivals.at(-1)));
    const steady =
      to - from >= 1000 ? (open.reduce((n, r) => n + r.arrivals.filter((t) => t >= from && t < to).length, 0) * 1000) / (to - from) : NaN;
    console.error(`${label}: ${completed}/${streams} complete in ${wall.toFixed(1)} s (load ${loadavg()[0].toFixed(1)})`);
    return {
      configuration: label,
      streams,
      complete: completed,
      'tokens/s relayed': (delays.length / wall).toFixed(0),
      'tokens/s, all open': Number.isNaN(steady) ? 'n/a' : steady.toFixed(0),
      'aim tokens/s': (streams * rate).toFixed(0),
      'token delay p50 ms': pct(delays, 50),
      p99: pct(delays, 99),
      'API memory KiB/stream': ((peakRss - rss0) / 1024 / streams).toFixed(1),
      'API CPU µs/token': ((cpu * 1000) / Math.max(1, delays.length)).toFixed(1),
    };
  };
  const rows = [];
  rows.push(await run('one API process', backend.base, [backend.apiPid]));
  rows.push(await run('two API processes behind nginx', proxy, [backend.apiPid, api2.pid]));
  console.log(
    `\n${streams} streams of ${rate} tokens/s for ${seconds} s (load-generating workers ×2, no model); ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  table(rows);
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await sleep(1000);
  await backend.stop();
  rmSync(nginxDir, { recursive: true, force: true });
}
