/**
 * LlamaEngine scoring its replies' tokens (logprobs), against the generated tiny model. The engine runs in a child
 * process (test/support/engine-probe.ts); no database.
 */
import { logprobsProblem, type TokenLogprob } from '@glob/engine/logprobs';
import { probeTinyModel, type ProbeLine } from '../support/engine-run';

interface ResultLine extends ProbeLine {
  run: number;
  g: number;
  text: string;
  completionTokens: number;
  logprobs?: TokenLogprob[];
  commitment?: Array<{ token: number; logprob: number }>;
}

const chat = (seed: number, temperature: number, logprobs?: number) => ({
  messages: [{ role: 'user', content: 'Tell me about the river.' }],
  sampling: { max_tokens: 40, temperature, top_p: 1, seed, ...(logprobs !== undefined ? { logprobs } : {}) },
});
const raw = (logprobs: number) => ({ prompt: 'Once upon a time', sampling: { max_tokens: 30, temperature: 0, top_p: 1, seed: 1, logprobs } });

const RUNS = {
  greedy: 0,
  sampled: 1,
  sampledAgain: 2,
  sampledPlain: 3,
  none: 4,
  raw: 5,
  twoAtOnce: 6,
  punctuationFirst: 7,
};
// Seed 14 makes the tiny model start its reply with "!", a token a SentencePiece tokenizer would split off a space from.
const punctuationFirst = {
  messages: [{ role: 'user', content: 'Tell me about the river.' }],
  sampling: { max_tokens: 12, temperature: 0.7, top_p: 0.9, seed: 14, logprobs: 2 },
  commit: true,
};
const runs = [chat(1, 0, 5), chat(7, 1, 3), chat(7, 1, 3), chat(7, 1), chat(3, 0.7, 0), raw(2), { ...chat(9, 1, 1), parallel: 2 }, punctuationFirst];

const { output, resultOf } = probeTinyModel<ResultLine>({ generate: runs });

describe('LlamaEngine logprobs (child process, generated tiny model)', () => {
  it('greedy: each token is the likeliest at its place, its texts are the reply, and the candidates are likeliest first', () => {
    expect({ code: output().code, stderr: output().stderr }).toEqual({ code: 0, stderr: '' });
    const r = resultOf(RUNS.greedy);
    expect(r.text.length).toBeGreaterThan(0);
    const lp = r.logprobs!;
    expect(logprobsProblem(r.text, lp, 5)).toBeNull();
    expect(lp.map((t) => t.token).join('')).toBe(r.text);
    // Scored where it was generated: at temperature 0 the generator took the model's likeliest token every time.
    for (const t of lp) {
      expect(t.logprob).toBeCloseTo(t.top_logprobs[0]!.logprob, 5);
      expect(t.top_logprobs[0]!.token).toBe(t.token);
    }
    // A distribution: the five likeliest take no more than all of it, and not all of it (the tiny model is unsure).
    for (const t of lp) {
      const mass = t.top_logprobs.reduce((sum, c) => sum + Math.exp(c.logprob), 0);
      expect(mass).toBeLessThanOrEqual(1 + 1e-6);
    }
    expect(lp.some((t) => t.logprob < -0.01)).toBe(true);
    expect(lp.length).toBeLessThanOrEqual(r.completionTokens + 1);
  });

  it('sampled: the same seed gives the same reply and the same scores, and scoring leaves the next generation as it was', () => {
    const a = resultOf(RUNS.sampled);
    const b = resultOf(RUNS.sampledAgain);
    expect(b.text).toBe(a.text);
    expect(b.logprobs).toEqual(a.logprobs);
    expect(logprobsProblem(a.text, a.logprobs!, 3)).toBeNull();
    // Not always the likeliest token at temperature 1.
    expect(a.logprobs!.some((t) => t.logprob < t.top_logprobs[0]!.logprob - 1e-6)).toBe(true);
    const plain = resultOf(RUNS.sampledPlain);
    expect(plain.text).toBe(a.text);
    expect(plain.logprobs).toBeUndefined();
  });

  it('top_logprobs 0 gives the tokens alone; a raw prompt is scored after its BOS as the completion generated it', () => {
    const none = resultOf(RUNS.none);
    expect(logprobsProblem(none.text, none.logprobs!, 0)).toBeNull();
    expect(none.logprobs!.every((t) => t.top_logprobs.length === 0)).toBe(true);
    const r = resultOf(RUNS.raw);
    expect(logprobsProblem(r.text, r.logprobs!, 2)).toBeNull();
    for (const t of r.logprobs!) expect(t.logprob).toBeCloseTo(t.top_logprobs[0]!.logprob, 5);
  });

  it('two replies scored at once on two sequences of one context come out the same', () => {
    const a = resultOf(RUNS.twoAtOnce, 0);
    const b = resultOf(RUNS.twoAtOnce, 1);
    expect(b.text).toBe(a.text);
    expect(b.logprobs).toEqual(a.logprobs);
    expect(logprobsProblem(a.text, a.logprobs!, 1)).toBeNull();
  });

  it('the tokens scored are the tokens generated, not the text split again: a reply starting "!" has one entry per token', () => {
    const r = resultOf(RUNS.punctuationFirst);
    expect(r.text.startsWith('!')).toBe(true);
    expect(r.logprobs!.map((t) => t.token).join('')).toBe(r.text);
    expect(r.logprobs).toHaveLength(r.completionTokens);
    expect(r.logprobs![0]!.token).toBe('!');
    // The numbers the engine committed to while generating are the numbers it reports.
    expect(r.logprobs!.map((t) => Math.fround(t.logprob))).toEqual(r.commitment!.slice(0, r.logprobs!.length).map((s) => Math.fround(s.logprob)));
  });
});
