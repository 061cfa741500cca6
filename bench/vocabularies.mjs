// What a real vocabulary costs per token: the tiny models with Llama 3's (128,256 tokens) and Qwen 2.5's (151,665
// tokens) real tokenizers against glob-tiny-chat (1,166 pieces), side by side in one run. One engine-probe process
// (backend/test/support/engine-probe.ts --serve, 1 thread) holds the three models; round by round, each measure runs on
// every model in turn (the order rotating), so the machine's load hits them alike:
//   - a plain reply: decode tokens/s ((tokens − 1) / (end − first token)) and time to first token;
//   - the same reply (same prompt and seed) with logprobs (top 5): tokens/s, and what the scoring pass adds per token;
//   - a reply under a small JSON schema's grammar: tokens/s and first-token ms (the schema names its model, so each
//     model's first JSON reply builds its grammar, the grammar thread already started; later ones find it cached);
//   - the reply with its commitment, then the verifier's recomputation of it: ms per reply and µs per token;
//   - the platform's own token count (backend/dist's TokenCounter, its tokenizer thread): µs per count of a 256- and a
//     4,096-character English text and of a chat prompt (countPrompt), p50/p99; tokens per 1,000 characters;
//   - vocabulary size and model file size.
// Prints figures; asserts nothing. `npm run build -w backend` runs first when backend/dist is missing or older than
// the sources, `npm run model:tiny -w backend` when a model file is missing.
// Usage: node bench/vocabularies.mjs [replies=8] [tokens=64] (about 4 min on a busy 2-core machine: the real
// vocabularies' scoring passes take ~50 ms per token there)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, table } from './lib.mjs';

const REPLIES = Number(process.argv[2] ?? 8);
const TOKENS = Number(process.argv[3] ?? 64);
const COUNTS = 40; // token counts per text, model and round
const MODELS = ['glob-tiny-chat', 'glob-tiny-llama3', 'glob-tiny-qwen2'];
const modelsDir = join(root, '.data/models');
const fileOf = (id) => join(modelsDir, `${id}.gguf`);
const started = performance.now();

// The newest file under `dir` (ms), .ts/.js/.json sources only.
const newest = (dir) => {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|js|json)$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
};
const built = join(root, 'backend/dist/modules/catalog/token-counter.js');
// The sources of what the bench loads from the build: the catalog module (TokenCounter) and the engine.
if (!existsSync(built) || statSync(built).mtimeMs < Math.max(newest(join(root, 'backend/src/modules/catalog')), newest(join(root, 'engine/src')))) {
  spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
}
if (MODELS.some((id) => !existsSync(fileOf(id)))) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });

// ---- the engine: one probe process serving every model -------------------------------------------------------------
const child = spawn(process.execPath, ['--conditions=glob-source', '-r', '@swc-node/register', 'test/support/engine-probe.ts', '--serve'], {
  cwd: join(root, 'backend'),
  stdio: ['pipe', 'pipe', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
const waiting = new Map();
let buffer = '';
child.stdout.on('data', (d) => {
  buffer += d;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line);
    const w = waiting.get(o.id);
    if (!w) continue;
    if (o.type === 'end') {
      waiting.delete(o.id);
      const error = w.lines.find((l) => l.type === 'error');
      if (error) w.reject(new Error(`${error.name}: ${error.message}`));
      else w.resolve(w.lines);
    } else if (o.type !== 'token') w.lines.push(o);
  }
});
child.on('exit', (code) => {
  for (const w of waiting.values()) w.reject(new Error(`engine-probe exited with ${code}: ${stderr}`));
});
let seq = 0;
const probe = (model, request) =>
  new Promise((resolve, reject) => {
    const id = ++seq;
    waiting.set(id, { lines: [], resolve, reject });
    child.stdin.write(`${JSON.stringify({ id, model: fileOf(model), request })}\n`);
  });
const one = async (model, run) => (await probe(model, { generate: run })).find((l) => l.type === 'result');

// ---- the platform's token count --------------------------------------------------------------------------------------
const require = createRequire(import.meta.url);
const { TokenCounter } = require(join(root, 'backend/dist/modules/catalog/token-counter.js'));
const { CatalogService } = require(join(root, 'backend/dist/modules/catalog/catalog.service.js'));
const counter = new TokenCounter(new CatalogService({ inference: { catalogPath: undefined, modelsDir } }));
const ENGLISH =
  'The river runs under the old stone bridge and into the city, where the markets open before dawn. Fishermen ' +
  'unload their boats while bakers carry bread through narrow streets, and the first trams rattle past shuttered ' +
  'windows. By noon the square is crowded with travellers asking for directions, students arguing about history, ' +
  'and children chasing pigeons around the fountain. A museum on the hill keeps maps drawn three centuries ago, ' +
  'showing how the water once flooded the lower districts every spring. Engineers later built walls and locks, ' +
  'and the neighbourhoods that used to disappear under mud became gardens. In the evening, people walk along the ' +
  'embankment, talking about work, prices, weather and the football match, until the lamps come on and the cafés ' +
  "fill with music. Nobody remembers exactly when the bridge was finished, but everyone agrees it's the heart of the town. ";
const text4096 = ENGLISH.repeat(Math.ceil(4096 / ENGLISH.length)).slice(0, 4096);
const text256 = text4096.slice(0, 256);
const chat = [
  { role: 'system', content: 'You are a helpful assistant. Answer briefly and politely.' },
  { role: 'user', content: ENGLISH.slice(0, 300) },
  { role: 'assistant', content: 'It sounds like a lively old town built around its river.' },
  { role: 'user', content: 'What would you visit first, and why?' },
];

// ---- the rounds ------------------------------------------------------------------------------------------------------
const PROMPTS = ['Tell me about the river.', 'Hello! How are you today?', 'Write a story about a city', 'What is a token?'];
const schemaFor = (model) => ({
  type: 'object',
  description: `a person (${model})`,
  properties: { name: { type: 'string' }, age: { type: 'integer' }, city: { type: 'string' } },
  required: ['name', 'age', 'city'],
});
const sampling = { temperature: 0.8, top_p: 0.95, max_tokens: TOKENS };
const m = Object.fromEntries(
  MODELS.map((id) => [
    id,
    { plain: [], logprobs: [], json: [], commit: [], verify: [], text256: [], text4096: [], prompt: [], loadMs: 0, tokens4096: 0 },
  ]),
);

// Loads every model (not measured): a short reply each, and one under another schema (the grammar thread starts).
const WARM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
for (const id of MODELS) {
  const warm = { messages: [{ role: 'user', content: 'Hi' }], sampling: { ...sampling, max_tokens: 8, seed: 1 } };
  const lines = await probe(id, { generate: [warm, { ...warm, sampling: { ...warm.sampling, json_schema: WARM_SCHEMA } }] });
  m[id].loadMs = lines.find((l) => l.type === 'loaded').loadMs;
  m[id].tokens4096 = await counter.countText(id, text4096); // the vocabulary loads on first use
  m[id].vocab = await counter.vocabSize(id);
  m[id].bytes = statSync(fileOf(id)).size;
}

const timeCount = async (list, call) => {
  for (let i = 0; i < COUNTS; i++) {
    const t = performance.now();
    await call();
    list.push(performance.now() - t);
  }
};
for (let r = 0; r < REPLIES; r++) {
  const order = MODELS.map((_, i) => MODELS[(i + r) % MODELS.length]);
  const messages = [{ role: 'user', content: `${PROMPTS[r % PROMPTS.length]} (${r + 1})` }];
  const run = { messages, sampling: { ...sampling, seed: 700 + r } };
  for (const id of order) m[id].plain.push(await one(id, run));
  for (const id of order) m[id].logprobs.push(await one(id, { ...run, sampling: { ...run.sampling, logprobs: 5 } }));
  for (const id of order) m[id].json.push(await one(id, { ...run, sampling: { ...run.sampling, json_schema: schemaFor(id) } }));
  for (const id of order) {
    const c = await one(id, { ...run, commit: true });
    m[id].commit.push(c);
    const [v] = (
      await probe(id, {
        recompute: [
          {
            messages,
            sampling: { max_tokens: TOKENS },
            tokens: c.commitment.map((s) => s.token),
            committed: c.commitment,
            claim: { text: c.text, stopReason: c.stopReason, sampling },
          },
        ],
      })
    ).filter((l) => l.type === 'recomputed');
    m[id].verify.push({ ms: v.ms, tokens: c.commitment.length, passed: v.verdict?.passed, why: v.verdict?.why });
  }
  for (const id of order) {
    await timeCount(m[id].text256, () => counter.countText(id, text256));
    await timeCount(m[id].text4096, () => counter.countText(id, text4096));
    await timeCount(m[id].prompt, () => counter.countPrompt(id, chat));
  }
  process.stderr.write(`round ${r + 1}/${REPLIES} done (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
}
const promptTokens = Object.fromEntries(await Promise.all(MODELS.map(async (id) => [id, await counter.countPrompt(id, chat)])));
await counter.onApplicationShutdown();
child.stdin.end();
await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));

// ---- figures ---------------------------------------------------------------------------------------------------------
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
// Decode tokens/s over all replies: tokens after the first over the time after the first (what follows the last
// token, such as a scoring pass, included).
const decode = (rs) => {
  const ok = rs.filter((r) => r.completionTokens >= 2 && r.firstTokenMs !== null);
  return (sum(ok.map((r) => r.completionTokens - 1)) / sum(ok.map((r) => r.durationMs - r.firstTokenMs))) * 1000;
};
const stats = Object.fromEntries(
  MODELS.map((id) => {
    const s = m[id];
    const plainTps = decode(s.plain);
    const lpTps = decode(s.logprobs);
    return [
      id,
      {
        vocab: s.vocab,
        mib: s.bytes / 2 ** 20,
        load: s.loadMs,
        replyTokens: pct(
          s.plain.map((r) => r.completionTokens),
          50,
        ),
        plainTps,
        firstMs: pct(
          s.plain.map((r) => r.firstTokenMs ?? r.durationMs),
          50,
        ),
        lpTps,
        lpUs: 1e6 / lpTps - 1e6 / plainTps,
        jsonTps: decode(s.json),
        jsonTokens: pct(
          s.json.map((r) => r.completionTokens),
          50,
        ),
        jsonFirstBuilt: s.json[0].firstTokenMs ?? s.json[0].durationMs,
        jsonFirstMs:
          s.json.length > 1
            ? pct(
                s.json.slice(1).map((r) => r.firstTokenMs ?? r.durationMs),
                50,
              )
            : NaN,
        commitMs: pct(
          s.commit.map((r) => r.durationMs),
          50,
        ),
        commitUs: (sum(s.commit.map((r) => r.durationMs)) / sum(s.commit.map((r) => r.completionTokens))) * 1000,
        verifyMs: pct(
          s.verify.map((v) => v.ms),
          50,
        ),
        verifyUs: (sum(s.verify.map((v) => v.ms)) / sum(s.verify.map((v) => v.tokens))) * 1000,
        verifyFailed: s.verify.filter((v) => v.passed === false).length,
        c256: [pct(s.text256, 50), pct(s.text256, 99)].map((x) => x * 1000),
        c4096: [pct(s.text4096, 50), pct(s.text4096, 99)].map((x) => x * 1000),
        cPrompt: [pct(s.prompt, 50), pct(s.prompt, 99)].map((x) => x * 1000),
        per1000: (s.tokens4096 / 4096) * 1000,
        promptTokens: promptTokens[id],
      },
    ];
  }),
);
const [base, ...others] = MODELS;
const fmt = (x, digits = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
const rows = [];
// A row: what, a figure per model, each real-vocabulary model's ratio to glob-tiny-chat.
const row = (what, get, digits = 0) => {
  const r = { what, [base]: fmt(get(stats[base]), digits) };
  for (const id of others) {
    r[id] = fmt(get(stats[id]), digits);
    r[`${id.replace('glob-tiny-', '')} ×`] = fmt(get(stats[id]) / get(stats[base]), 2);
  }
  rows.push(r);
};
const pair = (what, get) => {
  const r = {
    what,
    [base]: get(stats[base])
      .map((x) => fmt(x))
      .join(' / '),
  };
  for (const id of others) {
    r[id] = get(stats[id])
      .map((x) => fmt(x))
      .join(' / ');
    r[`${id.replace('glob-tiny-', '')} ×`] = fmt(get(stats[id])[0] / get(stats[base])[0], 2);
  }
  rows.push(r);
};
row('vocabulary (tokens)', (s) => s.vocab);
row('model file (MiB)', (s) => s.mib, 1);
row('load (ms, once)', (s) => s.load);
row('plain reply: tokens (p50)', (s) => s.replyTokens);
row('plain: decode tokens/s', (s) => s.plainTps);
row('plain: first token ms (p50)', (s) => s.firstMs);
row('logprobs top 5: tokens/s', (s) => s.lpTps);
row('logprobs: + µs/token vs plain', (s) => s.lpUs);
row('JSON schema: tokens (p50)', (s) => s.jsonTokens);
row('JSON schema: decode tokens/s', (s) => s.jsonTps);
row('JSON: first token ms, grammar built', (s) => s.jsonFirstBuilt);
row('JSON: first token ms, cached (p50)', (s) => s.jsonFirstMs);
row('commitment: ms/reply (p50)', (s) => s.commitMs, 1);
row('commitment: µs/token', (s) => s.commitUs);
row('verification: ms/reply (p50)', (s) => s.verifyMs, 1);
row('verification: µs/token', (s) => s.verifyUs);
pair('count 256 chars: µs p50 / p99', (s) => s.c256);
pair('count 4,096 chars: µs p50 / p99', (s) => s.c4096);
pair(`countPrompt (4 turns): µs p50 / p99`, (s) => s.cPrompt);
row('countPrompt (4 turns): tokens', (s) => s.promptTokens);
row('tokens per 1,000 chars of English', (s) => s.per1000, 1);
console.log(
  `\n${REPLIES} rounds, replies of up to ${TOKENS} tokens (temperature 0.8, top_p 0.95), 1 thread, ${COUNTS * REPLIES} counts per text; ` +
    `× = the model's figure / glob-tiny-chat's`,
);
table(rows);
const failed = MODELS.filter((id) => stats[id].verifyFailed > 0).map(
  (id) => `${id} ${stats[id].verifyFailed} of ${REPLIES} (first: ${m[id].verify.find((v) => v.passed === false).why})`,
);
console.log(`honest replies failing verification: ${failed.length ? failed.join(', ') : 'none'}`);
console.log(`run time ${((performance.now() - started) / 1000).toFixed(0)} s`);
