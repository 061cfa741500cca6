/**
 * LlamaEngine against the generated tiny model. node-llama-cpp is ESM-only and native, so the engine runs
 * in child processes (test/support/engine-probe.ts) started together in beforeAll; each test reads the
 * JSON lines of its own child. No database or Redis is used.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { probeEngine, type ProbeLine, type ProbeOutput } from '../support/engine-run';
import { MAX_SEQUENCES, sequencesFor } from '@glob/engine/llama-engine';

type Line = ProbeLine;
type Run = ProbeOutput;
interface TokenLine extends Line {
  run: number;
  g: number;
  i: number;
  text: string;
  ms: number;
}
interface ResultLine extends Line {
  run: number;
  g: number;
  text: string;
  stopReason: 'stop' | 'length' | 'abort';
  promptTokens: number;
  completionTokens: number;
  firstTokenMs: number | null;
  durationMs: number;
  abortLatencyMs: number | null;
}

/** Lines of one type; for token/result lines, those of generation `g` of run `run`. */
const of = <T extends Line>(r: Run, type: string, run = 0, g = 0): T[] =>
  r.lines.filter((l) => l.type === type && (l.run === undefined || l.run === run) && (l.g === undefined || l.g === g)) as T[];
const resultOf = (r: Run, run: number, g = 0): ResultLine => {
  const found = of<ResultLine>(r, 'result', run, g);
  expect(found).toHaveLength(1);
  return found[0]!;
};

const SYSTEM = { role: 'system', content: 'You are a helpful assistant of the Glob network.' } as const;
const user = (content: string) => ({ role: 'user', content }) as const;

let dir: string;
/** Run indexes of the main probe's `generate` list. */
const LENGTH = 0;
const ABORT = 1;
const PARALLEL = 2;
let probes: { main: Promise<Run>; malformed: Promise<Run>; sized: Promise<Run> };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llama-engine-spec-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyLlamaGguf(model, { seed: 1 });

  // The same model without llama.attention.head_count: llama.cpp itself dies on it with GGML_ASSERT
  // (SIGABRT, exit 134), so the engine must refuse it before loading.
  const malformed = join(dir, 'no-head-count.gguf');
  const buf = await readFile(model);
  const key = Buffer.from('llama.attention.head_count');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(key.length));
  const at = buf.indexOf(Buffer.concat([len, key]));
  expect(at).toBeGreaterThan(0);
  buf.write('llama.attention.head_cOunt', at + 8);
  await writeFile(malformed, buf);

  // Two processes (engine start-up costs ~2 s of CPU: node-llama-cpp tests its prebuilt binary in a
  // child of its own), run side by side.
  probes = {
    main: probeEngine(model, {
      threads: 1,
      countTokens: [
        [user('Hello')],
        [user('Hello, how are you today?')],
        [SYSTEM, user('Hello, how are you today?')],
        [SYSTEM, user('Hello, how are you today?'), { role: 'assistant', content: 'Very well.' }, user('Good.')],
      ],
      generate: [
        {
          messages: [SYSTEM, user('Tell me about the river and the city.')],
          sampling: { max_tokens: 12, temperature: 0.8, top_p: 0.95, seed: 42 },
        },
        {
          messages: [user('Write a very long story.')],
          sampling: { max_tokens: 4000, temperature: 0.8, top_p: 0.95, seed: 7 },
          abortAfterChunks: 3,
        },
        {
          messages: [user('Hello there')],
          sampling: { max_tokens: 16, temperature: 0.8, top_p: 0.95, seed: 5 },
          parallel: 3, // two context sequences by default: the third generation waits for a free one
        },
      ],
    }),
    malformed: probeEngine(malformed, {
      threads: 1,
      generate: { messages: [user('Hi')], sampling: { max_tokens: 4, temperature: 0, top_p: 1 } },
    }),
    // The same model's context sized from memory budgets: none to speak of, 40 MiB, plenty; and a fixed count.
    sized: probeEngine(model, {
      threads: 1,
      contextSize: 1024,
      capacities: [{ memoryBytes: 1 }, { memoryBytes: 40 * 2 ** 20 }, { memoryBytes: 2 ** 34 }, 5],
    }),
  };
  await Promise.all(Object.values(probes));
}, 90_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('LlamaEngine (child process, generated tiny model)', () => {
  it("sizes a model's sequences from a memory budget by the KV cache each costs: at least 1, at most 16", async () => {
    const r = await probes.sized;
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const [none, some, plenty, fixed] = of<Line & { sequences: number; contextSize: number; kvBytesPerSequence: number }>(r, 'capacity');
    // 4 layers × 1,024 tokens × 192 dimensions × K and V × 2 bytes (f16) ≈ 3 MiB per sequence.
    expect(some!.kvBytesPerSequence).toBeGreaterThan(2 ** 20);
    expect(some!.kvBytesPerSequence).toBeLessThan(8 * 2 ** 20);
    expect(some!.contextSize).toBe(1024);
    expect(none!.sequences).toBe(1);
    expect(some!.sequences).toBeGreaterThan(1);
    expect(some!.sequences).toBeLessThan(16);
    expect(some!.sequences * some!.kvBytesPerSequence).toBeLessThanOrEqual(40 * 2 ** 20);
    expect(plenty!.sequences).toBe(MAX_SEQUENCES);
    expect(fixed!.sequences).toBe(5);
  });

  it("sequencesFor: the sequences a budget holds after the context's base, clamped to 1..max", () => {
    expect(sequencesFor({ memoryBytes: 100 }, 40, 10)).toBe(7);
    expect(sequencesFor({ memoryBytes: 10 }, 40, 10)).toBe(1);
    expect(sequencesFor({ memoryBytes: 10_000 }, 40, 10)).toBe(MAX_SEQUENCES);
    expect(sequencesFor({ memoryBytes: 10_000, max: 4 }, 40, 10)).toBe(4);
  });

  it('streams chunks in order whose concatenation is the final text, and stops at max_tokens', async () => {
    const r = await probes.main;
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const tokens = of<TokenLine>(r, 'token', LENGTH);
    const result = resultOf(r, LENGTH);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.map((t) => t.i)).toEqual(tokens.map((_, i) => i));
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!.ms).toBeGreaterThanOrEqual(tokens[i - 1]!.ms);
    expect(tokens.map((t) => t.text).join('')).toBe(result.text);
    expect(result.text.trim().length).toBeGreaterThan(0);
    expect(result.stopReason).toBe('length');
    expect(result.completionTokens).toBe(12);
    expect(result.firstTokenMs).not.toBeNull();
    expect(result.firstTokenMs!).toBeLessThanOrEqual(result.durationMs);
    expect(result.promptTokens).toBeGreaterThan(10);
  });

  it('counts prompt tokens as the chat template formats them: more text, more tokens', async () => {
    const r = await probes.main;
    const [loaded] = of(r, 'loaded');
    expect(loaded).toMatchObject({ contextSize: 2048 });
    const [count] = of<Line & { counts: number[] }>(r, 'count');
    const counts = count!.counts;
    expect(counts).toHaveLength(4);
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThan(counts[i - 1]!);
    // ChatML framing alone is several tokens; ordinary words are single pieces, not bytes.
    expect(counts[0]!).toBeGreaterThan(5);
    expect(counts[1]! - counts[0]!).toBeLessThan(10);
  });

  it('ends with stopReason abort within 1 s of the signal', async () => {
    const r = await probes.main;
    expect(r.code).toBe(0);
    const tokens = of<TokenLine>(r, 'token', ABORT);
    const result = resultOf(r, ABORT);
    expect(result.stopReason).toBe('abort');
    expect(result.abortLatencyMs).not.toBeNull();
    expect(result.abortLatencyMs!).toBeLessThan(1000);
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    expect(result.completionTokens).toBeLessThan(50);
    expect(tokens.map((t) => t.text).join('')).toBe(result.text);
  });

  it('runs concurrent generations on separate sequences (and queues beyond them)', async () => {
    const r = await probes.main;
    expect(r.code).toBe(0);
    for (const g of [0, 1, 2]) {
      const result = resultOf(r, PARALLEL, g);
      const text = of<TokenLine>(r, 'token', PARALLEL, g)
        .map((t) => t.text)
        .join('');
      expect(text).toBe(result.text);
      expect(result.completionTokens).toBeLessThanOrEqual(16);
      expect(['stop', 'length']).toContain(result.stopReason);
    }
    // The third had to wait until one of the first two released its sequence.
    const firstDone = Math.min(resultOf(r, PARALLEL, 0).durationMs, resultOf(r, PARALLEL, 1).durationMs);
    expect(resultOf(r, PARALLEL, 2).firstTokenMs!).toBeGreaterThanOrEqual(firstDone - 5);
  });

  it('refuses a malformed file with GgufError before llama.cpp sees it (clean exit, no native abort)', async () => {
    const r = await probes.malformed;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/GGML_ASSERT/);
    expect(of(r, 'loaded')).toHaveLength(0);
    const [error] = of(r, 'error');
    expect(error).toMatchObject({ name: 'GgufError', code: 'missing_key' });
    expect(String(error!.message)).toContain('llama.attention.head_count');
  });
});
