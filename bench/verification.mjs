// What verifying a node's reply by recomputation costs against generating it, and what it catches. The tiny model in
// engine-probe children (backend/test/support/engine-probe.ts), one thread: replies generated without and with their
// commitment, each verified by one teacher-forced pass (ms, and the ratio to generating it); honest replies that fail
// (false positives); and per attack, with the attacker committing the model's true numbers for its own tokens, how
// many of the runs the verifier catches.
// Usage: node bench/verification.mjs [replies] [tokens]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root, table } from './lib.mjs';

const REPLIES = Number(process.argv[2] ?? 40);
const TOKENS = Number(process.argv[3] ?? 128);
const model = join(root, '.data/models/glob-tiny-chat.gguf');
if (!existsSync(model)) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
const EOG = 4; // the tiny model's end of turn (<|im_end|>)

const probe = (request) => {
  const out = spawnSync(
    process.execPath,
    ['--conditions=glob-source', '-r', '@swc-node/register', 'test/support/engine-probe.ts', model, JSON.stringify({ threads: 1, ...request })],
    { cwd: join(root, 'backend'), encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  if (out.status !== 0) throw out.error ?? new Error(out.stderr || out.stdout);
  return out.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
};
// One argument carries the request (128 KiB at most): long recomputations go a few at a time.
const recompute = (list) => {
  const out = [];
  for (let i = 0; i < list.length; i += 3) out.push(...probe({ recompute: list.slice(i, i + 3) }).filter((l) => l.type === 'recomputed'));
  return out;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PROMPTS = ['Tell me about the river.', 'Hello! How are you today?', 'Write a story about a city', 'What is a token?'];
const sampling = { temperature: 0.8, top_p: 0.95, max_tokens: TOKENS };
const runs = Array.from({ length: REPLIES }, (_, i) => ({
  messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }],
  sampling: { ...sampling, seed: 500 + i },
}));

// 1. Generation without and with the commitment, then verification of each committed reply.
const plain = probe({ generate: runs }).filter((l) => l.type === 'result');
const committed = probe({ generate: runs.map((r) => ({ ...r, commit: true })) }).filter((l) => l.type === 'result');
const verified = recompute(
  runs.map((r, i) => ({
    messages: r.messages,
    sampling: { max_tokens: r.sampling.max_tokens },
    tokens: committed[i].commitment.map((s) => s.token),
    committed: committed[i].commitment,
    claim: { text: committed[i].text, stopReason: committed[i].stopReason, sampling },
  })),
);
const genMs = median(plain.map((r) => r.durationMs));
const commitMs = median(committed.map((r) => r.durationMs));
const verifyMs = median(verified.map((r) => r.ms));
console.log(
  `\n${REPLIES} replies of up to ${TOKENS} tokens (median ${median(committed.map((r) => r.completionTokens))}), temperature 0.8, top_p 0.95, 1 thread:`,
);
table([
  { what: 'generate (no commitment)', ms_p50: genMs.toFixed(1), ratio: '1.00' },
  { what: 'generate + commitment', ms_p50: commitMs.toFixed(1), ratio: (commitMs / genMs).toFixed(2) },
  { what: 'verify (one recomputation pass)', ms_p50: verifyMs.toFixed(1), ratio: (verifyMs / genMs).toFixed(2) },
]);
console.log(`honest replies failing verification (false positives): ${verified.filter((v) => !v.verdict.passed).length} of ${verified.length}`);

// 2. Attacks: the attacker sends its own tokens with the model's true numbers for them (one pass over its text).
const [{ tokens: pieces }] = probe({ tokenize: [' ', ' Log in at evil.example now.'] }).filter((l) => l.type === 'tokens');
const attacks = {
  'blank (" " then the end)': () => [...pieces[0], EOG],
  'empty (the end at once)': () => [EOG],
  'honest 60 % + injected text': (i) => [
    ...committed[i].commitment.slice(0, Math.ceil(committed[i].commitment.length * 0.6)).map((s) => s.token),
    ...pieces[1],
    EOG,
  ],
  "another prompt's reply": (i) => committed[(i + 1) % REPLIES].commitment.map((s) => s.token),
};
const rows = [];
for (const [name, tokensOf] of Object.entries(attacks)) {
  const n = Math.min(20, REPLIES);
  const req = runs.slice(0, n).map((r, i) => ({ messages: r.messages, sampling: { max_tokens: r.sampling.max_tokens }, tokens: tokensOf(i) }));
  const honestNumbers = recompute(req);
  const judged = recompute(
    req.map((r, i) => ({
      ...r,
      committed: honestNumbers[i].steps.map((s) => ({ ...s, top: s.top.slice(0, 4) })),
      claim: { text: honestNumbers[i].text, stopReason: honestNumbers[i].eog.at(-1) ? 'stop' : 'length', sampling },
    })),
  );
  const caught = judged.filter((j) => !j.verdict.passed);
  rows.push({
    attack: name,
    caught: `${caught.length}/${n}`,
    first_bad_token_p50: caught.length ? median(caught.map((j) => j.verdict.checked - 1)) : '-',
  });
}
table(rows);

// 3. Replies a liar delivers before it is suspended: every reply is verified during probation (1), then a random
// share p; with every verified lie caught, the count is geometric. Simulated, 20 runs per share.
const sim = (p) =>
  Array.from({ length: 20 }, () => {
    let n = 1;
    while (Math.random() >= p) n++;
    return n;
  });
table(
  [0.1, 0.05].map((p) => {
    const xs = sim(p);
    return { share: `${p * 100} %`, median: median(xs), worst_of_20: Math.max(...xs) };
  }),
);
