import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llamaBin } from '../../../node-agent/src/llama-process';
import { LlamaServer } from '../../../node-agent/src/llama-server';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { ENVELOPE, schemaValidator, WEATHER } from '../support/json-schemas';

/**
 * A pool coordinator's generator (llama.cpp's own llama-server, built by node-agent/llama-rpc.mjs) asked for JSON: it
 * is sent the schema as llama-server's `json_schema`, and its replies on the tiny model (near-random: whatever it
 * writes is the grammar's doing) parse and match.
 */
describe('llama-server under a JSON schema', () => {
  let dir: string;
  let server: LlamaServer;

  beforeAll(async () => {
    const bin = await llamaBin(undefined, (line) => console.log(line));
    dir = await mkdtemp(join(tmpdir(), 'llama-server-json-'));
    const model = join(dir, 'tiny.gguf');
    await writeTinyLlamaGguf(model, { seed: 1 });
    server = await LlamaServer.start(bin, { modelPath: model, threads: 1, contextSize: 1024, rpc: [], layers: [4] }, () => undefined);
  }, 60 * 60_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

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
        const r = await server.generate({
          messages: [{ role: 'user', content: 'Answer with JSON only.' }],
          // Its JSON grammar allows free whitespace between tokens, which the near-random model takes: room for it.
          maxTokens: 400,
          temperature: 1,
          topP: 1,
          seed,
          jsonSchema: schema,
          onToken: (text) => (streamed += text),
        });
        expect(r.stopReason).toBe('stop');
        expect(streamed).toBe(r.text);
        const value = JSON.parse(r.text) as unknown;
        expect({ value, errors: validate(value) ? null : validate.errors }).toEqual({ value, errors: null });
      }
    },
    180_000,
  );
});
