#!/usr/bin/env node
// One model on one host vs split over 2 and 3 hosts with llama.cpp RPC, as a pool runs it: time to first token and
// decode tokens/s of the same reply, side by side in one run. Prints figures; asserts nothing.
//
//   one host            llama-server alone, with T, 2T and 3T threads (T = threads per host);
//   N hosts, loopback   llama-server + N-1 bare rpc-servers on this host's loopback, T threads each (the
//                       reference: llama.cpp RPC with no tunnel and no network);
//   N namespace hosts   each member in a network namespace of its own on a private bridge, as separate machines on a
//                       LAN: the coordinator (llama-server with its layers local, in host 0) reaches each shard's
//                       rpc-server through the platform's TLS-PSK pool tunnel (client in host 0, server in the shard's
//                       host, in front of an rpc-server on that host's loopback). Without root or `ip netns`, the
//                       same processes run on loopback (tunnel included) and the reason is printed.
// Layers are split as the pool planner splits them for members offering equal memory (`proportional`).
//
// The model is written once (cached in .data/bench/) by the project's tiny-model writer: random F32 weights of a
// real llama shape (speed does not depend on the weight values). The default, 24 layers × 640 wide (feed-forward
// 1728, 10 heads of 64), is 119 M parameters in 476 MB: on one core of this 2-core machine it decodes ~25 tokens/s,
// ~40 ms of arithmetic per token, so compute dominates as it does for a real model on real hardware, while the
// whole bench (5 replies of 7 paths) takes about 5 minutes; 24 layers split evenly in 2 (12/12) and in 3 (8/8/8).
//
// Every configuration is loaded first, then runs are interleaved (one reply of each configuration per round), so a
// change in the machine's load (other work on a shared machine) falls on all of them alike. Each reply has its own
// first word, so llama-server's prompt cache cannot skip the prompt; the first round is a warm-up, not counted.
// Decode tokens/s is (tokens − 1) / (time from the first token to the last); time to first token includes the prompt.
// `same text`: every reply of the path is the same text as one host's with T threads (temperature 0).
//
// Usage: node bench/split.mjs [--runs 5] [--tokens 128] [--threads 1] [--layers 24] [--embd 640] [--ff 1728] [--heads 10]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ensureLlamaRpc } from '../node-agent/llama-rpc.mjs';
import { root, table } from './lib.mjs';
import { backend } from './split-host.mjs';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    tokens: { type: 'string', default: '128' },
    threads: { type: 'string', default: '1' },
    layers: { type: 'string', default: '24' },
    embd: { type: 'string', default: '640' },
    ff: { type: 'string', default: '1728' },
    heads: { type: 'string', default: '10' },
  },
});
const [runs, tokens, threads, nLayer, nEmbd, nFf, nHead] = ['runs', 'tokens', 'threads', 'layers', 'embd', 'ff', 'heads'].map((k) => {
  const n = Number(opts[k]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${k} must be a positive integer, got ${opts[k]}`);
  return n;
});
const cores = availableParallelism();
const hostScript = join(import.meta.dirname, 'split-host.mjs');
const PROMPT =
  'Tell me a long story about the river and the city: the old stone bridges, the boats that carry bread and wood ' +
  'at dawn, the people who live by the water, and what happens to all of them when the great flood comes in spring.';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const bin = ensureLlamaRpc();
const { writeTinyLlamaGguf } = backend('scripts/tiny-model/write-tiny-gguf.ts');
const { proportional } = backend('src/modules/nodes/pool-plan.ts');
const { createNetnsLan, netnsUnavailable } = backend('test/support/netns.ts');

const modelDir = join(root, '.data', 'bench');
const modelPath = join(modelDir, `split-L${nLayer}-E${nEmbd}-F${nFf}-H${nHead}.gguf`);
if (!existsSync(modelPath)) {
  mkdirSync(modelDir, { recursive: true });
  console.log(`Writing ${modelPath} (once)…`);
  await writeTinyLlamaGguf(modelPath, { seed: 11, nLayer, nEmbd, nFf, nHead, contextLength: 2048 });
}

/** Every child this bench started, and the namespaces: all of it goes on any exit (Ctrl-C included). */
const children = new Set();
let lan = null;
let cleaning = null;
const cleanup = () =>
  (cleaning ??= (async () => {
    await Promise.all(
      [...children].map(async (child) => {
        child.stdin.end();
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const gone = new Promise((r) => child.once('exit', r));
          if ((await Promise.race([gone.then(() => true), sleep(8_000).then(() => false)])) === false) child.kill('SIGKILL');
          await gone;
        }
      }),
    );
    lan?.remove();
    lan = null;
  })());
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping every host and removing the namespaces…`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  lan?.remove();
});

/** Runs one host's part (bench/split-host.mjs) in `host`'s namespace, or here when `host` is null. */
function startHost(host, role, options) {
  const args = [hostScript, role, JSON.stringify(options)];
  const child = host ? host.spawn(process.execPath, args, { cwd: root }) : spawn(process.execPath, args, { cwd: root });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const waiting = [];
  const queued = [];
  let log = '';
  child.stderr.on('data', (chunk) => {
    log = (log + chunk).slice(-4000);
    for (const line of String(chunk).split('\n')) if (/retrying/.test(line)) console.error(`  (${role}: ${line.trim()})`);
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    const w = waiting.shift();
    if (w) w(message);
    else queued.push(message);
  });
  const exited = new Promise((r) => child.once('exit', (code, sig) => r(`${role} exited (${sig ?? code})`)));
  /** The host's next answer; rejects with its error (and log tail) if it fails or exits instead. */
  const next = async () => {
    const message = queued.shift() ?? (await Promise.race([new Promise((r) => waiting.push(r)), exited.then((why) => ({ error: why }))]));
    if (message.error) throw new Error(`${role}: ${message.error}\n${log}`);
    return message;
  };
  return { next, send: (m) => child.stdin.write(`${JSON.stringify(m)}\n`) };
}

const noNetns = netnsUnavailable();
if (!noNetns) lan = createNetnsLan(3);
const key = randomBytes(32).toString('hex');
const tunnel = { key, identity: 'bench-split' };

/** Starts one configuration's shards and coordinator; resolves once its model is loaded across all of them. */
async function load(config) {
  const layers = proportional(
    nLayer,
    Array.from({ length: config.hosts }, () => 1),
  );
  const shards = [];
  for (let i = 1; i < config.hosts; i++) {
    const host = config.net === 'netns' ? (lan?.hosts[i] ?? null) : null;
    const bind = config.net === 'netns' ? (host?.address ?? '127.0.0.1') : '127.0.0.1';
    const shard = startHost(host, 'shard', { bin, threads, bind, tunnel: config.net === 'netns' ? tunnel : null });
    shards.push((await shard.next()).ready);
  }
  const host = config.net === 'netns' ? (lan?.hosts[0] ?? null) : null;
  const coordinator = startHost(host, 'coordinator', {
    bin,
    modelPath,
    threads: config.threads,
    contextSize: 1024,
    layers,
    shards,
    tunnel: config.net === 'netns' ? tunnel : null,
  });
  const { loadMs } = await coordinator.next();
  return { ...config, layers, coordinator, loadMs, replies: [] };
}

const configs = [
  { path: 'one host', hosts: 1, threads },
  { path: 'one host', hosts: 1, threads: 2 * threads },
  { path: 'one host', hosts: 1, threads: 3 * threads },
  { path: '2 hosts, loopback, bare RPC', hosts: 2, threads, net: 'loopback' },
  { path: '3 hosts, loopback, bare RPC', hosts: 3, threads, net: 'loopback' },
  { path: `2 ${noNetns ? 'hosts, loopback' : 'namespace hosts'}, TLS tunnel`, hosts: 2, threads, net: 'netns' },
  { path: `3 ${noNetns ? 'hosts, loopback' : 'namespace hosts'}, TLS tunnel`, hosts: 3, threads, net: 'netns' },
];

try {
  const load0 = loadavg()[0];
  const loaded = [];
  for (const c of configs) loaded.push(await load(c));
  for (let round = 0; round <= runs; round++) {
    for (const c of loaded) {
      const word = round === 0 ? 'Warm-up.' : `Reply ${round}.`;
      c.coordinator.send({ messages: [{ role: 'user', content: `${word} ${PROMPT}` }], maxTokens: tokens });
      const { run } = await c.coordinator.next();
      if (round > 0) c.replies.push(run);
      await sleep(300);
    }
  }
  const load1 = loadavg()[0];

  const summary = loaded.map((c) => ({
    ...c,
    ttft: median(c.replies.map((r) => r.firstTokenMs)),
    tps: median(c.replies.map((r) => (r.completionTokens - 1) / ((r.durationMs - r.firstTokenMs) / 1000))),
    tokens: median(c.replies.map((r) => r.completionTokens)),
    prompt: median(c.replies.map((r) => r.promptTokens)),
  }));
  const alone = (t) => summary.find((s) => s.hosts === 1 && s.threads === t);
  const base = alone(threads);
  const same = (s) => s.replies.every((r, i) => r.text === base.replies[i].text);
  const busy = (t) => (t > cores ? ` (${t} on ${cores} cores)` : '');

  console.log(
    `\nModel: ${nLayer} layers × ${nEmbd} wide (ff ${nFf}, ${nHead} heads), F32 random weights, ${modelPath.replace(`${root}/`, '')}` +
      `\n${tokens} tokens max at temperature 0, median of ${runs} replies per path (interleaved, after a warm-up); ` +
      `${threads} thread(s) per host; this machine: ${cores} cores, load average ${load0.toFixed(2)} → ${load1.toFixed(2)}` +
      (noNetns ? `\nNo namespaces here (${noNetns}): the "TLS tunnel" paths run on loopback.` : '') +
      '\n',
  );
  table(
    summary.map((s) => ({
      path: s.path,
      layers: s.layers.join('/'),
      threads: s.hosts === 1 ? `${s.threads}${busy(s.threads)}` : Array(s.hosts).fill(s.threads).join('+'),
      'load s': (s.loadMs / 1000).toFixed(1),
      prompt: s.prompt,
      tokens: s.tokens,
      'first token ms': s.ttft.toFixed(0),
      'decode tok/s': s.tps.toFixed(1),
      'ms/token': (1000 / s.tps).toFixed(1),
      [`× 1 host -t ${threads}`]: (s.tps / base.tps).toFixed(2),
      '× 1 host, same total threads': (s.tps / alone(s.threads * s.hosts).tps).toFixed(2),
      'same text': same(s) ? 'yes' : 'NO',
    })),
  );
  const three = summary.at(-1);
  const total = alone(3 * threads);
  const best = summary.filter((s) => s.hosts === 1).reduce((a, b) => (b.tps > a.tps ? b : a));
  const verdict = (r) => `${r.toFixed(2)} × (${r >= 0.8 ? 'met' : 'not met'})`;
  const perShard = (s) => ((1000 / s.tps - 1000 / base.tps) / (s.hosts - 1)).toFixed(1);
  console.log(
    `\nWhat a shard adds to each token (ms/token over one host -t ${threads}, per shard): ` +
      summary
        .filter((s) => s.hosts > 1)
        .map((s) => `${s.path} ${perShard(s)}`)
        .join('; ') +
      `\n\nAim: split over 3 hosts ≥ 0.8 × one host (anchor: 8B F16 on one H100, 0.90 × behind a loopback rpc-server).` +
      `\n  ${three.path}, ${three.threads} thread(s) each, decode tokens/s against one host:` +
      `\n    with the same threads per host (-t ${threads}; what the anchor compares): ${verdict(three.tps / base.tps)}` +
      `\n    with the same total threads (-t ${3 * threads}${busy(3 * threads)}): ${verdict(three.tps / total.tps)}` +
      `\n    at its fastest here (-t ${best.threads}): ${verdict(three.tps / best.tps)}` +
      `\n  first token: ${three.ttft.toFixed(0)} ms split vs ${base.ttft.toFixed(0)} ms on one host -t ${threads} (${(three.ttft / base.ttft).toFixed(2)} ×)`,
  );
} finally {
  await cleanup();
}
