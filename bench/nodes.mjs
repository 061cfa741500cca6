#!/usr/bin/env node
// Provider nodes, measured side by side in one run on the same model, prompt, token count and threads:
//   1. llama.cpp direct (node-llama-cpp, LlamaEngine) — the baseline;
//   2. through the platform with the in-cluster worker (API + BullMQ + worker + Redis Streams + SSE);
//   3. through the platform with one remote node agent (the same, but the job claimed over HTTP by `npm run node`);
// then the claim latency a node sees (job queued → its long-poll claim answered, p50/p99), and the aggregate
// tokens/s of 1, 2 and 4 node agents under 16 concurrent chats. Prints figures; asserts nothing.
// Usage: node bench/nodes.mjs [runs=5] [tokens=200] [threads=1]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchNode, benchUser, nodeBenchEnv, prepareNodeBench, root, startAppReply, startBackend, table } from './lib.mjs';

const runs = Number(process.argv[2] ?? 5);
const tokens = Number(process.argv[3] ?? 200);
const threads = process.argv[4] ?? '1';
const MODEL = 'glob-tiny-chat';
const { modelsDir, modelPath } = prepareNodeBench();
// At temperature 0 the tiny model answers this prompt at length, so throughput is measured over a real reply.
const messages = [{ role: 'user', content: 'A long answer please' }];
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const pct = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const median = (xs) => pct(xs, 50);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// 1. Direct.
const { LlamaEngine } = await import(join(root, 'engine/dist/llama-engine.js'));
const engine = await LlamaEngine.create({ threads: Number(threads) });
await engine.load(MODEL, modelPath);
const direct = [];
for (let i = 0; i < runs + 1; i++) {
  const r = await engine.generate(MODEL, { messages, sampling: { max_tokens: tokens, temperature: 0, top_p: 1, seed: 1 } });
  if (i > 0) direct.push({ ttft: r.firstTokenMs, tps: r.completionTokens / (r.durationMs / 1000), tokens: r.completionTokens });
}
await engine.dispose();

const backend = await startBackend({
  ...nodeBenchEnv(modelsDir),
  STREAMS_PER_USER: '64',
});
const children = [];
const dataDirs = [];
try {
  const user = await benchUser(backend, 'bench-requester');
  const provider = await benchUser(backend, 'bench-provider');
  const json = { 'content-type': 'application/json' };

  const available = async (count) => {
    for (let i = 0; i < 600; i++) {
      const models = await (await fetch(`${backend.base}/api/inference/models`, { headers: user.auth })).json();
      if ((models.models?.find((m) => m.id === MODEL)?.nodes ?? 0) >= count) return;
      await sleep(100);
    }
    throw new Error(`${count} node(s) never served ${MODEL}`);
  };

  /** One streamed reply: time to first token, completion tokens, and end-to-end tokens/s. */
  const reply = async (maxTokens = tokens) => {
    const t0 = performance.now();
    const res = await startAppReply(backend, user, { model: MODEL, messages, maxTokens });
    const reader = res.body.getReader();
    let first = null;
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (first === null && text.includes('"type":"token"')) first = performance.now();
    }
    const usage = JSON.parse(/"usage":(\{[^}]*\})/.exec(text)?.[1] ?? '{"completion_tokens":0}');
    const total = performance.now() - t0;
    return { ttft: first - t0, tokens: usage.completion_tokens, tps: usage.completion_tokens / (total / 1000), total };
  };
  const series = async () => {
    const out = [];
    for (let i = 0; i < runs + 1; i++) {
      const r = await reply();
      if (i > 0) out.push(r);
    }
    return out;
  };
  const stop = async (child) => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };

  // 2. In-cluster worker.
  const worker = spawn('node', ['backend/dist/worker.js'], {
    cwd: root,
    env: { ...process.env, ...backend.env, WORKER_MODELS: MODEL, INFERENCE_THREADS: threads, LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  await available(1);
  const viaWorker = await series();
  await stop(worker);
  // The worker's node must age out of the live window before the agents are measured alone.
  for (let i = 0; i < 300; i++) {
    const models = await (await fetch(`${backend.base}/api/inference/models`, { headers: user.auth })).json();
    if ((models.models?.find((m) => m.id === MODEL)?.nodes ?? 0) === 0) break;
    await sleep(100);
  }

  /** A node agent process paired with a fresh join token, as a provider runs it (HTTP only). */
  const startAgent = async (name) => {
    const token = await (await fetch(`${backend.base}/api/nodes/join-tokens`, { method: 'POST', headers: provider.auth })).json();
    const dataDir = mkdtempSync(join(tmpdir(), 'glob-bench-node-'));
    dataDirs.push(dataDir);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|GLOB_)/.test(k)));
    const child = spawn(
      'node',
      ['node-agent/dist/glob-node.cjs', '--api', backend.base, '--join-token', token.join_token, '--name', name].concat([
        '--models-dir',
        modelsDir,
        '--data-dir',
        dataDir,
        '--threads',
        threads,
        '--gpu',
        'off',
        '--models',
        MODEL,
      ]),
      { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    children.push(child);
    return child;
  };

  // 3. One remote node.
  const agent = await startAgent('bench-node-1');
  await available(1);
  const viaNode = await series();

  // Claim latency: the bench itself acts as a node (paired over HTTP), long-polls a claim, and a reply is
  // queued 50 ms later; the latency is from the stream request to the claim's answer.
  await stop(agent);
  for (let i = 0; i < 300; i++) {
    const models = await (await fetch(`${backend.base}/api/inference/models`, { headers: user.auth })).json();
    if ((models.models?.find((m) => m.id === MODEL)?.nodes ?? 0) === 0) break;
    await sleep(100);
  }
  const { id: claimerId, auth: nodeAuth, heartbeat } = await benchNode(backend, provider, { name: 'bench-claimer', model: MODEL, modelPath });
  const claims = [];
  for (let i = 0; i < 50; i++) {
    const claim = fetch(`${backend.base}/api/nodes/jobs/claim`, {
      method: 'POST',
      headers: nodeAuth,
      body: JSON.stringify({ wait_seconds: 5 }),
    }).then(async (res) => ({ at: performance.now(), job: res.status === 200 ? await res.json() : null }));
    await sleep(50);
    const sent = performance.now();
    const stream = fetch(`${backend.base}/api/inference/stream/start`, {
      method: 'POST',
      headers: { ...json, ...user.auth },
      body: JSON.stringify({ streamId: `claim_${Date.now()}_${i}`, modelId: MODEL, messages, params: { max_tokens: 1 } }),
    });
    const { at, job } = await claim;
    if (!job) throw new Error('claim answered without a job');
    claims.push(at - sent);
    await fetch(`${backend.base}/api/nodes/jobs/${job.job_id}/events`, {
      method: 'POST',
      headers: nodeAuth,
      body: JSON.stringify({
        events: [
          { type: 'token', text: 'x' },
          { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'length' },
        ],
      }),
    });
    await (await stream).text();
    if (i % 10 === 9) await heartbeat();
  }
  await fetch(`${backend.base}/api/nodes/${claimerId}`, { method: 'DELETE', headers: provider.auth });

  // 4. Aggregate throughput: 16 concurrent chats over 1, 2 and 4 agents.
  const aggregate = [];
  const pool = [];
  for (const n of [1, 2, 4]) {
    while (pool.length < n) pool.push(await startAgent(`bench-node-${pool.length + 2}`));
    await available(n);
    const t0 = performance.now();
    const all = await Promise.all(Array.from({ length: 16 }, () => reply(tokens)));
    const seconds = (performance.now() - t0) / 1000;
    const total = all.reduce((s, r) => s + r.tokens, 0);
    aggregate.push({ nodes: n, chats: 16, tokens: total, seconds: seconds.toFixed(2), 'tokens/s': (total / seconds).toFixed(0) });
  }

  const summary = (xs) => ({ ttft: median(xs.map((x) => x.ttft)), tps: median(xs.map((x) => x.tps)), tokens: median(xs.map((x) => x.tokens)) });
  const d = summary(direct);
  const w = summary(viaWorker);
  const r = summary(viaNode);
  console.log(`${MODEL}, ${tokens} tokens max, ${threads} thread(s), median of ${runs} runs\n`);
  table([
    { path: 'llama.cpp direct', tokens: d.tokens, 'tokens/s': d.tps.toFixed(0), 'first token ms': d.ttft.toFixed(1) },
    { path: 'platform, in-cluster worker', tokens: w.tokens, 'tokens/s': w.tps.toFixed(0), 'first token ms': w.ttft.toFixed(1) },
    { path: 'platform, remote node (HTTP)', tokens: r.tokens, 'tokens/s': r.tps.toFixed(0), 'first token ms': r.ttft.toFixed(1) },
  ]);
  console.log(
    `\nremote node / in-cluster worker: ${(r.tps / w.tps).toFixed(2)} × tokens/s; first token ${(r.ttft - w.ttft).toFixed(1)} ms later` +
      `\nremote node / direct: ${(r.tps / d.tps).toFixed(2)} × tokens/s`,
  );
  console.log(
    `\nclaim latency (reply queued → node's claim answered), ${claims.length} claims: p50 ${pct(claims, 50).toFixed(1)} ms, p99 ${pct(claims, 99).toFixed(1)} ms\n`,
  );
  table(aggregate);
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await sleep(500);
  await backend.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}
