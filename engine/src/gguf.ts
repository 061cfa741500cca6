/**
 * Reads a GGUF file's header (metadata and tensor infos, not the weights) with node-llama-cpp's own
 * `readGgufFileInfo`, in the flat shape the validator (gguf-validate.ts) checks.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { loadNodeLlamaCpp } from './node-llama-cpp';

export type GgufErrorCode =
  | 'io'
  | 'bad_magic'
  | 'unsupported_version'
  | 'truncated'
  | 'malformed'
  | 'missing_key'
  | 'invalid_value'
  | 'unsupported_architecture'
  | 'bad_tensor'
  | 'missing_part'
  | 'split_mismatch';

/** A file llama.cpp must not see. `code` says why; the message names the file, key or tensor. */
export class GgufError extends Error {
  override readonly name = 'GgufError';
  constructor(
    readonly code: GgufErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(path ? `${message} (${path})` : message);
  }
}

export type GgufScalar = number | bigint | boolean | string;
export type GgufValue = GgufScalar | GgufScalar[];

export interface GgufTensorInfo {
  name: string;
  /** ne0 first, as in ggml. */
  dims: number[];
  /** ggml type id (0 = F32, 1 = F16, 8 = Q8_0, 12 = Q4_K …). */
  type: number;
  /** Relative to the start of the tensor data section. */
  offset: number;
}

export interface GgufHeader {
  path: string;
  version: number;
  fileSize: number;
  alignment: number;
  /** Absolute offset of the tensor data section. */
  dataOffset: number;
  /** By the file's own (dotted) keys; 64-bit integers are numbers when they fit. */
  metadata: Map<string, GgufValue>;
  /** GGUF value type id of each key (4 = u32, 2 = u16 …): llama.cpp asserts some keys' exact type. */
  valueTypes: Map<string, number>;
  tensors: GgufTensorInfo[];
}

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
const DEFAULT_ALIGNMENT = 32;
const GGML_MAX_DIMS = 4;
const READ_CHUNK = 1 << 20;
const MAX_STRING_BYTES = 1 << 28; // a chat template or a token is never near this; a corrupt length is

/**
 * Parses the header of a GGUF v2/v3 file. Format-level problems throw GgufError; everything else
 * (required keys, tensor shapes and bounds) is `validateGguf`'s.
 *
 * node-llama-cpp's reader trusts every count and length it reads: past the end of the file it reads
 * zeros, a corrupt array count makes it loop over them while its buffer grows, and a corrupt string
 * length of 2-4 GiB aborts the process inside Node's fs.read (seen on a byte-flipped header). It also
 * reads unknown versions as v3. So the header is walked (bounds only) before it is parsed.
 */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const { fileSize, version, headerEnd, valueTypes } = await walkHeader(path);
  const nlc = await loadNodeLlamaCpp();
  let info: Nlc.GgufFileInfo;
  try {
    info = await nlc.readGgufFileInfo(path, {
      sourceType: 'filesystem', // never a URL or a model URI: nothing is downloaded
      spliceSplitFiles: false, // each part of a split model is read (and checked) on its own
      readTensorInfo: true,
      logWarnings: false,
    });
  } catch (err) {
    throw new GgufError('malformed', `cannot parse the GGUF header: ${errorMessage(err)}`, path);
  }

  const metadata = new Map<string, GgufValue>();
  flatten(info.metadata as unknown as Record<string, unknown>, '', metadata);

  let alignment = DEFAULT_ALIGNMENT;
  const a = metadata.get('general.alignment');
  if (a !== undefined) {
    if (typeof a !== 'number' || a <= 0 || (a & (a - 1)) !== 0) {
      throw new GgufError('invalid_value', `general.alignment must be a power of two, got ${String(a)}`, path);
    }
    alignment = a;
  }

  const tensors = (info.tensorInfo ?? []).map((t): GgufTensorInfo => ({
    name: t.name,
    dims: t.dimensions.map((d, i) => safeNumber(d, `dimension ${i} of ${t.name}`, path)),
    type: t.ggmlType,
    offset: safeNumber(t.offset, `offset of ${t.name}`, path),
  }));
  const dataOffset = alignUp(headerEnd, alignment);
  return { path, version, fileSize, alignment, dataOffset, metadata, valueTypes, tensors };
}

/** llama.cpp's split file names (`llama_split_path`): `<prefix>-00001-of-00003.gguf`, numbered from 1. */
const SPLIT_NAME = /-(\d{5})-of-(\d{5})\.gguf$/;

/**
 * The files of a model given the path of its first part: every part of `<prefix>-00001-of-0000N.gguf`
 * in order (llama.cpp finds the others by this name when handed the first), else just `path`.
 * Only the name is read; whether the parts exist and agree is `validateGguf`'s.
 */
export function splitParts(path: string): string[] {
  const m = SPLIT_NAME.exec(path);
  if (!m || Number(m[1]) !== 1) return [path];
  const count = Number(m[2]);
  const prefix = path.slice(0, m.index);
  return Array.from({ length: count }, (_, i) => splitPartPath(prefix, i + 1, count));
}

/** The path of part `no` (1-based) of `count` of a split model whose name without the suffix is `prefix`. */
export function splitPartPath(prefix: string, no: number, count: number): string {
  return `${prefix}-${String(no).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.gguf`;
}

/** Sequential little-endian reads over a file handle, in 1 MiB chunks, on demand. */
class Cursor {
  private buf = Buffer.alloc(0);
  private bufStart = 0; // file offset of buf[0]
  pos = 0; // file offset of the next read

  constructor(
    private readonly fh: FileHandle,
    readonly fileSize: number,
    private readonly path: string,
  ) {}

  /** Moves past `n` bytes that must lie inside the file; returns where they start in `buf` when `load`. */
  private async take(n: number, what: string, load = true): Promise<number> {
    if (this.pos + n > this.fileSize) {
      throw new GgufError('truncated', `file ends inside ${what} at byte ${this.pos}`, this.path);
    }
    const start = this.pos;
    this.pos += n;
    if (!load) return -1;
    if (start < this.bufStart || start + n > this.bufStart + this.buf.length) {
      const len = Math.min(Math.max(n, READ_CHUNK), this.fileSize - start);
      const next = Buffer.alloc(len);
      let done = 0;
      while (done < len) {
        const { bytesRead } = await this.fh.read(next, done, len - done, start + done);
        if (bytesRead === 0) throw new GgufError('truncated', `file ends inside ${what}`, this.path);
        done += bytesRead;
      }
      this.buf = next;
      this.bufStart = start;
    }
    return start - this.bufStart;
  }

  async u32(what: string): Promise<number> {
    const at = await this.take(4, what); // before reading this.buf: take() may replace it
    return this.buf.readUInt32LE(at);
  }
  /** A u64 that must fit a JS number (counts, lengths, offsets). */
  async count(what: string): Promise<number> {
    const at = await this.take(8, what);
    return safeNumber(this.buf.readBigUInt64LE(at), what, this.path);
  }
  private async length(what: string): Promise<number> {
    const len = await this.count(`${what} length`);
    if (len > MAX_STRING_BYTES) throw new GgufError('malformed', `${what} is ${len} bytes long`, this.path);
    return len;
  }
  async string(what: string): Promise<string> {
    const len = await this.length(what);
    const at = await this.take(len, what);
    return this.buf.toString('utf8', at, at + len);
  }
  async skipString(what: string): Promise<void> {
    await this.take(await this.length(what), what, false);
  }
  async skipValue(type: number, what: string): Promise<void> {
    if (type === STRING) return this.skipString(what);
    if (type !== ARRAY) {
      const size = SCALAR_SIZES[type] ?? 0;
      if (size === 0) throw new GgufError('malformed', `${what} has unknown value type ${type}`, this.path);
      await this.take(size, what, false);
      return;
    }
    const itemType = await this.u32(`${what} item type`);
    if (itemType === ARRAY) {
      throw new GgufError('malformed', `${what} is a nested array (llama.cpp refuses those)`, this.path);
    }
    const n = await this.count(`${what} item count`);
    const itemSize = itemType === STRING ? 8 : (SCALAR_SIZES[itemType] ?? 0);
    if (itemSize === 0) throw new GgufError('malformed', `${what} has unknown item type ${itemType}`, this.path);
    if (this.pos + n * itemSize > this.fileSize) {
      throw new GgufError('truncated', `${what} declares ${n} items, more than the file holds`, this.path);
    }
    if (itemType !== STRING) await this.take(n * itemSize, what, false);
    else for (let i = 0; i < n; i++) await this.skipString(what);
  }
}

const STRING = 8;
const ARRAY = 9;
/** Bytes of a scalar GGUF value by type id (uint8 … float64, bool = 7). */
const SCALAR_SIZES = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];

/**
 * Walks the whole header without decoding values: magic, version, every count and length must fit
 * the file, keys and tensor names are unique, and every tensor has 1-4 dimensions.
 */
async function walkHeader(path: string): Promise<{ fileSize: number; version: number; headerEnd: number; valueTypes: Map<string, number> }> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new GgufError('io', `cannot open model file: ${errorMessage(err)}`, path);
  }
  try {
    const { size: fileSize } = await fh.stat();
    const c = new Cursor(fh, fileSize, path);
    if (fileSize < 4) throw new GgufError('bad_magic', 'not a GGUF file (shorter than the magic)', path);
    const magic = await c.u32('magic');
    if (magic !== GGUF_MAGIC) {
      const shown = Buffer.alloc(4);
      shown.writeUInt32LE(magic);
      throw new GgufError('bad_magic', `not a GGUF file (magic ${JSON.stringify(shown.toString('latin1'))})`, path);
    }
    const version = await c.u32('version');
    if (version !== 2 && version !== 3) {
      throw new GgufError(
        'unsupported_version',
        `GGUF version ${version} is not supported (2 or 3; a byte-swapped big-endian file also lands here)`,
        path,
      );
    }
    const tensorCount = await c.count('tensor count');
    const kvCount = await c.count('metadata count');
    // Each KV takes ≥ 13 bytes and each tensor info ≥ 28: a corrupt count cannot make us loop for ever.
    if (kvCount * 13 + tensorCount * 28 > fileSize) {
      throw new GgufError('truncated', `header declares ${kvCount} keys and ${tensorCount} tensors`, path);
    }
    const valueTypes = new Map<string, number>();
    for (let i = 0; i < kvCount; i++) {
      const key = await c.string(`metadata key #${i}`);
      const type = await c.u32(`type of ${key}`);
      if (valueTypes.has(key)) throw new GgufError('malformed', `duplicate metadata key ${key}`, path);
      valueTypes.set(key, type);
      await c.skipValue(type, key);
    }
    const names = new Set<string>();
    for (let i = 0; i < tensorCount; i++) {
      const name = await c.string(`name of tensor #${i}`);
      if (names.has(name)) throw new GgufError('bad_tensor', `duplicate tensor ${name}`, path);
      names.add(name);
      const nDims = await c.u32(`dimension count of ${name}`);
      if (nDims < 1 || nDims > GGML_MAX_DIMS) {
        throw new GgufError('bad_tensor', `tensor ${name} has ${nDims} dimensions (1-${GGML_MAX_DIMS})`, path);
      }
      for (let d = 0; d < nDims; d++) await c.count(`dimension ${d} of ${name}`);
      await c.u32(`type of ${name}`);
      await c.count(`offset of ${name}`);
    }
    return { fileSize, version, headerEnd: c.pos, valueTypes };
  } finally {
    await fh.close();
  }
}

/**
 * node-llama-cpp nests metadata by the dots of its keys ({ llama: { attention: { head_count } } });
 * joining the path back gives the file's own keys.
 */
function flatten(node: Record<string, unknown>, prefix: string, out: Map<string, GgufValue>): void {
  for (const [k, v] of Object.entries(node)) {
    const key = prefix + k;
    // Array.from, not map: under jest the parsed arrays come from another realm.
    if (Array.isArray(v)) out.set(key, Array.from(v as GgufScalar[], narrow));
    else if (typeof v === 'object' && v !== null) flatten(v as Record<string, unknown>, `${key}.`, out);
    else out.set(key, narrow(v as GgufScalar));
  }
}

function narrow<T extends GgufScalar>(v: T): T | number {
  return typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
}

/** A u64 that must fit a JS number (counts, dimensions, offsets). */
function safeNumber(v: number | bigint, what: string, path: string): number {
  if (typeof v === 'bigint' ? v > BigInt(Number.MAX_SAFE_INTEGER) : !Number.isSafeInteger(v)) {
    throw new GgufError('malformed', `${what} is absurdly large (${v})`, path);
  }
  return Number(v);
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function errorMessage(err: unknown): string {
  // node-llama-cpp's errors may come from another realm (jest), so no instanceof.
  return typeof (err as { message?: unknown } | null)?.message === 'string' ? (err as { message: string }).message : String(err);
}
