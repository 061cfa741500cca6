#!/usr/bin/env node
// What the platform costs between llama.cpp and the reader: the same streamed replies straight from llama.cpp
// (node-llama-cpp in this process; with the agent, also with the commitment a node makes for each reply) and through
// the platform (POST /api/inference/stream/start, read to its end) on an in-cluster worker and on a remote node agent,
// at 1 and 8 streams, side by side in one run, the order alternating round by round. Per cell: aggregate tokens/s and
// its ratio to llama.cpp direct, the streaming rate (first token to last), time to first token, and the CPU time the
// API process and the serving process spent per relayed token (their /proc/<pid>/stat user + system time around the
// cell, over the tokens relayed), split into what a reply costs the API whatever its length (as many one-token
// replies, right after) and what remains per token: the relay's own cost; and the API's read and write system calls
// per token (/proc/<pid>/io), which say how well its frames are batched.
// Prints figures; asserts nothing.
// Usage: [RELAY_PROFILE=DIR] [RELAY_PIN=1] node bench/relay.mjs [tokens=512] [rounds=2] [threads=1] [targets=worker,agent]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchUser,
  cpuMs,
  ioCalls,
  median,
  nodeBenchEnv,
  pin,
  prepareNodeBench,
  root,
  spawnAgent,
  startBackend,
  streamedReply,
  table,
} from './lib.mjs';

const tokens = Number(process.argv[2] ?? 512);
const rounds = Number(process.argv[3] ?? 2);
const threads = process.argv[4] ?? '1';
const targets = (process.argv[5] ?? 'worker,agent').split(',');
const LEVELS = [1, 8];
const MODEL = 'glob-tiny-chat';
const PATHS = {
  direct: 'llama.cpp direct',
  committed: 'llama.cpp direct, with a commitment',
  worker: 'worker, through the platform',
  agent: 'node agent, through the platform',
};
const { modelsDir, modelPath } = prepareNodeBench();
const messages = [{ role: 'user', content: 'A long answer please' }];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// RELAY_PROFILE=DIR: the API, the worker and the agent run under --cpu-prof, their profiles written to DIR as they stop.
const profile = process.env.RELAY_PROFILE;
const profileArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
const backend = await startBackend(
  {
    ...nodeBenchEnv(modelsDir),
    SPOT_CHECK_PERCENT: '0',
    SPOT_CHECK_FIRST: '0',
  },
  profile ? { nodeArgs: profileArgs } : {},
);
// RELAY_PIN=1: the generator (llama.cpp direct in this process, the worker, the agent) on the last `threads` CPUs, and
// the platform (the API, its mailer, this process's readers, Redis and PostgreSQL) on the others, as on separate
// machines: then what the platform's path costs is not also taken from the model's cores. Redis and PostgreSQL get
// every CPU back at the end.
const cores = cpus().length;
const pinned =
  process.env.RELAY_PIN === '1' ? { generator: `${cores - Number(threads)}-${cores - 1}`, platform: `0-${cores - Number(threads) - 1}` } : null;
if (pinned && cores <= Number(threads)) throw new Error(`RELAY_PIN needs more than ${threads} CPU(s)`);
const services = () =>
  ['redis-server', 'postgres'].flatMap((name) =>
    spawnSync('pgrep', ['-x', name], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number),
  );
const dataDir = mkdtempSync(join(tmpdir(), 'glob-bench-relay-'));
let child = null;
let paired = false;
try {
  // Inside the try: whatever happens next, the finally gives Redis and PostgreSQL their CPUs back.
  if (pinned) for (const pid of [backend.apiPid, backend.mailerPid, process.pid, ...services()]) pin(pid, pinned.platform);
  const users = [];
  for (let i = 0; i < Math.max(...LEVELS); i++) users.push(await benchUser(backend, `bench-relay-${i}`));
  const provider = await benchUser(backend, 'bench-relay-provider');

  const reply = (user, maxTokens = tokens) => streamedReply(backend, user, { model: MODEL, messages, maxTokens });

  const stop = async () => {
    if (!child) return;
    const c = child;
    child = null;
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  };
  const start = async (target) => {
    let spawned;
    if (target === 'worker') {
      const { WORKER_PORT: _p, ...env } = backend.env;
      spawned = spawn('node', [...profileArgs, 'backend/dist/worker.js'], {
        cwd: root,
        env: { ...env, WORKER_MODELS: MODEL, WORKER_NAME: 'bench-relay-worker', INFERENCE_THREADS: threads },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } else {
      spawned = await spawnAgent(backend, {
        provider,
        pair: !paired,
        dataDir,
        modelsDir,
        model: MODEL,
        name: 'bench-relay-node',
        threads,
        nodeArgs: profileArgs,
      });
      paired = true;
    }
    child = spawned;
    if (pinned) pin(spawned.pid, pinned.generator);
    for (let i = 0; i < 120; i++) {
      try {
        if ((await reply(users[0], 16)).tokens > 0) return spawned;
      } catch {
        /* not serving yet */
      }
      await sleep(1000);
    }
    throw new Error(`the ${target} never served a reply`);
  };

  const { LlamaEngine } = await import(join(root, 'engine/dist/llama-engine.js'));
  const engine = await LlamaEngine.create({ threads: Number(threads) });
  await engine.load(MODEL, modelPath, { sequences: Math.max(...LEVELS) });
  // `commit`: with the commitment a node makes for each reply (a second pass over it, after its last token), which
  // the agent's path pays and the worker's does not.
  const direct = async (commit = false) => {
    const t0 = performance.now();
    let first = null;
    let last = null;
    const r = await engine.generate(MODEL, {
      messages,
      sampling: { max_tokens: tokens, temperature: 0, top_p: 1, seed: 1 },
      onToken: () => {
        last = performance.now();
        first ??= last;
      },
      commit,
    });
    const end = performance.now();
    return { t0, first, last: commit ? last : end, end, tokens: r.completionTokens };
  };
  await direct();

  // cells[target][level] = { aggregate: [], toText: [], streaming: [], ttft: [], apiUs: [], serverUs: [], relayUs: [], fixedMs: [], apiCalls: [] }
  const cells = {};
  for (const target of ['direct', 'committed', 'worker', 'agent'])
    cells[target] = Object.fromEntries(
      LEVELS.map((n) => [n, { aggregate: [], toText: [], streaming: [], ttft: [], apiUs: [], serverUs: [], relayUs: [], fixedMs: [], apiCalls: [] }]),
    );
  const measure = async (target, chat, serverPid) => {
    for (const n of LEVELS) {
      // llama.cpp direct runs in this process: its CPU time is this process's.
      const own = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      const api0 = cpuMs(backend.apiPid);
      const calls0 = ioCalls(backend.apiPid);
      const server0 = serverPid ? cpuMs(serverPid) : own();
      const all = await Promise.all(users.slice(0, n).map((u) => chat(u)));
      const api1 = cpuMs(backend.apiPid);
      const calls1 = ioCalls(backend.apiPid);
      const server1 = serverPid ? cpuMs(serverPid) : own();
      const relayed = all.reduce((s, r) => s + r.tokens, 0);
      const cell = cells[target][n];
      cell.aggregate.push(relayed / ((Math.max(...all.map((r) => r.end)) - Math.min(...all.map((r) => r.t0))) / 1000));
      cell.toText.push(relayed / ((Math.max(...all.map((r) => r.last)) - Math.min(...all.map((r) => r.t0))) / 1000));
      for (const r of all) {
        cell.streaming.push((r.tokens - 1) / ((r.end - r.first) / 1000));
        cell.ttft.push(r.first - r.t0);
      }
      cell.apiUs.push(((api1 - api0) * 1000) / relayed);
      cell.apiCalls.push((calls1 - calls0) / relayed);
      cell.serverUs.push(((server1 - server0) * 1000) / relayed);
      if (serverPid) {
        // What a reply costs the API whatever its length (its start, hold, queueing, settlement): the same number of
        // replies of one token each, so that what remains per token is the relay's own cost.
        // Eight of them at least: the CPU time read has a 10 ms grain.
        const fixed0 = cpuMs(backend.apiPid);
        for (let done = 0; done < 8; done += n) await Promise.all(users.slice(0, n).map((u) => reply(u, 1)));
        const perReply = (cpuMs(backend.apiPid) - fixed0) / (Math.ceil(8 / n) * n);
        cell.relayUs.push(((api1 - api0 - perReply * n) * 1000) / Math.max(1, relayed - n));
        cell.fixedMs.push(perReply);
      }
    }
  };
  const idleMsPerSecond = { worker: [], agent: [] };
  const t00 = performance.now();
  for (let round = 0; round < rounds; round++) {
    // The agent pairs first (its model proven by the file while no trusted generator runs), so round 1 starts with it.
    const order = (round % 2 === 0 ? ['agent', 'worker'] : ['worker', 'agent']).filter((t) => targets.includes(t));
    for (const target of order) {
      if (pinned) pin(process.pid, pinned.generator);
      // With and without the commitment, in turn first, as the platform's paths alternate.
      const baselines = [() => measure('direct', direct, 0)];
      if (target === 'agent') baselines.push(() => measure('committed', () => direct(true), 0));
      for (const run of round % 2 === 0 ? baselines : baselines.reverse()) await run();
      if (pinned) pin(process.pid, pinned.platform);
      const proc = await start(target);
      // What the API spends on the generator while it has nothing to do (its waiting claims, its heartbeats), once it
      // has settled (an agent's start pairs it, proves its model and loads it).
      await sleep(5000);
      const idle0 = cpuMs(backend.apiPid);
      await sleep(10_000);
      idleMsPerSecond[target].push((cpuMs(backend.apiPid) - idle0) / 10);
      await measure(target, (u) => reply(u), proc.pid);
      await stop();
      console.error(`round ${round + 1}/${rounds}: ${target} done (load ${loadavg()[0].toFixed(1)})`);
    }
  }
  await engine.dispose();
  console.log(
    `\n${MODEL}, replies of ${tokens} tokens at temperature 0, ${threads} llama.cpp thread(s), ${rounds} round(s), ` +
      `${((performance.now() - t00) / 60000).toFixed(1)} min; ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  console.log('aggregate: median over runs; streaming rate and first token: median over every stream; CPU: median over runs\n');
  const rows = [];
  for (const n of LEVELS) {
    const base = median(cells.direct[n].aggregate);
    const textBase = median(cells.direct[n].toText);
    const shown = ['direct', ...(targets.includes('agent') ? ['committed'] : []), ...['worker', 'agent'].filter((t) => targets.includes(t))];
    for (const target of shown) {
      const c = cells[target][n];
      const inProcess = target === 'direct' || target === 'committed';
      rows.push({
        path: PATHS[target],
        streams: n,
        'tokens/s': median(c.aggregate).toFixed(0),
        '× direct': (median(c.aggregate) / base).toFixed(2),
        // To the last text, not the end event: a node's end waits for its commitment (a pass over the whole reply).
        '× direct (text)': (median(c.toText) / textBase).toFixed(2),
        'streaming tok/s per stream': median(c.streaming).toFixed(0),
        'first token p50 ms': median(c.ttft).toFixed(0),
        'API CPU µs/token': inProcess ? '' : median(c.apiUs).toFixed(1),
        'API ms/reply (fixed)': inProcess ? '' : median(c.fixedMs).toFixed(1),
        'API µs/token (relay)': inProcess ? '' : median(c.relayUs).toFixed(1),
        // Its socket reads and writes (and every other read or write) per token: how well frames are batched.
        'API syscalls/token': inProcess ? '' : median(c.apiCalls).toFixed(2),
        'generator CPU µs/token': median(c.serverUs).toFixed(1),
      });
    }
  }
  if (pinned) console.log(`pinned: the generator on CPU ${pinned.generator}, the platform on CPU ${pinned.platform}\n`);
  table(rows);
  for (const target of ['worker', 'agent'].filter((t) => targets.includes(t)))
    console.log(`API CPU while the ${target} waits for work: ${median(idleMsPerSecond[target]).toFixed(1)} ms/s`);
} finally {
  if (child && child.exitCode === null) child.kill('SIGTERM');
  if (pinned) for (const pid of services()) pin(pid, `0-${cores - 1}`);
  await backend.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
