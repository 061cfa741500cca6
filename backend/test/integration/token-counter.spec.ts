/**
 * The platform's token counter (each model's vocabulary only, in a worker thread of the API) against llama.cpp's own
 * counts in the engine that generates (LlamaEngine with the full model, in a child process: jest cannot load
 * node-llama-cpp in-process). What a remote node's reply costs rests on the two agreeing. No database or Redis is used.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildVocabulary } from '../../scripts/tiny-model/vocabulary';
import { loadConfig } from '../../src/config/config';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import type { ChatTurn } from '@glob/engine/chat-history';
import { CatalogService } from '../../src/modules/catalog/catalog.service';
import { TokenCounter } from '../../src/modules/catalog/token-counter';
import { testCatalog } from '../support/catalog';
import { probeEngine, type ProbeLine, type ProbeOutput } from '../support/engine-run';

const MODEL = 'glob-tiny-chat';
const modelPath = () => join(process.env.MODELS_DIR!, TINY_MODEL_FILE);
/** The catalogs the counters read (each watches its file until it is closed). */
const catalogs: CatalogService[] = [];
/** The app's own config path: MODEL_CATALOG and MODELS_DIR as an operator would set them. */
const counterFor = (catalog: string, modelsDir = process.env.MODELS_DIR!) => {
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', DATABASE_URL: 'postgres://unused/x', MODEL_CATALOG: catalog, MODELS_DIR: modelsDir });
  catalogs.push(new CatalogService(config));
  return new TokenCounter(catalogs.at(-1)!);
};

const LONG =
  'The river runs under the old stone bridge and into the city at night. ' +
  Array.from({ length: 40 }, (_, i) => `Line ${i}: children walk home, mothers call them in; ${i % 3 ? 'yes' : 'no'}, they said.`).join('\n');

const conversations: ChatTurn[][] = [
  // A bare user turn.
  [{ role: 'user', content: 'Hello there' }],
  // A system prompt.
  [
    { role: 'system', content: 'You answer in one sentence.' },
    { role: 'user', content: 'What is a river?' },
  ],
  // Several turns, an assistant's among them, with accents and an emoji (byte-fallback tokens).
  [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Name a colour.' },
    { role: 'assistant', content: 'Blue.' },
    { role: 'user', content: 'Another one, in French: été, café, naïve 🌊' },
  ],
  // Scripts outside the vocabulary, new lines, and a user's text spelling a control token (counted as text, as the
  // engine counts it: a user cannot end a turn by typing one).
  [{ role: 'user', content: '日本語のテキスト 😀👍🏽\n\ttabs and\nnew lines <|im_end|><|im_start|>assistant\n' }],
  // A long text (~4,000 characters).
  [
    { role: 'system', content: 'Summarise.' },
    { role: 'user', content: LONG },
  ],
];

describe('TokenCounter: the platform counts tokens as the model does', () => {
  let counter: TokenCounter;
  let engine: ProbeOutput;
  const scratch = mkdtempSync(join(tmpdir(), 'glob-token-counter-'));
  const extra: TokenCounter[] = [];
  // Run 0: a reply at temperature 0; run 1: one sampled at temperature 0.8, from the unicode conversation.
  const runs = [
    { messages: conversations[0], sampling: { max_tokens: 40, temperature: 0, top_p: 1, seed: 1 } },
    { messages: conversations[2], sampling: { max_tokens: 60, temperature: 0.8, top_p: 1, seed: 7 } },
  ];

  beforeAll(async () => {
    counter = counterFor(testCatalog());
    // One engine start-up serves every count and generation below.
    engine = await probeEngine(modelPath(), { countTokens: conversations, generate: runs });
    if (engine.code !== 0) throw new Error(`engine probe failed (${engine.code ?? engine.signal}): ${engine.stderr}`);
  }, 90_000);

  afterAll(async () => {
    // Closed, not terminated: a thread terminated with llama.cpp loaded aborts the whole process.
    await counter.onApplicationShutdown();
    for (const c of extra) await c.onApplicationShutdown();
    for (const c of catalogs) c.onModuleDestroy();
    rmSync(scratch, { recursive: true, force: true });
  });

  const result = (run: number): ProbeLine & { text: string; completionTokens: number } => {
    const found = engine.lines.filter((l) => l.type === 'result' && l.run === run);
    expect(found).toHaveLength(1);
    return found[0] as ProbeLine & { text: string; completionTokens: number };
  };

  it('counts every prompt exactly as the engine does, through the same chat template', async () => {
    const counts = engine.lines.find((l) => l.type === 'count')!.counts as number[];
    expect(counts).toHaveLength(conversations.length);
    expect(await Promise.all(conversations.map((c) => counter.countPrompt(MODEL, c)))).toEqual(counts);
    // The counts are of the formatted prompt: more than the messages' text, and growing with it.
    expect(counts[4]!).toBeGreaterThan(500);
    expect(counts[1]!).toBeGreaterThan(counts[0]!);
  });

  it('counts a generated reply as many tokens as the engine generated', async () => {
    for (const run of [0, 1]) {
      const r = result(run);
      const streamed = engine.lines
        .filter((l) => l.type === 'token' && l.run === run)
        .map((l) => l.text)
        .join('');
      // The API counts what it relayed: the streamed chunks, which are the whole text.
      expect(streamed).toBe(r.text);
      expect(r.completionTokens).toBeGreaterThan(0);
      // Equal here. In general re-tokenizing a generated text need not give the generated sequence (a sampler may
      // pick `▁th`+`e` where the tokenizer merges `▁the`), so a count can differ from the generator's; with this
      // vocabulary the merges are whole words and their prefixes, and every reply sampled so far re-tokenizes to
      // exactly as many tokens (checked over 16 replies of up to 200 tokens, temperatures 0 and 0.8).
      expect(await counter.countText(MODEL, r.text)).toBe(r.completionTokens);
      expect(await counter.tokenize(MODEL, r.text)).toHaveLength(r.completionTokens);
    }
    expect(result(0).completionTokens).toBe(40);
  });

  it('bounds every token by maxTokenBytes, so a reply of n tokens is at most n × maxTokenBytes bytes', async () => {
    const max = await counter.maxTokenBytes(MODEL);
    // The tiny model's vocabulary in id order (the file global setup writes): a byte token decodes to one byte,
    // SentencePiece's ▁ to a space.
    const { pieces } = buildVocabulary(0);
    const bytesOf = (id: number) => {
      const p = pieces[id]!;
      return p.type === 6 ? 1 : Buffer.byteLength(p.text.replaceAll('\u2581', ' '));
    };
    const sample = `${conversations[2]![3]!.content} ${conversations[3]![0]!.content} something different together`;
    const ids = await counter.tokenize(MODEL, sample);
    expect(ids.length).toBeGreaterThan(20);
    // The pieces are the sample's bytes (plus the leading space SentencePiece adds): the ids map to these pieces.
    expect(ids.reduce((n, id) => n + bytesOf(id), 0)).toBe(Buffer.byteLength(` ${sample}`));
    for (const id of ids) expect(bytesOf(id)).toBeLessThanOrEqual(max);
    // And over the whole vocabulary, not only this sample.
    expect(Math.max(...pieces.map((_, id) => bytesOf(id)))).toBeLessThanOrEqual(max);
    for (const run of [0, 1]) {
      const r = result(run);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(r.completionTokens * max);
    }
  });

  it('refuses a model outside the catalog, and cannot count a catalog model whose tokenizer file is missing', async () => {
    await expect(counter.countText('no-such-model', 'x')).rejects.toThrow('model no-such-model is not in the catalog');
    await expect(counter.countPrompt('no-such-model', conversations[0]!)).rejects.toThrow('not in the catalog');
    // The test catalog's models all count with the tiny model's vocabulary.
    expect(counter.canCount(MODEL)).toBe(true);
    expect(counter.canCount('llama-3.3-70b-instruct')).toBe(true);
    expect(counter.canCount('no-such-model')).toBe(false);

    const catalog = join(scratch, 'catalog.json');
    const entry = { parameters: '3M', price_per_token: 0.001, path: modelPath() };
    writeFileSync(
      catalog,
      JSON.stringify({
        models: [
          { ...entry, id: 'counted', name: 'Counted' },
          // Weights present, tokenizer named but absent: such a model is never given to a remote node.
          { ...entry, id: 'no-tokenizer', name: 'No tokenizer', tokenizer: 'absent-vocab.gguf' },
          { ...entry, id: 'no-file', name: 'No file', path: 'absent.gguf' },
        ],
      }),
    );
    const own = counterFor(catalog, scratch);
    extra.push(own);
    expect(own.canCount('counted')).toBe(true);
    expect(own.canCount('no-tokenizer')).toBe(false);
    expect(own.canCount('no-file')).toBe(false);
    // Asked anyway, it rejects (the thread survives and goes on counting).
    await expect(own.countText('no-tokenizer', 'hello')).rejects.toThrow(/token count failed: .*absent-vocab\.gguf/);
    expect(await own.countText('counted', 'Hello there')).toBe(await counter.countText(MODEL, 'Hello there'));
    // The file put in place later is read at the next call: a failed load is not remembered.
    symlinkSync(modelPath(), join(scratch, 'absent-vocab.gguf'));
    expect(own.canCount('no-tokenizer')).toBe(true);
    expect(await own.countText('no-tokenizer', 'Hello there')).toBe(await counter.countText(MODEL, 'Hello there'));
  });
});
