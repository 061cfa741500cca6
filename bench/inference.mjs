#!/usr/bin/env node
// Inference throughput and time to first token for one model, prompt and token count, measured two ways
// in one run: calling node-llama-cpp directly (LlamaEngine), and through the platform (API + BullMQ +
// worker + Redis Streams + SSE). Prints both and their ratio; asserts nothing.
// Usage: node bench/inference.mjs [runs=5] [tokens=200] [threads=1]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchUser, root, startBackend, table } from './lib.mjs';

const runs = Number(process.argv[2] ?? 5);
const tokens = Number(process.argv[3] ?? 200);
const threads = process.argv[4] ?? '1';
const modelsDir = join(root, '.data', 'models');
const modelPath = join(modelsDir, 'glob-tiny-chat.gguf');
if (!existsSync(join(root, 'backend/dist/worker.js'))) spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
if (!existsSync(modelPath)) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
// At temperature 0 the tiny model answers this prompt at length (it runs on to max tokens), so throughput is measured
// over a real reply rather than a few tokens of fixed overhead.
const messages = [{ role: 'user', content: 'A long answer please' }];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. Direct.
const { LlamaEngine } = await import(join(root, 'engine/dist/llama-engine.js'));
const engine = await LlamaEngine.create({ threads: Number(threads) });
await engine.load('glob-tiny-chat', modelPath);
const direct = [];
for (let i = 0; i < runs + 1; i++) {
  const r = await engine.generate('glob-tiny-chat', { messages, sampling: { max_tokens: tokens, temperature: 0, top_p: 1, seed: 1 } });
  if (i > 0) direct.push({ ttft: r.firstTokenMs, tps: r.completionTokens / (r.durationMs / 1000), tokens: r.completionTokens, tail: 0 });
}
await engine.dispose();

// 2. Through the platform.
const backend = await startBackend({ WELCOME_BONUS_GLOB: '1000000', MODELS_DIR: modelsDir });
const worker = spawn('node', ['backend/dist/worker.js'], {
  cwd: root,
  env: { ...process.env, ...backend.env, WORKER_MODELS: 'glob-tiny-chat', INFERENCE_THREADS: threads, LOG_LEVEL: 'warn' },
  stdio: 'inherit',
});
try {
  const { auth } = await benchUser(backend);
  for (let i = 0; i < 300; i++) {
    const models = await (await fetch(`${backend.base}/api/inference/models`, { headers: auth })).json();
    if (models.models?.find((m) => m.id === 'glob-tiny-chat')?.status === 'available') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const platform = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = performance.now();
    const res = await fetch(`${backend.base}/api/inference/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({
        streamId: `bench_${Date.now()}_${i}`,
        modelId: 'glob-tiny-chat',
        messages,
        params: { max_tokens: tokens, temperature: 0, top_p: 1 },
      }),
    });
    const reader = res.body.getReader();
    let first = null;
    let lastToken = null;
    let text = '';
    let usage;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (first === null && text.includes('"type":"token"')) first = performance.now();
      if (!text.includes('"type":"done"')) lastToken = performance.now();
      const m = /"usage":(\{[^}]*\})/.exec(text);
      if (m) usage = JSON.parse(m[1]);
    }
    const total = performance.now() - t0;
    // End to end on both paths: completion tokens over the time from the request to the end of the reply.
    if (i > 0 && usage)
      platform.push({
        ttft: first - t0,
        tps: usage.completion_tokens / (total / 1000),
        tokens: usage.completion_tokens,
        tail: total - (lastToken - t0),
      });
  }
  const summary = (xs) => ({
    ttft: median(xs.map((x) => x.ttft)),
    tps: median(xs.map((x) => x.tps)),
    tokens: median(xs.map((x) => x.tokens)),
    tail: median(xs.map((x) => x.tail)),
  });
  const d = summary(direct);
  const p = summary(platform);
  console.log(`glob-tiny-chat, ${tokens} tokens max, ${threads} thread(s), median of ${runs} runs\n`);
  table([
    {
      path: 'node-llama-cpp direct',
      tokens: d.tokens,
      'tokens/s': d.tps.toFixed(0),
      'first token ms': d.ttft.toFixed(1),
      'done after last token ms': '-',
    },
    {
      path: 'API + queue + worker + SSE',
      tokens: p.tokens,
      'tokens/s': p.tps.toFixed(0),
      'first token ms': p.ttft.toFixed(1),
      'done after last token ms': p.tail.toFixed(1),
    },
  ]);
  console.log(`\nthroughput ratio (platform / direct): ${(p.tps / d.tps).toFixed(2)}; first-token overhead: ${(p.ttft - d.ttft).toFixed(1)} ms`);
} finally {
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  await backend.stop();
}
