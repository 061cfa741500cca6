#!/usr/bin/env node
// Concurrent chats on one process serving the model: 1, 2, 4, 8 and 16 chats at once, each a streamed
// reply of about `tokens` tokens through POST /api/inference/stream/start, each by its own user, on ONE in-cluster
// worker and on ONE remote node agent (HTTP only; no worker serves the model then). Each side runs two ways: as
// built (its sequences sized from memory) and as before batched sequences (WORKER_CONCURRENCY=2, --parallel 1),
// the order of the two alternating round by round so the machine's noise hits both. Per level: aggregate tokens/s,
// per-stream tokens/s (median), median and p95 time to first token, and the aggregate over one stream's. Prints
// figures; asserts nothing (the issue's aims are reported as met or not). For reference, the same levels each round
// straight into llama.cpp (node-llama-cpp in this process, one context of 16 sequences): what batching gives with no
// platform around it.
// Usage: node bench/concurrency.mjs [tokens=128] [rounds=3] [threads=1]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { benchUser, median, nodeBenchEnv, pct, prepareNodeBench, root, spawnAgent, startBackend, streamedReply, table } from './lib.mjs';

const tokens = Number(process.argv[2] ?? 128);
const rounds = Number(process.argv[3] ?? 3);
const threads = process.argv[4] ?? '1';
const LEVELS = [1, 2, 4, 8, 16];
const MODEL = 'glob-tiny-chat';
const { modelsDir, modelPath } = prepareNodeBench();
// At temperature 0 the tiny model answers this prompt at length (to max tokens), so every chat streams a full reply.
const messages = [{ role: 'user', content: 'A long answer please' }];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadAtStart = load();

const backend = await startBackend({
  // Production refuses to start without it (startBackend sets the JWT secrets only).
  TWO_FACTOR_KEY: randomBytes(32).toString('hex'),
  ...nodeBenchEnv(modelsDir),
  // Serving is measured, not its checks: no reply is replayed (a replay would run on the next worker measured).
  SPOT_CHECK_PERCENT: '0',
  SPOT_CHECK_FIRST: '0',
});
const dataDir = mkdtempSync(join(tmpdir(), 'glob-bench-concurrency-'));
let child = null;
let paired = false;
try {
  // One user per chat, so no per-user limit (streams at once, balance) is shared between chats.
  const users = [];
  for (let i = 0; i < Math.max(...LEVELS); i++) users.push(await benchUser(backend, `bench-chat-${i}`));
  const provider = await benchUser(backend, 'bench-provider');

  /** One streamed reply: time to first token event, completion tokens and end-to-end tokens/s, from the request. */
  const reply = async (user, maxTokens = tokens) => {
    const r = await streamedReply(backend, user, { model: MODEL, messages, maxTokens });
    return { ttft: r.first === null ? NaN : r.first - r.t0, tokens: r.tokens, tps: r.tokens / ((r.end - r.t0) / 1000), t0: r.t0, end: r.end };
  };

  /** The first reply after a start, until the process takes it (a start loads, benchmarks and registers first). */
  const warmUp = async () => {
    for (let i = 0; i < 120; i++) {
      try {
        if ((await reply(users[0], 16)).tokens > 0) return;
      } catch {
        /* not serving yet */
      }
      await sleep(1000);
    }
    throw new Error('the process never served a reply');
  };

  const stop = async () => {
    if (!child) return;
    const c = child;
    child = null;
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  };

  /** Starts one process serving the model; answers the line in which it reported its sequences. */
  const start = async (target, config) => {
    let spawned;
    if (target === 'worker') {
      const { WORKER_CONCURRENCY: _c, WORKER_PORT: _p, ...env } = backend.env;
      spawned = spawn('node', ['backend/dist/worker.js'], {
        cwd: root,
        env: {
          ...env,
          WORKER_MODELS: MODEL,
          WORKER_NAME: 'bench-worker',
          INFERENCE_THREADS: threads,
          LOG_LEVEL: 'log',
          ...(config === 'before' ? { WORKER_CONCURRENCY: '2' } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } else {
      // One data directory, so the agent pairs (and proves its model) once and every later start is the same node.
      spawned = await spawnAgent(backend, {
        provider,
        pair: !paired,
        dataDir,
        modelsDir,
        model: MODEL,
        name: 'bench-node',
        threads,
        args: ['--log-format', 'text', ...(config === 'before' ? ['--parallel', '1'] : [])],
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      paired = true;
    }
    child = spawned;
    let reported = null;
    let log = '';
    const found = new Promise((done) => {
      for (const stream of [spawned.stdout, spawned.stderr])
        stream.on('data', (chunk) => {
          if (reported) return;
          log = (log + chunk).slice(-4096);
          const m = /Loaded [^\n]*? (\d+) repl(?:y|ies) at once \([^)\n]*\)/.exec(log);
          if (m) {
            reported = { sequences: Number(m[1]), line: m[0] };
            done();
          }
        });
      spawned.once('exit', () => done());
    });
    await warmUp();
    await Promise.race([found, sleep(5000)]);
    if (!reported) throw new Error(`the ${target} never said how many replies it runs at once:\n${log}`);
    return reported;
  };

  // llama.cpp direct, loaded once: the levels' chats as sequences of one context, as the worker and agent run them.
  const { LlamaEngine } = await import(join(root, 'engine/dist/llama-engine.js'));
  const engine = await LlamaEngine.create({ threads: Number(threads) });
  await engine.load(MODEL, modelPath, { sequences: Math.max(...LEVELS) });
  const direct = async () => {
    const t0 = performance.now();
    const r = await engine.generate(MODEL, { messages, sampling: { max_tokens: tokens, temperature: 0, top_p: 1, seed: 1 } });
    const end = performance.now();
    return { ttft: r.firstTokenMs ?? NaN, tokens: r.completionTokens, tps: r.completionTokens / ((end - t0) / 1000), t0, end };
  };
  await direct();

  const label = { direct: 'llama.cpp direct (reference)', worker: 'in-cluster worker', agent: 'remote node agent' };
  const configLabel = {
    direct: { now: `one context of ${Math.max(...LEVELS)} sequences` },
    worker: { now: 'sequences from memory (default)', before: 'WORKER_CONCURRENCY=2 (before)' },
    agent: { now: 'sequences from memory (default)', before: '--parallel 1 (before)' },
  };
  // results[target][config][level] = { aggregate: [per round], streams: [every chat] }
  const results = {};
  const reports = {};
  for (const target of ['direct', 'agent', 'worker'])
    results[target] = Object.fromEntries(
      ['now', 'before'].map((c) => [c, Object.fromEntries(LEVELS.map((n) => [n, { aggregate: [], streams: [] }]))]),
    );
  let failed = 0;
  const t00 = performance.now();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['now', 'before'] : ['before', 'now'];
    const measure = async (target, config, chat) => {
      for (const n of LEVELS) {
        const all = await Promise.all(users.slice(0, n).map((u) => chat(u).catch(() => null)));
        const ok = all.filter((r) => r && r.tokens > 0 && !Number.isNaN(r.ttft));
        failed += n - ok.length;
        const seconds = (Math.max(...ok.map((r) => r.end)) - Math.min(...ok.map((r) => r.t0))) / 1000;
        const cell = results[target][config][n];
        cell.aggregate.push(ok.reduce((s, r) => s + r.tokens, 0) / seconds);
        cell.streams.push(...ok);
      }
    };
    await measure('direct', 'now', direct);
    // The agent first: its first start pairs it and proves its model by the file alone, before any worker (a trusted
    // generator that would judge the proof) has run.
    for (const target of ['agent', 'worker'])
      for (const config of order) {
        const reported = await start(target, config);
        (reports[`${target} ${config}`] ??= []).push(reported);
        await measure(target, config, (u) => reply(u));
        await stop();
        console.error(`round ${round + 1}/${rounds}: ${label[target]}, ${configLabel[target][config]} done (load ${load()})`);
      }
  }
  const minutes = (performance.now() - t00) / 60000;
  await engine.dispose();

  console.log(
    `\n${MODEL}, replies of ${tokens} tokens max at temperature 0, ${threads} llama.cpp thread(s), ${rounds} round(s) ` +
      `(the two configurations of each process alternating in order round by round), ${minutes.toFixed(1)} min`,
  );
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${loadAtStart} at the start, ${load()} at the end`,
  );
  console.log('aggregate tokens/s: median over rounds; per-stream tokens/s and first token: over every chat of every round\n');
  console.log('what each process reported:');
  for (const [key, list] of Object.entries(reports)) {
    const [target, config] = key.split(' ');
    const lines = [...new Set(list.map((r) => r.line))];
    console.log(`  ${label[target]}, ${configLabel[target][config]}: ${lines.join(' | ')}`);
  }
  const aims = [];
  for (const target of ['worker', 'agent', 'direct']) {
    console.log(`\n${label[target]}`);
    const rows = [];
    for (const config of target === 'direct' ? ['now'] : ['now', 'before']) {
      const one = median(results[target][config][1].aggregate);
      for (const n of LEVELS) {
        const cell = results[target][config][n];
        const aggregate = median(cell.aggregate);
        const ttft = cell.streams.map((r) => r.ttft);
        rows.push({
          configuration: configLabel[target][config],
          chats: n,
          'aggregate tokens/s': aggregate.toFixed(0),
          'per-stream tokens/s': median(cell.streams.map((r) => r.tps)).toFixed(0),
          'first token ms p50': median(ttft).toFixed(0),
          p95: pct(ttft, 95).toFixed(0),
          '× one stream': (aggregate / one).toFixed(2),
          'tokens/chat': median(cell.streams.map((r) => r.tokens)),
        });
      }
      const at8 = median(results[target][config][8].aggregate) / one;
      const worst = LEVELS.map((n) => ({ n, ms: median(results[target][config][n].streams.map((r) => r.ttft)) })).sort((a, b) => b.ms - a.ms)[0];
      const ttft8 = median(results[target][config][8].streams.map((r) => r.ttft));
      aims.push(
        `${label[target]}, ${configLabel[target][config]}: 8 at once ${at8.toFixed(2)} × one stream (aim ≥ 3: ${at8 >= 3 ? 'met' : 'not met'}); ` +
          `median first token at 8 ${ttft8.toFixed(0)} ms (aim ≤ 1 s: ${ttft8 <= 1000 ? 'met' : 'not met'}), highest median ${worst.ms.toFixed(0)} ms at ${worst.n}`,
      );
    }
    table(rows);
  }
  console.log(`\naims: 8 at once ≥ 3 × one stream, median first token at 8 ≤ 1 s (reported, not asserted):\n${aims.map((a) => `  ${a}`).join('\n')}`);
  if (failed) console.log(`\n${failed} chat(s) failed or streamed no token (left out of the figures)`);
} finally {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  await sleep(500);
  await backend.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
