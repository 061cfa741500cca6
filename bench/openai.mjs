#!/usr/bin/env node
// The OpenAI-compatible API, measured against the web app's own stream on the same model, prompt, token count and
// worker: time to first token and tokens/s of a streamed reply through POST /v1/chat/completions (an API key,
// chat.completion.chunk events) and through POST /api/inference/stream/start (a session, the platform's events),
// alternating so both see the same machine; the same /v1 reply generated under a json_schema's grammar (tokens/s with
// and without it) and with logprobs (the finished text scored once more); embeddings per second through POST /v1/embeddings; then requests/s of GET /v1/models (key auth, rate-limit windows in Redis) beside
// GET /api/inference/models (a session). Prints figures; asserts nothing.
// Usage: node bench/openai.mjs [runs=10] [tokens=200] [threads=1] [seconds=5]
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchUser, root, startAppReply, startBackend, table } from './lib.mjs';

const runs = Number(process.argv[2] ?? 10);
const tokens = Number(process.argv[3] ?? 200);
const threads = process.argv[4] ?? '1';
const seconds = Number(process.argv[5] ?? 5);
const MODEL = 'glob-tiny-chat';
const EMBED_MODEL = 'glob-tiny-embed';
const modelsDir = join(root, '.data', 'models');
// The /v1 operations are recent: a build without them is rebuilt.
if (!existsSync(join(root, 'backend/dist/modules/openai/tool-calls.js')))
  spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
if (!existsSync(join(modelsDir, `${EMBED_MODEL}.gguf`))) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
// At temperature 0 the tiny model answers this prompt at length, so throughput is measured over a real reply.
const messages = [{ role: 'user', content: 'A long answer please' }];
// A structured answer as long as a free one can be: a list of records whose every value the grammar bounds.
const RECORDS = {
  type: 'object',
  properties: {
    records: {
      type: 'array',
      maxItems: 40,
      items: {
        type: 'object',
        properties: { city: { enum: ['Paris', 'Tokyo', 'Lima', 'Oslo'] }, days: { type: 'integer' }, dry: { type: 'boolean' } },
        required: ['city', 'days', 'dry'],
        additionalProperties: false,
      },
    },
  },
  required: ['records'],
  additionalProperties: false,
};
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const backend = await startBackend({
  WELCOME_BONUS_GLOB: '1000000',
  MODELS_DIR: modelsDir,
  WORKER_MODELS: 'none',
  API_KEY_REQUESTS_PER_WINDOW: '1000000000',
  API_KEY_TOKENS_PER_WINDOW: '1000000000',
  STREAMS_PER_USER: '64',
});
const worker = spawn('node', ['backend/dist/worker.js'], {
  cwd: root,
  env: { ...process.env, ...backend.env, WORKER_MODELS: `${MODEL},${EMBED_MODEL}`, INFERENCE_THREADS: threads, LOG_LEVEL: 'warn' },
  stdio: 'inherit',
});
try {
  const user = await benchUser(backend, 'bench-developer');
  const json = { 'content-type': 'application/json' };
  const created = await fetch(`${backend.base}/api/api-keys`, { method: 'POST', headers: { ...json, ...user.auth }, body: '{"name":"bench"}' });
  if (created.status !== 201) throw new Error(`POST /api/api-keys answered ${created.status}: ${await created.text()}`);
  const keyAuth = { authorization: `Bearer ${(await created.json()).key}` };
  for (let i = 0; ; i++) {
    const models = await (await fetch(`${backend.base}/v1/models`, { headers: keyAuth })).json();
    if (models.data?.some((m) => m.id === MODEL) && models.data.some((m) => m.id === EMBED_MODEL)) break;
    if (i > 600) throw new Error(`no worker ever served ${MODEL}`);
    await sleep(100);
  }

  /** Reads an event stream; `isToken(data)` says whether a data line carries generated text. */
  const timed = async (res, isToken, usageOf) => {
    if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`);
    const t0 = performance.now();
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let first = null;
    let buf = '';
    let usage = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let at;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const data = /^data: (.*)$/m.exec(buf.slice(0, at))?.[1];
        buf = buf.slice(at + 2);
        if (!data || data === '[DONE]') continue;
        const event = JSON.parse(data);
        if (first === null && isToken(event)) first = performance.now();
        usage = usageOf(event) ?? usage;
      }
    }
    return { first, end: performance.now(), t0, tokens: usage?.completion_tokens ?? 0 };
  };
  const viaApp = async () => {
    const t0 = performance.now();
    const res = await startAppReply(backend, user, { model: MODEL, messages, maxTokens: tokens });
    const r = await timed(
      res,
      (e) => e.type === 'token',
      (e) => (e.type === 'done' ? e.usage : null),
    );
    return { ttft: r.first - t0, tps: r.tokens / ((r.end - t0) / 1000), tokens: r.tokens };
  };
  const viaOpenAi = async (extra = {}) => {
    const t0 = performance.now();
    const res = await fetch(`${backend.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...json, ...keyAuth },
      body: JSON.stringify({
        model: MODEL,
        messages,
        max_tokens: tokens,
        temperature: 0,
        top_p: 1,
        stream: true,
        stream_options: { include_usage: true },
        ...extra,
      }),
    });
    const r = await timed(
      res,
      (e) => Boolean(e.choices?.[0]?.delta?.content),
      (e) => e.usage ?? null,
    );
    return { ttft: r.first - t0, tps: r.tokens / ((r.end - t0) / 1000), tokens: r.tokens };
  };

  // One warm-up each, then alternating runs.
  await viaApp();
  await viaOpenAi();
  const structured = () => viaOpenAi({ response_format: { type: 'json_schema', json_schema: { name: 'records', schema: RECORDS } } });
  // Scored after it is generated: the cost shows in the whole reply's time (tokens/s counts to the last chunk).
  const scored = () => viaOpenAi({ logprobs: true, top_logprobs: 5 });
  await structured();
  await scored();
  const app = [];
  const openai = [];
  const grammar = [];
  const logprobs = [];
  for (let i = 0; i < runs; i++) {
    app.push(await viaApp());
    openai.push(await viaOpenAi());
    grammar.push(await structured());
    logprobs.push(await scored());
  }
  const row = (path, xs) => ({
    path,
    runs: xs.length,
    'tokens (median)': median(xs.map((x) => x.tokens)),
    'TTFT p50 ms': median(xs.map((x) => x.ttft)).toFixed(1),
    'TTFT max ms': Math.max(...xs.map((x) => x.ttft)).toFixed(1),
    'tokens/s p50': median(xs.map((x) => x.tps)).toFixed(0),
  });
  console.log(`\nStreamed replies, ${MODEL}, max_tokens ${tokens}, temperature 0, worker threads ${threads}:`);
  table([
    row('POST /api/inference/stream/start (session)', app),
    row('POST /v1/chat/completions stream (API key)', openai),
    row('  the same with a json_schema (grammar)', grammar),
    row('  the same with logprobs, top_logprobs 5', logprobs),
  ]);
  const ratio = median(grammar.map((x) => x.tps)) / median(openai.map((x) => x.tps));
  console.log(`Generation under the grammar: ${ratio.toFixed(2)} × the tokens/s of a free reply`);
  const scoredRatio = median(logprobs.map((x) => x.tps)) / median(openai.map((x) => x.tps));
  console.log(`With logprobs (the text scored once more): ${scoredRatio.toFixed(2)} × the tokens/s of a free reply`);

  // Embeddings: batches of 8 short texts, one request at a time and 4 at once.
  const texts = Array.from({ length: 8 }, (_, i) => `Document ${i}: the river runs through the old city, past the market and the mill.`);
  const embed = async () => {
    const res = await fetch(`${backend.base}/v1/embeddings`, {
      method: 'POST',
      headers: { ...json, ...keyAuth },
      body: JSON.stringify({ model: EMBED_MODEL, input: texts }),
    });
    if (res.status !== 200) throw new Error(`POST /v1/embeddings answered ${res.status}: ${await res.text()}`);
    return (await res.json()).data.length;
  };
  await embed();
  const embedRows = [];
  for (const parallel of [1, 4]) {
    const t0 = performance.now();
    const latencies = [];
    let vectors = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          vectors += await embed();
          latencies.push(performance.now() - t);
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    embedRows.push({
      'requests at once': parallel,
      requests: parallel * runs,
      'embeddings/s': (vectors / secs).toFixed(0),
      'p50 ms': median(latencies).toFixed(1),
      'max ms': Math.max(...latencies).toFixed(1),
    });
  }
  console.log(`\nEmbeddings, ${EMBED_MODEL}, batches of ${texts.length} texts:`);
  table(embedRows);

  const rps = async (path, headers) => {
    const r = await autocannon({ url: backend.base + path, headers, duration: seconds, connections: 16 });
    return { path, 'req/s': r.requests.average.toFixed(0), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, 'non-2xx': r.non2xx };
  };
  console.log(`\nModel lists, ${seconds} s each, 16 connections:`);
  table([await rps('/v1/models', keyAuth), await rps('/api/inference/models', user.auth)]);
} finally {
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  await backend.stop();
}
