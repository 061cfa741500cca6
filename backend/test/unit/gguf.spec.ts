import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { GgufError, readGgufHeader } from '@glob/engine/gguf';
import { validateGguf } from '@glob/engine/gguf-validate';

/** Small enough to write in a few milliseconds; same layout as the default model. */
const SMALL = { nEmbd: 32, nLayer: 2, nHead: 2, nFf: 64, contextLength: 256 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gguf-spec-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = async (p: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(p))
    .digest('hex');

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}
/** A GGUF string as it appears on disk: u64 length then the bytes. */
function ggufString(s: string): Buffer {
  return Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
}

/** Copies the small model with one metadata key renamed (same length, so the layout stays valid). */
async function withRenamedKey(key: string, replacement: string): Promise<string> {
  expect(replacement).toHaveLength(key.length);
  const src = join(dir, 'base.gguf');
  await writeTinyLlamaGguf(src, SMALL);
  const buf = await readFile(src);
  const at = buf.indexOf(ggufString(key));
  expect(at).toBeGreaterThan(0);
  expect(buf.indexOf(ggufString(key), at + 1)).toBe(-1);
  Buffer.from(replacement).copy(buf, at + 8);
  const out = join(dir, `renamed-${replacement}.gguf`);
  await writeFile(out, buf);
  return out;
}

async function rejection(path: string): Promise<GgufError> {
  const err: unknown = await validateGguf(path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GgufError);
  return err as GgufError;
}

describe('writeTinyLlamaGguf', () => {
  it('is deterministic: same seed, same bytes; another seed, other weights', async () => {
    const a = join(dir, 'a.gguf');
    const b = join(dir, 'b.gguf');
    const c = join(dir, 'c.gguf');
    const ra = await writeTinyLlamaGguf(a, { ...SMALL, seed: 7 });
    const rb = await writeTinyLlamaGguf(b, { ...SMALL, seed: 7 });
    await writeTinyLlamaGguf(c, { ...SMALL, seed: 8 });
    expect(rb).toEqual(ra);
    expect(await sha(a)).toBe(await sha(b));
    expect(await sha(c)).not.toBe(await sha(a));
  });

  it('writes a default model of 1-3 M parameters that the validator accepts', async () => {
    const p = join(dir, 'default.gguf');
    const written = await writeTinyLlamaGguf(p);
    expect(written.parameters).toBeGreaterThan(1_000_000);
    expect(written.parameters).toBeLessThan(3_000_000);
    const summary = await validateGguf(p);
    expect(summary).toEqual({
      architecture: 'llama',
      name: 'Glob Tiny Chat',
      contextLength: 2048,
      blockCount: 4,
      parameters: written.parameters,
      vocabSize: written.vocabSize,
      chatTemplate: expect.stringContaining('<|im_start|>') as unknown as string,
    });
  });

  it('lays out a GGUF v3 with aligned F32 tensors and a byte-fallback SentencePiece vocabulary', async () => {
    const p = join(dir, 'layout.gguf');
    const { bytes, vocabSize } = await writeTinyLlamaGguf(p, { ...SMALL, extraPieces: 10 });
    const h = await readGgufHeader(p);
    expect(h.version).toBe(3);
    expect(h.fileSize).toBe(bytes);
    expect(h.dataOffset % 32).toBe(0);
    expect(h.tensors).toHaveLength(2 + 9 * SMALL.nLayer + 1);
    for (const t of h.tensors) {
      expect(t.type).toBe(0);
      expect(t.offset % 32).toBe(0);
    }
    expect(h.tensors.find((t) => t.name === 'token_embd.weight')?.dims).toEqual([SMALL.nEmbd, vocabSize]);
    expect(h.tensors.find((t) => t.name === 'blk.1.ffn_down.weight')?.dims).toEqual([SMALL.nFf, SMALL.nEmbd]);

    const tokens = h.metadata.get('tokenizer.ggml.tokens') as string[];
    const types = h.metadata.get('tokenizer.ggml.token_type') as number[];
    expect(tokens).toHaveLength(vocabSize);
    expect(tokens.slice(0, 5)).toEqual(['<unk>', '<s>', '</s>', '<|im_start|>', '<|im_end|>']);
    expect(types.slice(0, 5)).toEqual([2, 3, 3, 3, 3]);
    expect(tokens[5 + 0x0a]).toBe('<0x0A>');
    expect(types.slice(5, 261).every((t) => t === 6)).toBe(true);
    expect(tokens).toEqual(expect.arrayContaining(['\u2581the', '\u2581hello', '\u2581w0009']));
    expect(h.metadata.get('tokenizer.ggml.model')).toBe('llama');
    expect(h.metadata.get('tokenizer.ggml.eos_token_id')).toBe(2);
    expect(h.metadata.get('tokenizer.ggml.eot_token_id')).toBe(4);
    expect(h.metadata.get('llama.attention.head_count')).toBe(SMALL.nHead);
  });
});

describe('validateGguf refuses what would hurt llama.cpp', () => {
  it('refuses a file with the wrong magic', async () => {
    const p = join(dir, 'magic.gguf');
    await writeTinyLlamaGguf(p, SMALL);
    const buf = await readFile(p);
    buf.write('GGML', 0, 'latin1');
    await writeFile(p, buf);
    const err = await rejection(p);
    expect(err.code).toBe('bad_magic');
    expect(err.message).toMatch(/not a GGUF file/);
  });

  it('refuses a non-GGUF file and an unsupported version', async () => {
    const text = join(dir, 'text.gguf');
    await writeFile(text, 'hello, I am not a model\n');
    expect((await rejection(text)).code).toBe('bad_magic');

    const v1 = join(dir, 'v1.gguf');
    await writeTinyLlamaGguf(v1, SMALL);
    const buf = await readFile(v1);
    buf.writeUInt32LE(1, 4);
    await writeFile(v1, buf);
    expect((await rejection(v1)).code).toBe('unsupported_version');
  });

  it('refuses a truncated file (tensor data past the end, or a cut header)', async () => {
    const p = join(dir, 'truncated.gguf');
    const { bytes } = await writeTinyLlamaGguf(p, SMALL);
    await truncate(p, bytes - 100);
    const err = await rejection(p);
    expect(err.code).toBe('truncated');
    expect(err.message).toMatch(/runs past the end of the file/);

    await truncate(p, 200);
    expect((await rejection(p)).code).toBe('truncated');
  });

  it('refuses a model without llama.attention.head_count', async () => {
    const p = await withRenamedKey('llama.attention.head_count', 'llama.attention.head_cOunt');
    const err = await rejection(p);
    expect(err.code).toBe('missing_key');
    expect(err.message).toContain('llama.attention.head_count');
  });

  it('refuses a model without llama.feed_forward_length', async () => {
    const p = await withRenamedKey('llama.feed_forward_length', 'llama.feed_forward_lengtX');
    const err = await rejection(p);
    expect(err.code).toBe('missing_key');
    expect(err.message).toContain('llama.feed_forward_length');
  });

  it('refuses an unsupported architecture', async () => {
    const src = join(dir, 'arch.gguf');
    await writeTinyLlamaGguf(src, SMALL);
    const buf = await readFile(src);
    const pattern = Buffer.concat([ggufString('general.architecture'), Buffer.from([8, 0, 0, 0]), ggufString('llama')]);
    const at = buf.indexOf(pattern);
    expect(at).toBeGreaterThan(0);
    Buffer.from('mamba').copy(buf, at + pattern.length - 5);
    await writeFile(src, buf);
    const err = await rejection(src);
    expect(err.code).toBe('unsupported_architecture');
    expect(err.message).toMatch(/"mamba"/);
  });

  it('refuses inconsistent hyper-parameters, accepts a missing head_count_kv, refuses a missing file', async () => {
    // head_count 3 with head_count_kv 2 (and embedding_length 32): no whole number of heads per kv head.
    const src = join(dir, 'heads.gguf');
    await writeTinyLlamaGguf(src, SMALL);
    const buf = await readFile(src);
    const pattern = Buffer.concat([ggufString('llama.attention.head_count'), Buffer.from([4, 0, 0, 0])]);
    const at = buf.indexOf(pattern);
    expect(at).toBeGreaterThan(0);
    buf.writeUInt32LE(3, at + pattern.length);
    await writeFile(src, buf);
    const err = await rejection(src);
    expect(err.code).toBe('invalid_value');
    expect(err.message).toMatch(/head_count \(3\)/);

    // head_count_kv is optional (it defaults to head_count)…
    const kv = await withRenamedKey('llama.attention.head_count_kv', 'llama.attention.head_count_kX');
    await expect(validateGguf(kv)).resolves.toMatchObject({ architecture: 'llama' });
    // …and a missing file is an error of its own.
    expect((await rejection(join(dir, 'nope.gguf'))).code).toBe('io');
  });
});
