/**
 * The engine as generator and as verifier, on the tiny model in child processes (test/support/engine-probe.ts): every
 * honest reply, whatever its sampling, passes verification by recomputation (no false positives), and the verifier's
 * pass is the reply's own tokens and text.
 */
import { join } from 'node:path';
import type { Step } from '@glob/engine/commitment';
import { verifyReply, type Recomputation } from '@glob/engine/verification';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { probeEngine } from '../support/engine-run';

const PROMPTS = ['Tell me about the river.', 'Hello! How are you today?', 'Write a story about a city', 'What is a token?'];
const SAMPLINGS = [
  { temperature: 0.8, top_p: 0.95 },
  { temperature: 1, top_p: 1 },
  { temperature: 0, top_p: 1 },
  { temperature: 0.7, top_p: 0.9 },
  { temperature: 1.5, top_p: 0.5 },
];
const REPLIES = 120;

interface Result {
  text: string;
  stopReason: 'stop' | 'length' | 'abort';
  commitment: Step[];
}

describe('verification by recomputation on the engine (child processes, tiny model)', () => {
  it(`${REPLIES} honest replies at five samplings all pass, each ending as it claims`, async () => {
    const model = join(process.env.MODELS_DIR!, TINY_MODEL_FILE);
    const runs = Array.from({ length: REPLIES }, (_, i) => ({
      messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length]! }],
      sampling: { max_tokens: 24 + (i % 3) * 16, ...SAMPLINGS[i % SAMPLINGS.length]!, seed: 1000 + i },
      commit: true,
    }));
    const generated = await probeEngine(model, { threads: 1, generate: runs });
    const results = generated.lines.filter((l) => l.type === 'result') as unknown as Result[];
    expect(results).toHaveLength(REPLIES);
    const verified = await probeEngine(model, {
      threads: 1,
      recompute: runs.map((r, i) => ({
        messages: r.messages,
        sampling: { max_tokens: r.sampling.max_tokens },
        tokens: results[i]!.commitment.map((s) => s.token),
      })),
    });
    const recomputed = verified.lines.filter((l) => l.type === 'recomputed') as unknown as Recomputation[];
    expect(recomputed).toHaveLength(REPLIES);
    const verdicts = results.map((r, i) =>
      verifyReply(r.commitment, recomputed[i]!, { text: r.text, stopReason: r.stopReason, sampling: runs[i]!.sampling }),
    );
    expect(verdicts.filter((v) => !v.passed)).toEqual([]);
    // Both ends occur: replies the model ended (its end token committed last) and replies cut at their cap.
    expect(results.some((r, i) => r.stopReason === 'length' && r.commitment.length === runs[i]!.sampling.max_tokens)).toBe(true);
    expect(recomputed.some((r) => r.eog.at(-1))).toBe(true);
  }, 120_000);
});

describe('verification of JSON replies generated under a grammar (child processes, tiny model)', () => {
  const SCHEMA = {
    type: 'object',
    properties: { answer: { type: 'string' }, note: { type: 'string' } },
    required: ['answer', 'note'],
    additionalProperties: false,
  };
  const JSON_REPLIES = 30;
  const model = () => join(process.env.MODELS_DIR!, TINY_MODEL_FILE);
  /** What a reply claims it was sampled with: under the run's schema, with free strings, capped at `max_tokens`. */
  const sampling = (i: number, max_tokens = 96) => ({ ...SAMPLINGS[i % SAMPLINGS.length]!, json_schema: SCHEMA, freeStrings: true, max_tokens });

  it(`${JSON_REPLIES} honest JSON replies with free strings pass; the same JSON with made-up string contents fails`, async () => {
    const runs = Array.from({ length: JSON_REPLIES }, (_, i) => ({
      messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length]! }],
      sampling: { max_tokens: 96, ...SAMPLINGS[i % SAMPLINGS.length]!, seed: 2000 + i, json_schema: SCHEMA },
      commit: true,
    }));
    const results = (await probeEngine(model(), { threads: 1, generate: runs })).lines.filter((l) => l.type === 'result') as unknown as Result[];
    // A liar's JSON: the same shape, its own words in the strings, with the model's numbers for its tokens.
    const lie = JSON.stringify({ answer: 'Log in at evil.example now', note: 'trust me' });
    const tokenized = (await probeEngine(model(), { tokenize: [lie] })).lines.find((l) => l.type === 'tokens') as unknown as { tokens: number[][] };
    const lieTokens = tokenized.tokens[0]!;
    const verified = await probeEngine(model(), {
      threads: 1,
      recompute: [
        ...runs.map((r, i) => ({
          messages: r.messages,
          sampling: { max_tokens: r.sampling.max_tokens },
          tokens: results[i]!.commitment.map((s) => s.token),
        })),
        { messages: runs[0]!.messages, sampling: { max_tokens: 96 }, tokens: lieTokens },
      ],
    });
    const recomputed = verified.lines.filter((l) => l.type === 'recomputed') as unknown as Recomputation[];
    const verdicts = results.map((r, i) =>
      verifyReply(r.commitment, recomputed[i]!, { text: r.text, stopReason: r.stopReason, sampling: sampling(i) }),
    );
    expect(verdicts.filter((v) => !v.passed)).toEqual([]);
    // Each is the grammar's JSON, its first string value free text the verifier judged (most run to the cap inside it).
    for (const r of results) expect(r.text).toMatch(/^\{\s*"answer"\s*:\s*"/);
    const liar = recomputed.at(-1)!;
    const committed = liar.steps.map((s) => ({ ...s, top: s.top.slice(0, 4) }));
    const verdict = verifyReply(committed, liar, { text: lie, stopReason: 'length', sampling: sampling(0, committed.length) });
    expect(verdict).toMatchObject({ passed: false, why: expect.stringMatching(/inside a JSON string/) });
  }, 120_000);
});
