#!/usr/bin/env node
// What hostile JSON schemas cost everyone else: small streamed replies of one user (POST /v1/chat/completions, an API
// key, max_tokens 16) measured — time to first token and to the last chunk, p50 and p99 — while another key sends 20
// requests at once of one kind: none (quiet); plain (20 replies under a small schema, the load without anything
// hostile); at the limits (20 distinct schemas each at every limit of ChatCompletionRequest's x-json-schema-limits,
// served: each makes the worker build a grammar, none found in its cache); one schema at the limits (20 replies under
// one such schema: built once, then cached); past the limits (the attacks the limits answer: 10 × a 2,000-deep $defs
// chain, 10 × 8 enums of 50,000 values, refused with 400). The phases rotate round by round on one API and one worker
// of the bench's own. Prints figures; asserts nothing.
// Usage: node bench/json-schema.mjs [rounds=3] [replies=20] [threads=1]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchUser, root, startBackend, table } from './lib.mjs';

const rounds = Number(process.argv[2] ?? 3);
const replies = Number(process.argv[3] ?? 20);
const threads = process.argv[4] ?? '1';
const HOSTILE = 20;
const MODEL = 'glob-tiny-chat';
const modelsDir = join(root, '.data', 'models');
// A build from before the limits is rebuilt.
if (!existsSync(join(root, 'engine/dist/json-schema-gbnf.js'))) spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
if (!existsSync(join(modelsDir, `${MODEL}.gguf`))) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
const spec = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8'));
const L = spec.components.schemas.ChatCompletionRequest['x-json-schema-limits'];

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const pct = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const obj = (properties) => ({ type: 'object', properties });

/** A root whose property references d0, each definition's property the next one: `n` definitions, the last a string. */
function chain(n) {
  const $defs = {};
  for (let i = 0; i < n; i++) $defs[`d${i}`] = i + 1 < n ? obj({ next: { $ref: `#/$defs/d${i + 1}` } }) : { type: 'string' };
  return { $defs, ...obj({ first: { $ref: '#/$defs/d0' } }) };
}

/**
 * One schema at every limit at once, its values told apart by `seed` (no two alike, so no grammar is found cached):
 * enums filling the enum-value and character totals, lengths and counts adding up to theirs, a chain of references
 * as deep as allowed, plain properties up to the schema-object limit.
 */
function atEveryLimit(seed) {
  const properties = {};
  const valueLength = L.literal_characters / L.literals - 2;
  for (let j = 0; j < L.literals / L.enum_values; j++) {
    properties[`e${j}`] = { enum: Array.from({ length: L.enum_values }, (_, i) => `${seed}_${j * L.enum_values + i}`.padStart(valueLength, 'v')) };
  }
  for (let i = 0, left = L.bounds; left > 0; i++, left -= L.bound) {
    const bound = Math.min(L.bound, left) - (i === 0 ? seed % 7 : 0);
    properties[`b${i}`] = i % 2 ? { type: 'string', maxLength: bound } : { type: 'array', items: { type: 'integer' }, maxItems: bound };
  }
  const deep = chain(Math.floor((L.depth - 1) / 2));
  properties.deep = deep.properties.first;
  let used = 1 + (2 * Object.keys(deep.$defs).length - 1) + Object.keys(properties).length + Math.ceil(L.bounds / L.bound / 2);
  for (let i = 0; used < L.schemas; i++, used++) properties[`f${i}`] = { type: 'boolean' };
  return { $defs: deep.$defs, ...obj(properties) };
}
const PLAIN = obj({ city: { enum: ['Paris', 'Tokyo', 'Lima'] }, days: { type: 'integer' }, note: { type: 'string', maxLength: 12 } });
const BIG_ENUMS = obj(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`e${i}`, { enum: new Array(50_000).fill(0) }])));
const LONG_CHAIN = chain(2000);

const backend = await startBackend({
  WELCOME_BONUS_GLOB: '1000000',
  MODELS_DIR: modelsDir,
  WORKER_MODELS: 'none',
  API_KEY_REQUESTS_PER_WINDOW: '1000000000',
  API_KEY_TOKENS_PER_WINDOW: '1000000000',
  STREAMS_PER_USER: '64',
});
// startBackend waits 10 s for the API; a loaded machine can take longer.
for (
  let i = 0;
  !(await fetch(`${backend.base}/api/health`).then(
    (r) => r.ok,
    () => false,
  ));
  i++
) {
  if (i > 600) throw new Error('the API never answered /api/health');
  await new Promise((r) => setTimeout(r, 100));
}
const worker = spawn('node', ['backend/dist/worker.js'], {
  cwd: root,
  env: { ...process.env, ...backend.env, WORKER_MODELS: MODEL, INFERENCE_THREADS: threads, LOG_LEVEL: 'warn' },
  stdio: 'inherit',
});
try {
  const json = { 'content-type': 'application/json' };
  const keyOf = async (name) => {
    const user = await benchUser(backend, name);
    const res = await fetch(`${backend.base}/api/api-keys`, { method: 'POST', headers: { ...json, ...user.auth }, body: '{"name":"bench"}' });
    if (res.status !== 201) throw new Error(`POST /api/api-keys answered ${res.status}: ${await res.text()}`);
    return { ...json, authorization: `Bearer ${(await res.json()).key}` };
  };
  const victim = await keyOf('bench-victim');
  const attacker = await keyOf('bench-attacker');
  for (let i = 0; ; i++) {
    const models = await (await fetch(`${backend.base}/v1/models`, { headers: victim })).json();
    if (models.data?.some((m) => m.id === MODEL)) break;
    if (i > 600) throw new Error(`no worker ever served ${MODEL}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  /** One streamed chat completion: ms to its first content chunk and to its end, and its status. */
  const ask = async (headers, extra) => {
    const t0 = performance.now();
    const res = await fetch(`${backend.base}/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello there' }], temperature: 0, stream: true, ...extra }),
    });
    let first = null;
    if (res.ok) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (first === null && /"content":"[^"]/.test(decoder.decode(value, { stream: true }))) first = performance.now() - t0;
      }
    } else await res.text();
    return { status: res.status, ttft: first, total: performance.now() - t0 };
  };
  const small = () => ask(victim, { max_tokens: 16 });
  let seed = 0;
  const hostile = {
    quiet: () => [],
    plain: () =>
      Array.from({ length: HOSTILE }, () =>
        ask(attacker, { max_tokens: 32, response_format: { type: 'json_schema', json_schema: { name: 'plain', schema: PLAIN } } }),
      ),
    'at the limits': () =>
      Array.from({ length: HOSTILE }, () =>
        ask(attacker, { max_tokens: 32, response_format: { type: 'json_schema', json_schema: { name: 'hostile', schema: atEveryLimit(++seed) } } }),
      ),
    // The same, one schema for all 20: its grammar built once, then taken from the cache; what is left is generating
    // under a grammar that large.
    'one schema at the limits': () => {
      const schema = atEveryLimit(++seed);
      return Array.from({ length: HOSTILE }, () =>
        ask(attacker, { max_tokens: 32, response_format: { type: 'json_schema', json_schema: { name: 'hostile', schema } } }),
      );
    },
    'past the limits': () =>
      Array.from({ length: HOSTILE }, (_, i) =>
        ask(attacker, {
          max_tokens: 32,
          response_format: { type: 'json_schema', json_schema: { name: 'hostile', schema: i % 2 ? BIG_ENUMS : LONG_CHAIN } },
        }),
      ),
  };
  const phases = Object.keys(hostile);
  const results = Object.fromEntries(phases.map((p) => [p, { small: [], hostile: [] }]));
  await small();
  await Promise.all(hostile.plain());
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < phases.length; k++) {
      const phase = phases[(round + k) % phases.length];
      // The hostile requests all arrive at once, as the first small reply is asked; the small ones follow one by one.
      const sent = hostile[phase]();
      for (let i = 0; i < replies; i++) results[phase].small.push(await small());
      results[phase].hostile.push(...(await Promise.all(sent)));
    }
  }

  console.log(`\nSmall replies (max_tokens 16, streamed, one at a time) of one key while another sends ${HOSTILE} requests at once;`);
  console.log(`${MODEL}, worker threads ${threads}, ${rounds} rounds × ${replies} small replies per phase; limits ${JSON.stringify(L)}:`);
  const ms = (x) => (x === undefined || x === null ? '-' : x.toFixed(1));
  table(
    phases.map((phase) => {
      const { small: s, hostile: h } = results[phase];
      const ttft = s.map((r) => r.ttft).filter((x) => x !== null);
      const counts = new Map();
      for (const r of h) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
      const statuses = [...counts].map(([code, n]) => `${n}×${code}`);
      return {
        'the other key sends': phase,
        'small replies': s.length,
        'TTFT p50 ms': ms(pct(ttft, 50)),
        'TTFT p99 ms': ms(pct(ttft, 99)),
        'total p50 ms': ms(
          pct(
            s.map((r) => r.total),
            50,
          ),
        ),
        'total p99 ms': ms(
          pct(
            s.map((r) => r.total),
            99,
          ),
        ),
        'its answers': statuses.join(' ') || '-',
        'its p50 ms': h.length
          ? ms(
              pct(
                h.map((r) => r.total),
                50,
              ),
            )
          : '-',
      };
    }),
  );
} finally {
  worker.kill('SIGTERM');
  await new Promise((r) => (worker.exitCode !== null ? r() : worker.once('exit', r)));
  await backend.stop();
}
