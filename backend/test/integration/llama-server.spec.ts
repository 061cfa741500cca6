import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sampling } from '@glob/engine/sampling';
import { logprobsProblem } from '@glob/engine/logprobs';
import { llamaBin } from '../../../node-agent/src/llama-process';
import { LlamaServer } from '../../../node-agent/src/llama-server';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { ENVELOPE, schemaValidator, WEATHER } from '../support/json-schemas';

/**
 * A pool coordinator's generator (llama.cpp's own llama-server, built by node-agent/llama-rpc.mjs) on the tiny model
 * (near-random: whatever it writes under a grammar is the grammar's doing), one server for every test.
 */
let dir: string;
let server: LlamaServer;

beforeAll(async () => {
  const bin = await llamaBin(undefined, (line) => console.log(line));
  dir = await mkdtemp(join(tmpdir(), 'llama-server-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyLlamaGguf(model, { seed: 1 });
  server = await LlamaServer.start(bin, { modelPath: model, threads: 1, contextSize: 1024, rpc: [], layers: [4] }, () => undefined);
}, 60 * 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Asked for JSON: the schema is sent as llama-server's `json_schema`, and the replies parse and match. */
describe('llama-server under a JSON schema', () => {
  // A few hundred tokens per seed on a busy machine: more than jest's default 30 s each.
  it.each([
    ['an object of enum, integer, boolean and bounded string', WEATHER],
    ['a tool-call envelope', ENVELOPE],
  ])(
    '%s: every seed ends where its JSON does, and the JSON matches',
    async (_, schema) => {
      const validate = schemaValidator().compile(schema);
      for (const seed of [1, 2, 3, 4]) {
        let streamed = '';
        // Half of them with logprobs: those of the JSON's own text, the whitespace after the value dropped with it.
        const logprobs = seed % 2 ? 2 : undefined;
        const r = await server.generate({
          messages: [{ role: 'user', content: 'Answer with JSON only.' }],
          // Its JSON grammar allows free whitespace between tokens, which the near-random model takes: room for it.
          sampling: { max_tokens: 400, temperature: 1, top_p: 1, seed, json_schema: schema, ...(logprobs ? { logprobs } : {}) },
          onToken: (text) => (streamed += text),
        });
        expect(r.stopReason).toBe('stop');
        expect(streamed).toBe(r.text);
        const value = JSON.parse(r.text) as unknown;
        expect({ value, errors: validate(value) ? null : validate.errors }).toEqual({ value, errors: null });
        if (logprobs) expect(logprobsProblem(r.text, r.logprobs!, logprobs)).toBeNull();
        else expect(r.logprobs).toBeUndefined();
      }
    },
    180_000,
  );
});

/**
 * Asked for logprobs: the replies come with one entry per token of the text, in OpenAI's shape, scored on the model's
 * own distribution before sampling.
 */
describe('llama-server logprobs', () => {
  const ask = (over: Partial<Sampling> = {}, messages = [{ role: 'user' as const, content: 'Tell me about the sea.' }]) =>
    server.generate({ messages, sampling: { max_tokens: 40, temperature: 1, top_p: 1, seed: 7, ...over } });

  it('without logprobs asked, the result has none', async () => {
    const r = await ask({});
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.logprobs).toBeUndefined();
  });

  it.each([0, 1, 5])(
    'at temperature 0 with %i candidates: well formed, joined to the text, each token the likeliest',
    async (top) => {
      const r = await ask({ temperature: 0, logprobs: top });
      const logprobs = r.logprobs!;
      expect(r.text.length).toBeGreaterThan(0);
      expect(logprobsProblem(r.text, logprobs, top)).toBeNull();
      expect(logprobs.map((t) => t.token).join('')).toBe(r.text);
      expect(logprobs.length).toBeGreaterThan(0);
      expect(logprobs.length).toBeLessThanOrEqual(r.completionTokens);
      if (top > 0) {
        for (const t of logprobs) {
          expect(t.logprob).toBeCloseTo(t.top_logprobs[0]!.logprob, 4);
          // A token that only begins a character has no text of its own; any other is the likeliest candidate's.
          if (t.token) expect(t.token).toBe(t.top_logprobs[0]!.token);
        }
      }
    },
    120_000,
  );

  it('the same seed twice gives the same text and logprobs', async () => {
    const a = await ask({ logprobs: 3, seed: 11 });
    const b = await ask({ logprobs: 3, seed: 11 });
    expect(logprobsProblem(a.text, a.logprobs!, 3)).toBeNull();
    expect(b.text).toBe(a.text);
    const shape = (r: typeof a) => r.logprobs!.map((t) => [t.token, t.top_logprobs.map((c) => c.token)]);
    expect(shape(b)).toEqual(shape(a));
    // The second run reuses the cached prompt, so its first step is evaluated in another batch: equal to float noise.
    for (const [i, t] of b.logprobs!.entries()) {
      expect(t.logprob).toBeCloseTo(a.logprobs![i]!.logprob, 4);
      for (const [j, c] of t.top_logprobs.entries()) expect(c.logprob).toBeCloseTo(a.logprobs![i]!.top_logprobs[j]!.logprob, 4);
    }
  }, 120_000);

  it('a character split across byte tokens comes whole on one entry', async () => {
    // The tiny model's vocabulary has '€' and '😀' only as UTF-8 byte tokens: the schema makes it write them.
    const schema = { type: 'object', properties: { s: { const: 'a€b😀' } }, required: ['s'], additionalProperties: false };
    const r = await ask({ max_tokens: 200, json_schema: schema, logprobs: 2 }, [{ role: 'user', content: 'Answer with JSON only.' }]);
    expect(JSON.parse(r.text)).toEqual({ s: 'a€b😀' });
    expect(logprobsProblem(r.text, r.logprobs!, 2)).toBeNull();
    expect(r.logprobs!.map((t) => t.token)).toEqual(expect.arrayContaining(['€', '😀']));
    // llama-server reports a character's bytes once, on the token that ends it: the tokens before it have no entry.
    expect(r.logprobs!.length).toBeLessThanOrEqual(r.completionTokens - 5);
  }, 120_000);
});
