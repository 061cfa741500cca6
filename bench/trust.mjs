// What trusting nothing a node says costs the API: the platform's own token count (µs per call, in the API's
// tokenizer thread) and its share of relaying a remote node's reply through the real API, measured side by side with
// the relay itself; /api/health while a node floods its jobs (each cut at its byte cap); and how much of the
// network's work spot checks replay under the default policy.
// Usage: node bench/trust.mjs [replies] [tokens]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { benchNode, benchUser, root, startAppReply, startBackend, table } from './lib.mjs';

const REPLIES = Number(process.argv[2] ?? 20);
const TOKENS = Number(process.argv[3] ?? 256);
const MODEL = 'glob-tiny-chat';
const modelsDir = join(root, '.data/models');
if (!existsSync(join(root, 'backend/dist/main.js'))) spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
if (!existsSync(join(modelsDir, 'glob-tiny-chat.gguf'))) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });

const require = createRequire(import.meta.url);
const { TokenCounter } = require(join(root, 'backend/dist/modules/catalog/token-counter.js'));
const { CatalogService } = require(join(root, 'backend/dist/modules/catalog/catalog.service.js'));
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const us = (ms) => Math.round(ms * 1000);

// 1. The count itself, through the same thread protocol the API uses.
const counter = new TokenCounter(new CatalogService({ inference: { catalogPath: undefined, modelsDir } }));
const words = 'the river runs under the old stone bridge and into the city at night '.repeat(200);
const sample = async (what, call, n = 500) => {
  await call(); // the vocabulary loads on first use
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  return { what, p50_us: us(pct(times, 50)), p99_us: us(pct(times, 99)) };
};
const rows = [];
for (const chars of [4, 32, 256, 4096]) {
  const text = words.slice(0, chars);
  const tokens = await counter.countText(MODEL, text);
  rows.push(await sample(`count ${tokens} tokens of text (${chars} chars)`, () => counter.countText(MODEL, text)));
}
rows.push(await sample('count a short prompt (chat template)', () => counter.countPrompt(MODEL, [{ role: 'user', content: 'Hello there' }])));
rows.push(await sample('count a 2,000-character prompt', () => counter.countPrompt(MODEL, [{ role: 'user', content: words.slice(0, 2000) }])));
console.log('\nThe platform counting tokens (worker thread round trip included)');
table(rows);
await counter.onApplicationShutdown();

// 2. A remote node's reply relayed through the real API: events of a few words, as the agent batches them, then done.
// The API counts the prompt at the claim and the relayed text at the done; its count is timed here on the same
// tokenizer, beside the whole relay.
const backend = await startBackend({ WORKER_MODELS: 'none', MODELS_DIR: modelsDir, NODE_RATE_LIMIT: '1000000', HEARTBEAT_SECONDS: '30' });
try {
  const provider = await benchUser(backend, 'trust-provider');
  const requester = await benchUser(backend, 'trust-requester');
  const { auth: nodeAuth } = await benchNode(backend, provider, {
    name: 'bench-relay',
    model: MODEL,
    modelPath: join(modelsDir, 'glob-tiny-chat.gguf'),
  });
  const localCounter = new TokenCounter(new CatalogService({ inference: { catalogPath: undefined, modelsDir } }));
  const pieces = words.split(' ').map((w) => `${w} `);
  const relay = [];
  const counting = [];
  let events = 0;
  const messages = [{ role: 'user', content: 'Tell me about the river' }];
  for (let r = 0; r < REPLIES; r++) {
    const reading = startAppReply(backend, requester, { model: MODEL, messages, maxTokens: TOKENS }).then((res) => res.text());
    const claim = await fetch(`${backend.base}/api/nodes/jobs/claim`, {
      method: 'POST',
      headers: nodeAuth,
      body: JSON.stringify({ wait_seconds: 5 }),
    });
    const job = await claim.json();
    let text = '';
    const t0 = performance.now();
    for (let i = 0; text.length < job.max_bytes / 8 && i < job.params.max_tokens / 2; i += 4) {
      const chunk = pieces.slice(i, i + 4).join('');
      text += chunk;
      events++;
      await fetch(`${backend.base}/api/nodes/jobs/${job.job_id}/events`, {
        method: 'POST',
        headers: nodeAuth,
        body: JSON.stringify({ events: [{ type: 'token', text: chunk }] }),
      });
    }
    await fetch(`${backend.base}/api/nodes/jobs/${job.job_id}/events`, {
      method: 'POST',
      headers: nodeAuth,
      body: JSON.stringify({ events: [{ type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'length' }] }),
    });
    await reading;
    relay.push({ ms: performance.now() - t0, tokens: await localCounter.countText(MODEL, text) });
    const c0 = performance.now();
    await localCounter.countPrompt(MODEL, messages);
    await localCounter.countText(MODEL, text);
    counting.push(performance.now() - c0);
  }
  await localCounter.onApplicationShutdown();
  const tokens = relay.reduce((n, r) => n + r.tokens, 0);
  const relayMs = relay.reduce((n, r) => n + r.ms, 0);
  const countMs = counting.reduce((n, c) => n + c, 0);
  console.log(
    `\nA remote node's reply relayed through the API (${REPLIES} replies of ~${Math.round(tokens / REPLIES)} tokens, events of ~${(tokens / events).toFixed(1)} tokens)`,
  );
  table([
    {
      path: 'relay through the API (counting included)',
      'tokens/s': Math.round((tokens / relayMs) * 1000),
      'ms/reply': (relayMs / REPLIES).toFixed(1),
    },
    {
      path: 'the same replies without the count (relay − count)',
      'tokens/s': Math.round((tokens / (relayMs - countMs)) * 1000),
      'ms/reply': ((relayMs - countMs) / REPLIES).toFixed(1),
    },
  ]);
  console.log(
    `counting per reply: ${(countMs / REPLIES).toFixed(2)} ms (${((countMs / relayMs) * 100).toFixed(1)} % of the relay); per event: ${us(countMs / events)} µs`,
  );

  // 3. A flooding node: 4 KB events, as fast as it can, on jobs of 2,048 tokens, while another client times
  // /api/health; beside the same health timing with nothing else going on.
  const health = async (ms) => {
    const times = [];
    for (const end = performance.now() + ms; performance.now() < end;) {
      const t = performance.now();
      await fetch(`${backend.base}/api/health`);
      times.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    return times;
  };
  const idle = await health(3_000);
  let flooding = true;
  let bytes = 0;
  let cut = 0;
  const flood = (async () => {
    const chunk = 'y'.repeat(4_000);
    while (flooding) {
      const reading = startAppReply(backend, requester, { model: MODEL, messages, maxTokens: 2048 }).then((res) => res.text());
      const job = await (
        await fetch(`${backend.base}/api/nodes/jobs/claim`, { method: 'POST', headers: nodeAuth, body: JSON.stringify({ wait_seconds: 5 }) })
      ).json();
      for (;;) {
        const res = await fetch(`${backend.base}/api/nodes/jobs/${job.job_id}/events`, {
          method: 'POST',
          headers: nodeAuth,
          body: JSON.stringify({ events: [{ type: 'token', text: chunk }] }),
        });
        if (res.status !== 200) break;
        bytes += chunk.length;
      }
      cut++;
      await reading;
    }
  })();
  const busy = await health(3_000);
  flooding = false;
  await flood;
  console.log(`\n/api/health while a node floods (${cut} jobs, each cut at its byte cap; ${(bytes / 1e6).toFixed(1)} MB relayed in all)`);
  table([
    { health: 'idle', requests: idle.length, 'p50 ms': pct(idle, 50).toFixed(1), 'p99 ms': pct(idle, 99).toFixed(1) },
    { health: 'during the flood', requests: busy.length, 'p50 ms': pct(busy, 50).toFixed(1), 'p99 ms': pct(busy, 99).toFixed(1) },
  ]);
} finally {
  await backend.stop();
}

// 4. Spot checks under the default policy (every one of a node's first 3 replies, then 5 %), as a share of the
// tokens a node serves over its first n replies of equal length.
console.log('\nSpot checks: replayed tokens as a share of all tokens served (SPOT_CHECK_FIRST 3, SPOT_CHECK_PERCENT 5; policy, not timed)');
table(
  [10, 100, 1000, 10000].map((n) => ({
    'replies per node': n,
    'replayed share': `${(((Math.min(3, n) + 0.05 * Math.max(0, n - 3)) / n) * 100).toFixed(1)} %`,
  })),
);
