/**
 * GGUF without llama.cpp: a writer for our own tiny chat model (nothing can be downloaded, so the model
 * the platform serves out of the box is generated here from a seed) and a header reader/validator that
 * runs before every load. llama.cpp aborts the whole process (GGML_ASSERT, division by zero, uncaught
 * std::out_of_range) on some malformed files, so nothing reaches it without passing `validateGguf`.
 *
 * Pure TypeScript: no node-llama-cpp import (it is ESM-only and would not load inside jest).
 * Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (little-endian, dims ne0 first).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';

export type GgufErrorCode =
  | 'io'
  | 'bad_magic'
  | 'unsupported_version'
  | 'truncated'
  | 'malformed'
  | 'missing_key'
  | 'invalid_value'
  | 'unsupported_architecture'
  | 'bad_tensor';

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

// ---------------------------------------------------------------------------------------------------
// Types and constants
// ---------------------------------------------------------------------------------------------------

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
const DEFAULT_ALIGNMENT = 32;
const GGML_MAX_DIMS = 4;
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

export type GgufScalar = number | bigint | boolean | string;
export interface GgufArray {
  readonly itemType: GgufValueType;
  readonly items: GgufScalar[];
}
export type GgufValue = GgufScalar | GgufArray;

export interface GgufTensorInfo {
  name: string;
  /** ne0 first, as in ggml. */
  dims: number[];
  /** ggml type id (0 = F32, 1 = F16, 8 = Q8_0, 12 = Q4_K …). */
  type: number;
  /** Relative to the start of the tensor data section. */
  offset: number;
  /** Bytes of data. */
  size: number;
  elements: number;
}

export interface GgufHeader {
  path: string;
  version: number;
  fileSize: number;
  alignment: number;
  /** Absolute offset of the tensor data section. */
  dataOffset: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
}

export interface GgufSummary {
  architecture: string;
  name: string | null;
  contextLength: number;
  parameters: number;
  vocabSize: number;
  chatTemplate: string | null;
}

/**
 * [block size, bytes per block] by ggml type id, read from the bundled llama.cpp
 * (`getBlockSizeForGgmlType`/`getTypeSizeForGgmlType`, node-llama-cpp 3.22.1). Ids 4, 5, 31-33 and 36-38
 * were removed from ggml; files using them (or unknown ids) are refused.
 */
const GGML_TYPES: ReadonlyMap<number, readonly [number, number]> = new Map([
  [0, [1, 4]], // F32
  [1, [1, 2]], // F16
  [2, [32, 18]], // Q4_0
  [3, [32, 20]], // Q4_1
  [6, [32, 22]], // Q5_0
  [7, [32, 24]], // Q5_1
  [8, [32, 34]], // Q8_0
  [9, [32, 36]], // Q8_1
  [10, [256, 84]], // Q2_K
  [11, [256, 110]], // Q3_K
  [12, [256, 144]], // Q4_K
  [13, [256, 176]], // Q5_K
  [14, [256, 210]], // Q6_K
  [15, [256, 292]], // Q8_K
  [16, [256, 66]], // IQ2_XXS
  [17, [256, 74]], // IQ2_XS
  [18, [256, 98]], // IQ3_XXS
  [19, [256, 50]], // IQ1_S
  [20, [32, 18]], // IQ4_NL
  [21, [256, 110]], // IQ3_S
  [22, [256, 82]], // IQ2_S
  [23, [256, 136]], // IQ4_XS
  [24, [1, 1]], // I8
  [25, [1, 2]], // I16
  [26, [1, 4]], // I32
  [27, [1, 8]], // I64
  [28, [1, 8]], // F64
  [29, [256, 56]], // IQ1_M
  [30, [1, 2]], // BF16
  [34, [256, 54]], // TQ1_0
  [35, [256, 66]], // TQ2_0
  [39, [32, 17]], // MXFP4
  [40, [64, 36]], // NVFP4
  [41, [128, 18]], // Q1_0
  [42, [64, 18]], // Q2_0
]);

/** Architectures whose hyper-parameters and tensors this file checks. Others are refused. */
export const SUPPORTED_ARCHITECTURES: readonly string[] = ['llama'];

// ---------------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------------

const READ_CHUNK = 1 << 20;
const MAX_STRING_BYTES = 1 << 28; // a chat template or a token is never near this; a corrupt length is

/** Sequential little-endian reader over a file handle; reads the file in 1 MiB chunks, on demand. */
class Cursor {
  private buf = Buffer.alloc(0);
  private bufStart = 0; // file offset of buf[0]
  pos = 0; // file offset of the next read

  constructor(
    private readonly fh: FileHandle,
    readonly fileSize: number,
    private readonly path: string,
  ) {}

  private async ensure(n: number, what: string): Promise<void> {
    if (this.pos + n > this.fileSize) {
      throw new GgufError('truncated', `file ends inside ${what} at byte ${this.pos}`, this.path);
    }
    const have = this.bufStart + this.buf.length - this.pos;
    if (have >= n) return;
    const start = this.pos;
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

  private at(): number {
    return this.pos - this.bufStart;
  }

  async u8(what: string): Promise<number> {
    await this.ensure(1, what);
    const v = this.buf.readUInt8(this.at());
    this.pos += 1;
    return v;
  }
  async u32(what: string): Promise<number> {
    await this.ensure(4, what);
    const v = this.buf.readUInt32LE(this.at());
    this.pos += 4;
    return v;
  }
  async u64(what: string): Promise<bigint> {
    await this.ensure(8, what);
    const v = this.buf.readBigUInt64LE(this.at());
    this.pos += 8;
    return v;
  }
  /** A u64 that must fit a JS number (counts, lengths, offsets). */
  async count(what: string): Promise<number> {
    const v = await this.u64(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GgufError('malformed', `${what} is absurdly large (${v})`, this.path);
    }
    return Number(v);
  }
  async string(what: string): Promise<string> {
    const len = await this.count(`${what} length`);
    if (len > MAX_STRING_BYTES) throw new GgufError('malformed', `${what} is ${len} bytes long`, this.path);
    await this.ensure(len, what);
    const s = this.buf.toString('utf8', this.at(), this.at() + len);
    this.pos += len;
    return s;
  }

  async scalar(type: GgufValueType, what: string): Promise<GgufScalar> {
    const size = scalarSize(type);
    if (type === GgufValueType.STRING) return this.string(what);
    if (size === 0) throw new GgufError('malformed', `${what} has unknown value type ${type}`, this.path);
    await this.ensure(size, what);
    const o = this.at();
    const b = this.buf;
    this.pos += size;
    switch (type) {
      case GgufValueType.UINT8:
        return b.readUInt8(o);
      case GgufValueType.INT8:
        return b.readInt8(o);
      case GgufValueType.UINT16:
        return b.readUInt16LE(o);
      case GgufValueType.INT16:
        return b.readInt16LE(o);
      case GgufValueType.UINT32:
        return b.readUInt32LE(o);
      case GgufValueType.INT32:
        return b.readInt32LE(o);
      case GgufValueType.FLOAT32:
        return b.readFloatLE(o);
      case GgufValueType.BOOL:
        return b.readUInt8(o) !== 0;
      case GgufValueType.UINT64:
        return narrow(b.readBigUInt64LE(o));
      case GgufValueType.INT64:
        return narrow(b.readBigInt64LE(o));
      case GgufValueType.FLOAT64:
        return b.readDoubleLE(o);
      default:
        throw new GgufError('malformed', `${what} has unknown value type ${type}`, this.path);
    }
  }

  async value(type: number, what: string): Promise<GgufValue> {
    if (type !== GgufValueType.ARRAY) return this.scalar(type, what);
    const itemType = await this.u32(`${what} item type`);
    if (itemType === GgufValueType.ARRAY) {
      throw new GgufError('malformed', `${what} is a nested array (llama.cpp refuses those)`, this.path);
    }
    const n = await this.count(`${what} item count`);
    const minItem = itemType === GgufValueType.STRING ? 8 : scalarSize(itemType);
    if (minItem === 0) throw new GgufError('malformed', `${what} has unknown item type ${itemType}`, this.path);
    if (this.pos + n * minItem > this.fileSize) {
      throw new GgufError('truncated', `${what} declares ${n} items, more than the file holds`, this.path);
    }
    const items: GgufScalar[] = new Array<GgufScalar>(n);
    for (let i = 0; i < n; i++) items[i] = await this.scalar(itemType, what);
    return { itemType, items };
  }
}

function scalarSize(type: number): number {
  switch (type) {
    case GgufValueType.UINT8:
    case GgufValueType.INT8:
    case GgufValueType.BOOL:
      return 1;
    case GgufValueType.UINT16:
    case GgufValueType.INT16:
      return 2;
    case GgufValueType.UINT32:
    case GgufValueType.INT32:
    case GgufValueType.FLOAT32:
      return 4;
    case GgufValueType.UINT64:
    case GgufValueType.INT64:
    case GgufValueType.FLOAT64:
      return 8;
    case GgufValueType.STRING:
      return -1;
    default:
      return 0;
  }
}

function narrow(v: bigint): number | bigint {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/**
 * Parses the header, metadata and tensor infos of a GGUF v2/v3 file without reading the weights, and
 * checks that every tensor's data lies inside the file. Format-level problems throw GgufError;
 * model-level checks (required keys, shapes) are `validateGguf`'s.
 */
export async function readGgufHeader(path: string): Promise<GgufHeader> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new GgufError('io', `cannot open model file: ${(err as Error).message}`, path);
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

    const metadata = new Map<string, GgufValue>();
    for (let i = 0; i < kvCount; i++) {
      const key = await c.string(`metadata key #${i}`);
      const type = await c.u32(`type of ${key}`);
      if (metadata.has(key)) throw new GgufError('malformed', `duplicate metadata key ${key}`, path);
      metadata.set(key, await c.value(type, key));
    }

    let alignment = DEFAULT_ALIGNMENT;
    const a = metadata.get('general.alignment');
    if (a !== undefined) {
      if (typeof a !== 'number' || a <= 0 || (a & (a - 1)) !== 0) {
        throw new GgufError('invalid_value', `general.alignment must be a power of two, got ${String(a)}`, path);
      }
      alignment = a;
    }

    const tensors: GgufTensorInfo[] = [];
    const names = new Set<string>();
    for (let i = 0; i < tensorCount; i++) {
      const name = await c.string(`name of tensor #${i}`);
      if (names.has(name)) throw new GgufError('bad_tensor', `duplicate tensor ${name}`, path);
      names.add(name);
      const nDims = await c.u32(`dimension count of ${name}`);
      if (nDims < 1 || nDims > GGML_MAX_DIMS) {
        throw new GgufError('bad_tensor', `tensor ${name} has ${nDims} dimensions (1-${GGML_MAX_DIMS})`, path);
      }
      const dims: number[] = [];
      for (let d = 0; d < nDims; d++) dims.push(await c.count(`dimension ${d} of ${name}`));
      const type = await c.u32(`type of ${name}`);
      const offset = await c.count(`offset of ${name}`);
      const t = GGML_TYPES.get(type);
      if (!t) throw new GgufError('bad_tensor', `tensor ${name} has unknown or removed ggml type ${type}`, path);
      const [blockSize, blockBytes] = t;
      const ne0 = dims[0] ?? 0;
      if (ne0 % blockSize !== 0) {
        throw new GgufError('bad_tensor', `tensor ${name}: ne0 ${ne0} is not a multiple of block size ${blockSize}`, path);
      }
      if (offset % alignment !== 0) {
        throw new GgufError('bad_tensor', `tensor ${name}: offset ${offset} is not ${alignment}-byte aligned`, path);
      }
      const elements = dims.reduce((p, d) => p * d, 1);
      if (!Number.isSafeInteger(elements)) throw new GgufError('bad_tensor', `tensor ${name} is absurdly large`, path);
      const size = (elements / blockSize) * blockBytes;
      tensors.push({ name, dims, type, offset, size, elements });
    }

    const dataOffset = alignUp(c.pos, alignment);
    const split = metadata.get('split.count');
    const isSplit = typeof split === 'number' && split > 1;
    if (isSplit) {
      throw new GgufError('malformed', `split GGUF (${split} parts) is not supported: merge it into one file`, path);
    }
    const dataSize = fileSize - dataOffset;
    for (const t of tensors) {
      if (dataOffset > fileSize || t.offset + t.size > dataSize) {
        throw new GgufError(
          'truncated',
          `tensor ${t.name} (${t.size} bytes at data offset ${t.offset}) runs past the end of the file ` + `(${Math.max(0, dataSize)} data bytes)`,
          path,
        );
      }
    }
    // Overlapping tensors mean a corrupt offset table.
    const sorted = [...tensors].sort((x, y) => x.offset - y.offset);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (prev.offset + prev.size > cur.offset) {
        throw new GgufError('bad_tensor', `tensors ${prev.name} and ${cur.name} overlap`, path);
      }
    }
    return { path, version, fileSize, alignment, dataOffset, metadata, tensors };
  } finally {
    await fh.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Validator
// ---------------------------------------------------------------------------------------------------

function isArray(v: GgufValue | undefined): v is GgufArray {
  return typeof v === 'object' && v !== null && 'items' in v;
}

class Keys {
  constructor(
    private readonly md: Map<string, GgufValue>,
    private readonly path: string,
  ) {}

  has(key: string): boolean {
    return this.md.has(key);
  }

  string(key: string, required: true): string;
  string(key: string, required: false): string | null;
  string(key: string, required: boolean): string | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (typeof v !== 'string') throw new GgufError('invalid_value', `${key} must be a string`, this.path);
    return v;
  }

  /** A non-negative integer scalar (any integer GGUF type, as llama.cpp's get_key accepts). */
  int(key: string, required: true): number;
  int(key: string, required: false): number | null;
  int(key: string, required: boolean): number | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new GgufError('invalid_value', `${key} must be a non-negative integer, got ${describe(v)}`, this.path);
    }
    return v;
  }

  float(key: string, required: boolean): number | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new GgufError('invalid_value', `${key} must be a number, got ${describe(v)}`, this.path);
    }
    return v;
  }

  /** A per-layer value given either as one integer or as an array of `layers` integers. */
  perLayer(key: string, layers: number, required: boolean): number[] | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (isArray(v)) {
      if (v.items.length !== layers) {
        throw new GgufError('invalid_value', `${key} has ${v.items.length} entries for ${layers} layers`, this.path);
      }
      return v.items.map((x) => {
        if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) {
          throw new GgufError('invalid_value', `${key} entries must be non-negative integers`, this.path);
        }
        return x;
      });
    }
    return new Array<number>(layers).fill(this.int(key, true));
  }

  array(key: string, required: boolean, itemTypes: GgufValueType[]): GgufScalar[] | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (!isArray(v) || !itemTypes.includes(v.itemType)) {
      throw new GgufError('invalid_value', `${key} must be an array of ${itemTypes.map((t) => GgufValueType[t]).join('/')}`, this.path);
    }
    return v.items;
  }
}

function describe(v: GgufValue): string {
  if (isArray(v)) return `an array of ${v.items.length}`;
  return `${typeof v} ${String(v)}`;
}

const KNOWN_TOKENIZERS = ['llama', 'gpt2', 'bert', 't5', 'rwkv', 'plamo2', 'no_vocab', 'none'];

/**
 * Checks everything llama.cpp needs from a model of a supported architecture before it is handed the
 * file: format and bounds (readGgufHeader), required hyper-parameters and their consistency (the ones
 * whose absence makes llama.cpp divide by zero or GGML_ASSERT), the vocabulary (including byte fallback
 * for SentencePiece, whose absence makes tokenization throw inside native code), and the presence and
 * shape of every tensor the llama graph uses.
 */
export async function validateGguf(path: string): Promise<GgufSummary> {
  const h = await readGgufHeader(path);
  const k = new Keys(h.metadata, path);

  const architecture = k.string('general.architecture', true);
  if (!SUPPORTED_ARCHITECTURES.includes(architecture)) {
    throw new GgufError(
      'unsupported_architecture',
      `unsupported architecture "${architecture}" (supported: ${SUPPORTED_ARCHITECTURES.join(', ')})`,
      path,
    );
  }
  const p = architecture;
  const positive = (key: string, v: number): number => {
    if (v <= 0) throw new GgufError('invalid_value', `${key} must be positive, got ${v}`, path);
    return v;
  };

  const contextLength = positive(`${p}.context_length`, k.int(`${p}.context_length`, true));
  const nEmbd = positive(`${p}.embedding_length`, k.int(`${p}.embedding_length`, true));
  const nLayer = positive(`${p}.block_count`, k.int(`${p}.block_count`, true));
  const nFf = k.perLayer(`${p}.feed_forward_length`, nLayer, true)!;
  const nHead = k.perLayer(`${p}.attention.head_count`, nLayer, true)!;
  const nHeadKv = k.perLayer(`${p}.attention.head_count_kv`, nLayer, false) ?? nHead;
  const eps = k.float(`${p}.attention.layer_norm_rms_epsilon`, true)!;
  if (!(eps > 0)) throw new GgufError('invalid_value', `${p}.attention.layer_norm_rms_epsilon must be > 0`, path);
  const keyLength = k.int(`${p}.attention.key_length`, false);
  const valueLength = k.int(`${p}.attention.value_length`, false);
  const nExpert = k.int(`${p}.expert_count`, false) ?? 0;
  const nExpertUsed = k.int(`${p}.expert_used_count`, false) ?? 0;
  if (nExpert > 0 && (nExpertUsed === 0 || nExpertUsed > nExpert)) {
    throw new GgufError('invalid_value', `${p}.expert_used_count must be 1..${nExpert}`, path);
  }
  for (let il = 0; il < nLayer; il++) {
    const heads = nHead[il]!;
    const kv = nHeadKv[il]!;
    // llama.cpp divides n_embd by the head count and the head count by the kv head count.
    if (heads === 0) throw new GgufError('invalid_value', `${p}.attention.head_count is 0 for layer ${il}`, path);
    if (kv === 0 || heads % kv !== 0) {
      throw new GgufError('invalid_value', `${p}.attention.head_count_kv (${kv}) must divide head_count (${heads})`, path);
    }
    if (keyLength === null && nEmbd % heads !== 0) {
      throw new GgufError('invalid_value', `${p}.embedding_length ${nEmbd} is not a multiple of head_count ${heads}`, path);
    }
    if (nExpert === 0 && nFf[il] === 0) {
      throw new GgufError('invalid_value', `${p}.feed_forward_length is 0 for layer ${il}`, path);
    }
  }
  const headK = keyLength ?? nEmbd / nHead[0]!;
  const headV = valueLength ?? nEmbd / nHead[0]!;
  const ropeDims = k.int(`${p}.rope.dimension_count`, false);
  if (ropeDims !== null && (ropeDims === 0 || ropeDims > headK || ropeDims % 2 !== 0)) {
    throw new GgufError('invalid_value', `${p}.rope.dimension_count ${ropeDims} must be even and ≤ ${headK}`, path);
  }

  // Vocabulary
  const tokenizer = k.string('tokenizer.ggml.model', true);
  if (!KNOWN_TOKENIZERS.includes(tokenizer)) {
    throw new GgufError('invalid_value', `unknown tokenizer.ggml.model "${tokenizer}"`, path);
  }
  if (tokenizer === 'no_vocab' || tokenizer === 'none') {
    throw new GgufError('invalid_value', 'the model has no vocabulary: it cannot chat', path);
  }
  const tokens = k.array('tokenizer.ggml.tokens', true, [GgufValueType.STRING])! as string[];
  const vocabSize = tokens.length;
  if (vocabSize === 0) throw new GgufError('invalid_value', 'tokenizer.ggml.tokens is empty', path);
  const scores = k.array('tokenizer.ggml.scores', false, [GgufValueType.FLOAT32]);
  if (scores && scores.length !== vocabSize) {
    throw new GgufError('invalid_value', `tokenizer.ggml.scores has ${scores.length} entries for ${vocabSize} tokens`, path);
  }
  const types = k.array('tokenizer.ggml.token_type', false, [GgufValueType.INT32, GgufValueType.UINT32]);
  if (types && types.length !== vocabSize) {
    throw new GgufError('invalid_value', `tokenizer.ggml.token_type has ${types.length} entries for ${vocabSize} tokens`, path);
  }
  if (tokenizer === 'gpt2') k.array('tokenizer.ggml.merges', true, [GgufValueType.STRING]);
  if (tokenizer === 'llama') {
    // SentencePiece byte fallback: llama.cpp looks up <0xXX> (or the raw byte) for every byte it cannot
    // tokenize otherwise, with std::map::at — a vocabulary without them throws inside native code.
    const set = new Set(tokens);
    for (let b = 0; b < 256; b++) {
      const hex = `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
      if (!set.has(hex) && !set.has(String.fromCharCode(b))) {
        throw new GgufError('invalid_value', `SentencePiece vocabulary lacks byte token ${hex}`, path);
      }
    }
  }
  for (const key of ['bos', 'eos', 'unknown', 'eot', 'padding', 'sep', 'cls', 'mask', 'eom']) {
    const v = h.metadata.get(`tokenizer.ggml.${key}_token_id`);
    if (v === undefined || v === -1 || v === 0xffffffff) continue; // absent / "no such token"
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= vocabSize) {
      throw new GgufError('invalid_value', `tokenizer.ggml.${key}_token_id ${describe(v)} is outside the vocabulary (${vocabSize})`, path);
    }
  }
  // llama.cpp sizes the embedding from llama.vocab_size when present; it must agree with the token list.
  const declaredVocab = k.int(`${p}.vocab_size`, false);
  if (declaredVocab !== null && declaredVocab !== vocabSize) {
    throw new GgufError('invalid_value', `${p}.vocab_size ${declaredVocab} ≠ ${vocabSize} tokens`, path);
  }
  const chatTemplate = k.string('tokenizer.chat_template', false);
  const name = k.string('general.name', false);

  // Tensors of the llama graph (llama.cpp's create_tensor would refuse these too, but with less clear words)
  const byName = new Map(h.tensors.map((t) => [t.name, t]));
  const expect = (tname: string, dims: number[] | null, required = true): void => {
    const t = byName.get(tname);
    if (!t) {
      if (required) throw new GgufError('bad_tensor', `missing tensor ${tname}`, path);
      return;
    }
    if (dims && (t.dims.length !== dims.length || t.dims.some((d, i) => d !== dims[i]))) {
      throw new GgufError('bad_tensor', `tensor ${tname} has shape [${t.dims.join(', ')}], expected [${dims.join(', ')}]`, path);
    }
  };
  expect('token_embd.weight', [nEmbd, vocabSize]);
  expect('output_norm.weight', [nEmbd]);
  expect('output.weight', [nEmbd, vocabSize], false);
  for (let il = 0; il < nLayer; il++) {
    const b = `blk.${il}.`;
    const heads = nHead[il]!;
    const kv = nHeadKv[il]!;
    const ff = nFf[il]!;
    expect(`${b}attn_norm.weight`, [nEmbd]);
    expect(`${b}attn_q.weight`, [nEmbd, heads * headK]);
    expect(`${b}attn_k.weight`, [nEmbd, kv * headK]);
    expect(`${b}attn_v.weight`, [nEmbd, kv * headV]);
    expect(`${b}attn_output.weight`, [heads * headV, nEmbd]);
    expect(`${b}ffn_norm.weight`, [nEmbd]);
    if (nExpert === 0) {
      expect(`${b}ffn_gate.weight`, [nEmbd, ff]);
      expect(`${b}ffn_down.weight`, [ff, nEmbd]);
      expect(`${b}ffn_up.weight`, [nEmbd, ff]);
    } else {
      expect(`${b}ffn_gate_inp.weight`, [nEmbd, nExpert]);
      expect(`${b}ffn_gate_exps.weight`, null);
      expect(`${b}ffn_down_exps.weight`, null);
      expect(`${b}ffn_up_exps.weight`, null);
    }
  }

  const parameters = h.tensors.reduce((s, t) => s + t.elements, 0);
  return { architecture, name, contextLength, parameters, vocabSize, chatTemplate };
}

// ---------------------------------------------------------------------------------------------------
// Writer: the tiny chat model
// ---------------------------------------------------------------------------------------------------

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const SPACE = '\u2581'; // SentencePiece word-boundary marker

/** Common English words, most frequent first (their rank sets the model's unigram preference). */
const WORDS = (
  'the of and to a in is you that it he was for on are as with his they I at be this have from or one had by ' +
  'word but not what all were we when your can said there use an each which she do how their if will up other ' +
  'about out many then them these so some her would make like him into time has look two more write go see ' +
  'number no way could people my than first water been call who now find long down day did get come made may ' +
  'part over new sound take only little work know place year live me back give most very after thing our just ' +
  'name good sentence man think say great where help through much before line right too mean old any same tell ' +
  'boy follow came want show also around form three small set put end does another well large must big even ' +
  'such because turn here why ask went men read need land different home us move try kind hand picture again ' +
  'change off play spell air away animal house point page letter mother answer found study still learn should ' +
  'world high every near add food between own below country plant last school father keep tree never start city ' +
  'earth eye light thought head under story saw left few while along might close something seem next hard open ' +
  'example begin life always those both paper together got group often run important until children side feet ' +
  'car mile night walk white sea began grow took river four carry state once book hear stop without second later ' +
  'idea enough eat face watch far really almost let above girl sometimes young talk soon list song being leave ' +
  'family hello thanks thank please question model network glob token data compute node reward yes sure today'
).split(' ');
const CAPITALIZED = ['The', 'I', 'A', 'It', 'This', 'What', 'How', 'Hello', 'You', 'We', 'In', 'Yes', 'Thank', 'Glob'];
const SUFFIXES = ['s', 'ed', 'ing', 'er', 'ly', "'s", "n't"];
/** Role names follow a control token in ChatML (no ▁ before them): whole pieces keep prompts short. */
const ROLE_PIECES = ['user', 'system', 'assistant'];
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789' + `.,!?;:'"-()/` + SPACE;
const PUNCT_BIAS: Record<string, number> = { '.': 1.6, ',': 1.2, '?': -0.5, '!': -0.5 };

interface Piece {
  text: string;
  score: number;
  type: number; // 1 normal, 2 unknown, 3 control, 6 byte
  bias: number; // unigram preference in logits
}

/** `extraPieces`: the first n additional filler pieces (▁w0000…), to grow the vocabulary for tests. */
function buildVocabulary(extraPieces: number): { pieces: Piece[]; eotId: number } {
  const pieces: Piece[] = [
    { text: '<unk>', score: 0, type: 2, bias: -30 },
    { text: '<s>', score: 0, type: 3, bias: -30 },
    { text: '</s>', score: 0, type: 3, bias: -30 },
    { text: '<|im_start|>', score: 0, type: 3, bias: -30 },
    { text: '<|im_end|>', score: 0, type: 3, bias: 0 }, // set below
  ];
  const eotId = 4;
  for (let b = 0; b < 256; b++) {
    const hex = `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
    pieces.push({ text: hex, score: 0, type: 6, bias: b === 0x0a ? -2.5 : -12 });
  }
  const seen = new Set(pieces.map((p) => p.text));
  const add = (text: string, score: number, bias: number): void => {
    if (seen.has(text)) return;
    seen.add(text);
    pieces.push({ text, score, type: 1, bias });
  };
  // Single characters first: every merge in the SentencePiece (bigram, score-ordered) tokenizer starts
  // from them. Then each word with all its ▁-prefixes, so "▁the" is reachable ▁t → ▁th → ▁the.
  for (const ch of CHARS) add(ch, -1000, PUNCT_BIAS[ch] ?? -4);
  const words = [...WORDS.map((w, rank) => ({ w, rank })), ...CAPITALIZED.map((w, i) => ({ w, rank: 40 + i * 8 }))];
  const wordSet = new Set(words.map(({ w }) => SPACE + w));
  for (const { w, rank } of words) {
    const full = SPACE + w;
    for (let len = 2; len <= full.length; len++) {
      const text = full.slice(0, len);
      const isWord = wordSet.has(text);
      add(text, -len * 0.1 - rank * 0.001, isWord ? 2.2 - 0.55 * Math.log(1 + rankOf(words, text)) : -4);
    }
  }
  for (const s of SUFFIXES) {
    for (let len = 2; len <= s.length; len++) add(s.slice(0, len), -500 - len, len === s.length ? -1.5 : -5);
  }
  for (const r of ROLE_PIECES) {
    for (let len = 2; len <= r.length; len++) add(r.slice(0, len), -600 - len, -8);
  }
  for (let i = 0; i < extraPieces; i++) add(`${SPACE}w${i.toString().padStart(4, '0')}`, -900, -6);

  // Probability of ending the answer at each step ≈ 1/160 (answers of ~160 tokens on average): the
  // end token's logit is set against the mass of everything else.
  const mass = pieces.reduce((s, p) => (p.text === '<|im_end|>' ? s : s + Math.exp(p.bias)), 0);
  pieces[eotId]!.bias = Math.log(mass / 159);
  return { pieces, eotId };
}

function rankOf(words: { w: string; rank: number }[], piece: string): number {
  let best = Infinity;
  for (const { w, rank } of words) if (SPACE + w === piece && rank < best) best = rank;
  return best;
}

/** mulberry32: tiny, fast, and the same sequence on every platform (integer arithmetic only). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TinyModelOptions {
  seed?: number;
  nEmbd?: number;
  nLayer?: number;
  nHead?: number;
  nFf?: number;
  contextLength?: number;
  extraPieces?: number;
}

/** GGUF serializer for the handful of value types the writer needs. */
class Out {
  private chunks: Buffer[] = [];
  length = 0;
  private push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  bytes(b: Buffer): void {
    this.push(b);
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

type KV =
  | [string, 'u32', number]
  | [string, 'f32', number]
  | [string, 'bool', boolean]
  | [string, 'str', string]
  | [string, 'str[]', string[]]
  | [string, 'f32[]', number[]]
  | [string, 'i32[]', number[]];

function writeKv(o: Out, [key, kind, value]: KV): void {
  o.str(key);
  switch (kind) {
    case 'u32':
      o.u32(GgufValueType.UINT32);
      o.u32(value);
      break;
    case 'f32':
      o.u32(GgufValueType.FLOAT32);
      o.f32(value);
      break;
    case 'bool':
      o.u32(GgufValueType.BOOL);
      o.bytes(Buffer.from([value ? 1 : 0]));
      break;
    case 'str':
      o.u32(GgufValueType.STRING);
      o.str(value);
      break;
    case 'str[]':
      o.u32(GgufValueType.ARRAY);
      o.u32(GgufValueType.STRING);
      o.u64(value.length);
      for (const s of value) o.str(s);
      break;
    case 'f32[]':
      o.u32(GgufValueType.ARRAY);
      o.u32(GgufValueType.FLOAT32);
      o.u64(value.length);
      for (const v of value) o.f32(v);
      break;
    case 'i32[]':
      o.u32(GgufValueType.ARRAY);
      o.u32(GgufValueType.INT32);
      o.u64(value.length);
      for (const v of value) o.i32(v);
      break;
  }
}

interface TensorPlan {
  name: string;
  dims: number[];
  fill: (data: Float32Array, rand: () => number) => void;
}

/** Uniform noise with the given standard deviation. */
function noise(std: number): TensorPlan['fill'] {
  const a = std * Math.sqrt(3);
  return (d, r) => {
    for (let i = 0; i < d.length; i++) d[i] = (r() * 2 - 1) * a;
  };
}

/**
 * Writes a small, valid llama GGUF (v3, F32) with seeded random weights and a byte-fallback
 * SentencePiece vocabulary; same options ⇒ identical bytes.
 *
 * The weights are random, but shaped so that the output reads like (nonsense) English: dimension 0 of
 * the residual stream is held at 1 (every embedding has 1 there and no layer writes to it), and column 0
 * of the output matrix carries a per-token bias — frequent words high, byte tokens low, the end-of-turn
 * token such that answers stop after ~160 tokens. The rest of the network is random and makes the
 * choice depend on the context.
 */
export async function writeTinyLlamaGguf(
  path: string,
  opts: TinyModelOptions = {},
): Promise<{ bytes: number; vocabSize: number; parameters: number }> {
  const seed = opts.seed ?? 1;
  const nEmbd = opts.nEmbd ?? 192;
  const nLayer = opts.nLayer ?? 4;
  const nHead = opts.nHead ?? 4;
  const nFf = opts.nFf ?? 512;
  const contextLength = opts.contextLength ?? 2048;
  const extraPieces = opts.extraPieces ?? 0;
  if (nEmbd % nHead !== 0 || (nEmbd / nHead) % 2 !== 0) {
    throw new GgufError('invalid_value', `nEmbd (${nEmbd}) must be a multiple of 2·nHead (${nHead})`);
  }
  const headDim = nEmbd / nHead;
  const { pieces, eotId } = buildVocabulary(extraPieces);
  const nVocab = pieces.length;

  const kvs: KV[] = [
    ['general.architecture', 'str', 'llama'],
    ['general.name', 'str', 'Glob Tiny Chat'],
    ['general.description', 'str', `Random-weight test model generated by Glob Network (seed ${seed})`],
    ['general.file_type', 'u32', 0], // ALL_F32
    ['general.alignment', 'u32', DEFAULT_ALIGNMENT],
    ['llama.context_length', 'u32', contextLength],
    ['llama.embedding_length', 'u32', nEmbd],
    ['llama.block_count', 'u32', nLayer],
    ['llama.feed_forward_length', 'u32', nFf],
    ['llama.attention.head_count', 'u32', nHead],
    ['llama.attention.head_count_kv', 'u32', nHead],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['llama.rope.dimension_count', 'u32', headDim],
    ['llama.rope.freq_base', 'f32', 10000],
    ['llama.vocab_size', 'u32', nVocab],
    ['tokenizer.ggml.model', 'str', 'llama'],
    ['tokenizer.ggml.tokens', 'str[]', pieces.map((p) => p.text)],
    ['tokenizer.ggml.scores', 'f32[]', pieces.map((p) => p.score)],
    ['tokenizer.ggml.token_type', 'i32[]', pieces.map((p) => p.type)],
    ['tokenizer.ggml.bos_token_id', 'u32', 1],
    ['tokenizer.ggml.eos_token_id', 'u32', 2],
    ['tokenizer.ggml.unknown_token_id', 'u32', 0],
    ['tokenizer.ggml.padding_token_id', 'u32', 0],
    ['tokenizer.ggml.eot_token_id', 'u32', eotId],
    ['tokenizer.ggml.add_bos_token', 'bool', true],
    ['tokenizer.ggml.add_eos_token', 'bool', false],
    ['tokenizer.chat_template', 'str', CHATML_TEMPLATE],
  ];

  const ones: TensorPlan['fill'] = (d) => d.fill(1);
  /** Projections writing into the residual stream leave dimension 0 (the bias carrier) alone. */
  const residualWriter = (nIn: number, std: number): TensorPlan['fill'] => {
    const fill = noise(std);
    return (d, r) => {
      fill(d, r);
      d.fill(0, 0, nIn); // output row 0 (ggml: out[j] = Σ_i W[j·nIn + i]·x[i])
    };
  };
  const plans: TensorPlan[] = [
    {
      name: 'token_embd.weight',
      dims: [nEmbd, nVocab],
      fill: (d, r) => {
        noise(1)(d, r);
        for (let t = 0; t < nVocab; t++) d[t * nEmbd] = 1;
      },
    },
  ];
  for (let il = 0; il < nLayer; il++) {
    const b = `blk.${il}.`;
    plans.push(
      { name: `${b}attn_norm.weight`, dims: [nEmbd], fill: ones },
      { name: `${b}attn_q.weight`, dims: [nEmbd, nEmbd], fill: noise(1 / Math.sqrt(nEmbd)) },
      { name: `${b}attn_k.weight`, dims: [nEmbd, nEmbd], fill: noise(1 / Math.sqrt(nEmbd)) },
      { name: `${b}attn_v.weight`, dims: [nEmbd, nEmbd], fill: noise(1 / Math.sqrt(nEmbd)) },
      { name: `${b}attn_output.weight`, dims: [nEmbd, nEmbd], fill: residualWriter(nEmbd, 0.4 / Math.sqrt(nEmbd)) },
      { name: `${b}ffn_norm.weight`, dims: [nEmbd], fill: ones },
      { name: `${b}ffn_gate.weight`, dims: [nEmbd, nFf], fill: noise(1 / Math.sqrt(nEmbd)) },
      { name: `${b}ffn_down.weight`, dims: [nFf, nEmbd], fill: residualWriter(nFf, 0.8 / Math.sqrt(nFf)) },
      { name: `${b}ffn_up.weight`, dims: [nEmbd, nFf], fill: noise(1 / Math.sqrt(nEmbd)) },
    );
  }
  plans.push(
    { name: 'output_norm.weight', dims: [nEmbd], fill: ones },
    {
      name: 'output.weight',
      dims: [nEmbd, nVocab],
      fill: (d, r) => {
        noise(1.1 / Math.sqrt(nEmbd))(d, r);
        for (let t = 0; t < nVocab; t++) d[t * nEmbd] = pieces[t]!.bias;
      },
    },
  );

  // Header, metadata, tensor infos
  const head = new Out();
  head.u32(GGUF_MAGIC);
  head.u32(3);
  head.u64(plans.length);
  head.u64(kvs.length);
  for (const kv of kvs) writeKv(head, kv);
  let offset = 0;
  let parameters = 0;
  for (const t of plans) {
    const elements = t.dims.reduce((p, x) => p * x, 1);
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(0); // F32
    head.u64(offset);
    offset = alignUp(offset + elements * 4, DEFAULT_ALIGNMENT);
    parameters += elements;
  }
  const headerLen = head.length;
  head.bytes(Buffer.alloc(alignUp(headerLen, DEFAULT_ALIGNMENT) - headerLen));

  const fh = await open(path, 'w');
  try {
    await fh.write(head.toBuffer());
    let written = head.length;
    const rand = prng(seed);
    for (const t of plans) {
      const elements = t.dims.reduce((p, x) => p * x, 1);
      const data = new Float32Array(elements);
      t.fill(data, rand);
      const padded = alignUp(elements * 4, DEFAULT_ALIGNMENT);
      let buf: Buffer;
      if (LITTLE_ENDIAN_HOST) {
        buf = Buffer.alloc(padded);
        Buffer.from(data.buffer, data.byteOffset, elements * 4).copy(buf);
      } else {
        buf = Buffer.alloc(padded);
        for (let i = 0; i < elements; i++) buf.writeFloatLE(data[i]!, i * 4);
      }
      await fh.write(buf);
      written += buf.length;
    }
    return { bytes: written, vocabSize: nVocab, parameters };
  } finally {
    await fh.close();
  }
}
