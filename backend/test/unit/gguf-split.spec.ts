/**
 * Split GGUF models (`<name>-00001-of-0000N.gguf`, as llama.cpp's gguf-split writes them): the tiny-model
 * writer's split layout, the validator's checks across parts, and the node agent's view of them on disk.
 * Loading and generating with the native engine is in test/integration/gguf-split-engine.spec.ts.
 */
import { mkdtemp, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { GgufError, readGgufHeader, splitParts } from '@glob/engine/gguf';
import { validateGguf } from '@glob/engine/gguf-validate';

const SMALL = { nEmbd: 32, nLayer: 4, nHead: 2, nFf: 64, contextLength: 256 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gguf-split-spec-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}
/** A key as it appears on disk followed by its value type id. */
function keyAndType(key: string, type: number): Buffer {
  const t = Buffer.alloc(4);
  t.writeUInt32LE(type);
  return Buffer.concat([u64(Buffer.byteLength(key)), Buffer.from(key), t]);
}

/** A fresh 3-part model in a directory of its own; returns the first part's path. */
let n = 0;
async function splitModel(splits = 3): Promise<string> {
  const sub = await mkdtemp(join(dir, `m${n++}-`));
  const first = join(sub, `tiny-00001-of-${String(splits).padStart(5, '0')}.gguf`);
  await writeTinyLlamaGguf(first, { ...SMALL, splits });
  return first;
}

/** Rewrites the u16/i32 value of `key` (of GGUF type `type`) in one file. */
async function patchValue(path: string, key: string, type: 2 | 5, value: number): Promise<void> {
  const buf = await readFile(path);
  const pattern = keyAndType(key, type);
  const at = buf.indexOf(pattern);
  expect(at).toBeGreaterThan(0);
  if (type === 2) buf.writeUInt16LE(value, at + pattern.length);
  else buf.writeInt32LE(value, at + pattern.length);
  await writeFile(path, buf);
}

async function rejection(path: string): Promise<GgufError> {
  const err: unknown = await validateGguf(path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GgufError);
  return err as GgufError;
}

describe('splitParts', () => {
  it('lists every part of a first part, in order; any other name is a model of its own', () => {
    expect(splitParts('/m/x-00001-of-00003.gguf')).toEqual(['/m/x-00001-of-00003.gguf', '/m/x-00002-of-00003.gguf', '/m/x-00003-of-00003.gguf']);
    expect(splitParts('/m/x-00001-of-00001.gguf')).toEqual(['/m/x-00001-of-00001.gguf']);
    expect(splitParts('/m/x.gguf')).toEqual(['/m/x.gguf']);
    expect(splitParts('/m/x-00002-of-00003.gguf')).toEqual(['/m/x-00002-of-00003.gguf']);
    expect(splitParts('/m/x-1-of-3.gguf')).toEqual(['/m/x-1-of-3.gguf']);
  });
});

describe('writeTinyLlamaGguf with splits', () => {
  it('writes the same model as N files in the gguf-split layout', async () => {
    const whole = join(dir, 'whole.gguf');
    const one = await writeTinyLlamaGguf(whole, SMALL);
    const first = join(dir, 'split-00001-of-00003.gguf');
    const written = await writeTinyLlamaGguf(first, { ...SMALL, splits: 3 });
    expect(written.parameters).toBe(one.parameters);

    const wholeHeader = await readGgufHeader(whole);
    const headers = await Promise.all(splitParts(first).map((p) => readGgufHeader(p)));
    expect(headers.reduce((s, h) => s + h.fileSize, 0)).toBe(written.bytes);
    // Every tensor once, in the same order, each part holding some.
    expect(headers.flatMap((h) => h.tensors.map((t) => t.name))).toEqual(wholeHeader.tensors.map((t) => t.name));
    for (const h of headers) expect(h.tensors.length).toBeGreaterThan(0);
    // The first part carries every key of the whole model plus split.*; the others only split.*.
    for (const [k, v] of wholeHeader.metadata) expect(headers[0]!.metadata.get(k)).toEqual(v);
    for (const [i, h] of headers.entries()) {
      expect(h.metadata.get('split.no')).toBe(i);
      expect(h.metadata.get('split.count')).toBe(3);
      expect(h.metadata.get('split.tensors.count')).toBe(wholeHeader.tensors.length);
      expect(h.valueTypes.get('split.no')).toBe(2); // uint16
      expect(h.valueTypes.get('split.tensors.count')).toBe(5); // int32
      if (i > 0) expect([...h.metadata.keys()].sort()).toEqual(['split.count', 'split.no', 'split.tensors.count']);
    }
    // Same weights: each tensor's bytes equal the whole file's.
    const wholeBuf = await readFile(whole);
    for (const h of headers) {
      const buf = await readFile(h.path);
      for (const t of h.tensors) {
        const w = wholeHeader.tensors.find((x) => x.name === t.name)!;
        const size = t.dims.reduce((p, d) => p * d, 4);
        const a = buf.subarray(h.dataOffset + t.offset, h.dataOffset + t.offset + size);
        const b = wholeBuf.subarray(wholeHeader.dataOffset + w.offset, wholeHeader.dataOffset + w.offset + size);
        expect(a.equals(b)).toBe(true);
      }
    }
  });

  it('refuses a first-part path that does not match the number of parts', async () => {
    await expect(writeTinyLlamaGguf(join(dir, 'plain.gguf'), { ...SMALL, splits: 2 })).rejects.toThrow(/-00001-of-00002\.gguf/);
    await expect(writeTinyLlamaGguf(join(dir, 'x-00001-of-00003.gguf'), { ...SMALL, splits: 2 })).rejects.toThrow(GgufError);
  });
});

describe('validateGguf on split models', () => {
  it('accepts a split model and summarises it from its first part, like the whole model', async () => {
    const whole = join(dir, 'whole-summary.gguf');
    await writeTinyLlamaGguf(whole, SMALL);
    const first = await splitModel(3);
    expect(await validateGguf(first)).toEqual(await validateGguf(whole));
    // One part per tensor group down to a single tensor per part still works.
    const many = await splitModel(7);
    expect((await validateGguf(many)).blockCount).toBe(SMALL.nLayer);
  });

  it('refuses a missing part, naming it', async () => {
    const first = await splitModel();
    const [, second] = splitParts(first);
    await rm(second!);
    const err = await rejection(first);
    expect(err.code).toBe('missing_part');
    expect(err.message).toMatch(/part 2 of 3 .*missing/);
    expect(err.path).toBe(second);
  });

  it('refuses a part whose split.count disagrees with the first', async () => {
    const first = await splitModel();
    const third = splitParts(first)[2]!;
    await patchValue(third, 'split.count', 2, 4);
    const err = await rejection(first);
    expect(err.code).toBe('split_mismatch');
    expect(err.message).toMatch(/split\.count is 4 in part 3, 3 in the first part/);
  });

  it('refuses parts out of order (a part under the wrong number)', async () => {
    const first = await splitModel();
    const [, second, third] = splitParts(first);
    await rename(second!, join(dir, 'aside.gguf'));
    await rename(third!, second!);
    await rename(join(dir, 'aside.gguf'), third!);
    const err = await rejection(first);
    expect(err.code).toBe('split_mismatch');
    expect(err.message).toMatch(/split\.no is 2 in part 2 \(expected 1\)/);
  });

  it('refuses a split.tensors.count that is not the number of tensors of all parts', async () => {
    const first = await splitModel();
    const total = (await readGgufHeader(first)).metadata.get('split.tensors.count') as number;
    await patchValue(first, 'split.tensors.count', 5, total + 1);
    const err = await rejection(first);
    expect(err.code).toBe('split_mismatch');
    expect(err.message).toContain(`hold ${total} tensors, split.tensors.count says ${total + 1}`);
  });

  it('refuses split.no of a type llama.cpp asserts on (int16 instead of uint16)', async () => {
    const first = await splitModel();
    const second = splitParts(first)[1]!;
    const buf = await readFile(second);
    const at = buf.indexOf(keyAndType('split.no', 2));
    expect(at).toBeGreaterThan(0);
    buf.writeUInt32LE(3, at + 8 + 'split.no'.length); // int16: same size, so the layout stays valid
    await writeFile(second, buf);
    const err = await rejection(first);
    expect(err.code).toBe('split_mismatch');
    expect(err.message).toMatch(/split\.no must be a uint16/);
    expect(err.path).toBe(second);
  });

  it('refuses a truncated later part, naming it', async () => {
    const first = await splitModel();
    const second = splitParts(first)[1]!;
    const h = await readGgufHeader(second);
    await truncate(second, h.fileSize - 64);
    const err = await rejection(first);
    expect(err.code).toBe('truncated');
    expect(err.message).toMatch(/runs past the end of the file/);
    expect(err.path).toBe(second);
  });

  it('refuses loading from a later part or from a first part renamed without its suffix', async () => {
    const first = await splitModel();
    const err = await rejection(splitParts(first)[1]!);
    expect(err.code).toBe('split_mismatch');
    expect(err.message).toMatch(/part 2 of a split model: load its first part/);

    const renamed = join(dir, 'renamed.gguf');
    await rename(first, renamed);
    const err2 = await rejection(renamed);
    expect(err2.code).toBe('split_mismatch');
    expect(err2.message).toMatch(/-00001-of-00003\.gguf/);
  });
});
