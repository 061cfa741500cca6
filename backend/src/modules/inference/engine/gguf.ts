/**
 * Reads a GGUF file's header (metadata and tensor infos, not the weights) with node-llama-cpp's own
 * `readGgufFileInfo`, in the flat shape the validator (gguf-validate.ts) checks.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
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
  tensors: GgufTensorInfo[];
}

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
const DEFAULT_ALIGNMENT = 32;
const GGML_MAX_DIMS = 4;
const READ_CHUNK = 1 << 20;
const MAX_STRING_BYTES = 1 << 28; // a chat template or a token is never near this; a corrupt length is
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

enum GgufValueType {
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
  const { fileSize, version, headerEnd } = await walkHeader(path);
  const nlc = await loadNodeLlamaCpp();
  let info: Nlc.GgufFileInfo;
  try {
    info = await nlc.readGgufFileInfo(path, {
      sourceType: 'filesystem', // never a URL or a model URI: nothing is downloaded
      spliceSplitFiles: false, // the validator refuses split files
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
  return { path, version, fileSize, alignment, dataOffset, metadata, tensors };
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
async function walkHeader(path: string): Promise<{ fileSize: number; version: number; headerEnd: number }> {
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
    const keys = new Set<string>();
    for (let i = 0; i < kvCount; i++) {
      const key = await c.string(`metadata key #${i}`);
      const type = await c.u32(`type of ${key}`);
      if (keys.has(key)) throw new GgufError('malformed', `duplicate metadata key ${key}`, path);
      keys.add(key);
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
    return { fileSize, version, headerEnd: c.pos };
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
