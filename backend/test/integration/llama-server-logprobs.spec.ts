import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logprobsProblem } from '@glob/engine/logprobs';
import type { GenerateRequest } from '@glob/engine/llama-engine';
import { llamaBin } from '../../../node-agent/src/llama-process';
import { isWholeJson, LlamaServer } from '../../../node-agent/src/llama-server';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { WEATHER } from '../support/json-schemas';

/**
 * A pool coordinator's generator (llama.cpp's own llama-server, built by node-agent/llama-rpc.mjs) asked for logprobs:
 * its replies on the tiny model come with one entry per token of the text, in OpenAI's shape, scored on the model's
 * own distribution before sampling.
 */
describe('llama-server logprobs', () => {
  let dir: string;
  let server: LlamaServer;

  beforeAll(async () => {
    const bin = await llamaBin(undefined, (line) => console.log(line));
    dir = await mkdtemp(join(tmpdir(), 'llama-server-logprobs-'));
    const model = join(dir, 'tiny.gguf');
    await writeTinyLlamaGguf(model, { seed: 1 });
    server = await LlamaServer.start(bin, { modelPath: model, threads: 1, contextSize: 1024, rpc: [], layers: [4] }, () => undefined);
  }, 60 * 60_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ask = (over: Partial<GenerateRequest>) =>
    server.generate({ messages: [{ role: 'user', content: 'Tell me about the sea.' }], maxTokens: 40, temperature: 1, topP: 1, seed: 7, ...over });

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
    const r = await ask({ messages: [{ role: 'user', content: 'Answer with JSON only.' }], maxTokens: 200, jsonSchema: schema, logprobs: 2 });
    expect(JSON.parse(r.text)).toEqual({ s: 'a€b😀' });
    expect(logprobsProblem(r.text, r.logprobs!, 2)).toBeNull();
    expect(r.logprobs!.map((t) => t.token)).toEqual(expect.arrayContaining(['€', '😀']));
    // llama-server reports a character's bytes once, on the token that ends it: the tokens before it have no entry.
    expect(r.logprobs!.length).toBeLessThanOrEqual(r.completionTokens - 5);
  }, 120_000);

  it('a JSON reply with logprobs still ends as whole JSON, its logprobs those of its text', async () => {
    for (const seed of [1, 2]) {
      const r = await server.generate({
        messages: [{ role: 'user', content: 'Answer with JSON only.' }],
        // Its JSON grammar allows free whitespace between tokens, which the near-random model takes: room for it.
        maxTokens: 400,
        temperature: 1,
        topP: 1,
        seed,
        jsonSchema: WEATHER,
        logprobs: 2,
      });
      expect(r.stopReason).toBe('stop');
      expect(isWholeJson(r.text)).toBe(true);
      expect(() => JSON.parse(r.text) as unknown).not.toThrow();
      expect(logprobsProblem(r.text, r.logprobs!, 2)).toBeNull();
      expect(r.logprobs!.map((t) => t.token).join('')).toBe(r.text);
    }
  }, 180_000);
});
