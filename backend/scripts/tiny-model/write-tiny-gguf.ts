/**
 * Writes our own tiny chat model: nothing can be downloaded, so the model the platform serves out of the
 * box (and the inference tests run on) is generated from a seed. Dev tooling: `npm run model:tiny`
 * (scripts/make-tiny-model.ts) and the test set-up call it; the backend itself only reads GGUF files.
 *
 * Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (little-endian, dims ne0 first).
 */
import { open } from 'node:fs/promises';
import { endianness } from 'node:os';
import { CHATML_TEMPLATE } from '@glob/engine/chatml';
import { GgufError, splitParts } from '@glob/engine/gguf';
import { readRealVocabulary, type TinyFamily } from './real-vocabulary';
import { buildVocabulary } from './vocabulary';

const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
const ALIGNMENT = 32;
/** llama.cpp's LLAMA_POOLING_TYPE_MEAN. */
const POOLING_MEAN = 1;
const LITTLE_ENDIAN_HOST = endianness() === 'LE';
/** GGUF value type ids of the values written here. */
const T = { UINT16: 2, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
/** GGML tensor type ids. */
const GGML_F32 = 0;
const GGML_F16 = 1;

/** IEEE half precision, rounded to nearest even (Node 20 has no Float16Array). */
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
function toHalf(v: number): number {
  F32[0] = v;
  const x = U32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
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
  /**
   * Writes the model as this many files the way llama.cpp's gguf-split does; `path` then names the first
   * part (`<name>-00001-of-0000N.gguf`). 1 (the default) writes one plain file.
   */
  splits?: number;
  /**
   * Writes an embedding model: `llama.pooling_type` mean (llama.cpp then averages the last layer's outputs over the
   * input's tokens into one vector of `nEmbd`) and its own name. Without it a llama model's embedding is its last
   * token's.
   */
  embedding?: boolean;
  /**
   * Carries a real model family's tokenizer and chat template (real-vocabulary.ts) instead of the project's own
   * SentencePiece vocabulary; its large vocabulary's embedding and output matrices are then written in F16.
   */
  family?: TinyFamily;
  /** Key/value heads (grouped-query attention, as the real families use); nHead by default. */
  nHeadKv?: number;
}

/** GGUF serializer for the handful of value types the writer needs. */
class Out {
  private chunks: Buffer[] = [];
  length = 0;
  private push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u16(v: number): void {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    this.push(b);
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
  | [string, 'u16', number]
  | [string, 'i32', number]
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
    case 'u16':
      o.u32(T.UINT16);
      o.u16(value);
      break;
    case 'i32':
      o.u32(T.INT32);
      o.i32(value);
      break;
    case 'u32':
      o.u32(T.UINT32);
      o.u32(value);
      break;
    case 'f32':
      o.u32(T.FLOAT32);
      o.f32(value);
      break;
    case 'bool':
      o.u32(T.BOOL);
      o.bytes(Buffer.from([value ? 1 : 0]));
      break;
    case 'str':
      o.u32(T.STRING);
      o.str(value);
      break;
    case 'str[]':
      o.u32(T.ARRAY);
      o.u32(T.STRING);
      o.u64(value.length);
      for (const s of value) o.str(s);
      break;
    case 'f32[]':
      o.u32(T.ARRAY);
      o.u32(T.FLOAT32);
      o.u64(value.length);
      for (const v of value) o.f32(v);
      break;
    case 'i32[]':
      o.u32(T.ARRAY);
      o.u32(T.INT32);
      o.u64(value.length);
      for (const v of value) o.i32(v);
      break;
  }
}

interface TensorPlan {
  name: string;
  dims: number[];
  f16?: boolean;
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
 * SentencePiece vocabulary; same options ⇒ identical bytes. `bytes` counts all the files written (`splitParts(path)`).
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
  const splits = opts.splits ?? 1;
  if (!Number.isInteger(splits) || splits < 1 || splits > 0xffff) {
    throw new GgufError('invalid_value', `splits must be an integer from 1 to 65535, got ${splits}`);
  }
  if (nEmbd % nHead !== 0 || (nEmbd / nHead) % 2 !== 0) {
    throw new GgufError('invalid_value', `nEmbd (${nEmbd}) must be a multiple of 2·nHead (${nHead})`);
  }
  const headDim = nEmbd / nHead;
  const nHeadKv = opts.nHeadKv ?? nHead;
  if (!Number.isInteger(nHeadKv) || nHeadKv < 1 || nHead % nHeadKv !== 0) {
    throw new GgufError('invalid_value', `nHeadKv (${nHeadKv}) must divide nHead (${nHead})`);
  }
  const nEmbdKv = nHeadKv * headDim;
  const { tokenizerKvs, bias, nVocab, name } = opts.family ? realTokenizer(opts.family) : ownTokenizer(extraPieces);
  const big = opts.family !== undefined;

  const kvs: KV[] = [
    ['general.architecture', 'str', 'llama'],
    ['general.name', 'str', opts.embedding ? 'Glob Tiny Embed' : name],
    ['general.description', 'str', `Random-weight test model generated by Glob Network (seed ${seed})`],
    ['general.file_type', 'u32', big ? 1 : 0], // MOSTLY_F16 (the vocabulary's matrices) or ALL_F32
    ['general.alignment', 'u32', ALIGNMENT],
    ['llama.context_length', 'u32', contextLength],
    ['llama.embedding_length', 'u32', nEmbd],
    ['llama.block_count', 'u32', nLayer],
    ['llama.feed_forward_length', 'u32', nFf],
    ['llama.attention.head_count', 'u32', nHead],
    ['llama.attention.head_count_kv', 'u32', nHeadKv],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['llama.rope.dimension_count', 'u32', headDim],
    ['llama.rope.freq_base', 'f32', 10000],
    ['llama.vocab_size', 'u32', nVocab],
    ...(opts.embedding ? [['llama.pooling_type', 'u32', POOLING_MEAN] as KV] : []),
    ...tokenizerKvs,
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
      f16: big,
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
      { name: `${b}attn_k.weight`, dims: [nEmbd, nEmbdKv], fill: noise(1 / Math.sqrt(nEmbd)) },
      { name: `${b}attn_v.weight`, dims: [nEmbd, nEmbdKv], fill: noise(1 / Math.sqrt(nEmbd)) },
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
      f16: big,
      fill: (d, r) => {
        noise(1.1 / Math.sqrt(nEmbd))(d, r);
        for (let t = 0; t < nVocab; t++) d[t * nEmbd] = bias[t]!;
      },
    },
  );

  // gguf-split's layout: the first part carries every key, each part its own tensors (offsets relative
  // to its own data section), and every part the split.* keys llama.cpp checks when it loads the others.
  const parts = splits === 1 ? [path] : splitParts(path);
  if (parts.length !== splits) {
    throw new GgufError('invalid_value', `a model in ${splits} parts is written to <name>-00001-of-${String(splits).padStart(5, '0')}.gguf`, path);
  }
  if (splits > plans.length) throw new GgufError('invalid_value', `${plans.length} tensors cannot fill ${splits} parts`, path);
  const rand = prng(seed); // one sequence over all parts: split or not, the weights are the same
  let bytes = 0;
  let parameters = 0;
  for (let i = 0; i < splits; i++) {
    const own = plans.slice(Math.floor((i * plans.length) / splits), Math.floor(((i + 1) * plans.length) / splits));
    const splitKvs: KV[] =
      splits === 1
        ? []
        : [
            ['split.no', 'u16', i],
            ['split.count', 'u16', splits],
            ['split.tensors.count', 'i32', plans.length],
          ];
    const written = await writeFile(parts[i]!, [...(i === 0 ? kvs : []), ...splitKvs], own, rand);
    bytes += written.bytes;
    parameters += written.parameters;
  }
  return { bytes, vocabSize: nVocab, parameters };
}

/** One GGUF file: header, metadata, tensor infos, then each tensor's data filled from `rand` in order. */
async function writeFile(path: string, kvs: KV[], plans: TensorPlan[], rand: () => number): Promise<{ bytes: number; parameters: number }> {
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
    head.u32(t.f16 ? GGML_F16 : GGML_F32);
    head.u64(offset);
    offset = alignUp(offset + elements * (t.f16 ? 2 : 4), ALIGNMENT);
    parameters += elements;
  }
  const headerLen = head.length;
  head.bytes(Buffer.alloc(alignUp(headerLen, ALIGNMENT) - headerLen));

  const fh = await open(path, 'w');
  try {
    await fh.write(head.toBuffer());
    let written = head.length;
    for (const t of plans) {
      const elements = t.dims.reduce((p, x) => p * x, 1);
      const data = new Float32Array(elements);
      t.fill(data, rand);
      let buf: Buffer;
      if (t.f16) {
        buf = Buffer.alloc(alignUp(elements * 2, ALIGNMENT));
        const halves = new Uint16Array(buf.buffer, buf.byteOffset, elements);
        for (let i = 0; i < elements; i++) halves[i] = toHalf(data[i]!);
        if (!LITTLE_ENDIAN_HOST) buf.swap16();
      } else if (LITTLE_ENDIAN_HOST) {
        const padded = alignUp(elements * 4, ALIGNMENT);
        buf = Buffer.alloc(padded);
        Buffer.from(data.buffer, data.byteOffset, elements * 4).copy(buf);
      } else {
        buf = Buffer.alloc(alignUp(elements * 4, ALIGNMENT));
        for (let i = 0; i < elements; i++) buf.writeFloatLE(data[i]!, i * 4);
      }
      await fh.write(buf);
      written += buf.length;
    }
    return { bytes: written, parameters };
  } finally {
    await fh.close();
  }
}

interface TokenizerPart {
  tokenizerKvs: KV[];
  bias: number[];
  nVocab: number;
  name: string;
}

/** The project's own SentencePiece vocabulary with byte fallback and its ChatML template. */
function ownTokenizer(extraPieces: number): TokenizerPart {
  const { pieces, eotId } = buildVocabulary(extraPieces);
  return {
    name: 'Glob Tiny Chat',
    nVocab: pieces.length,
    bias: pieces.map((p) => p.bias),
    tokenizerKvs: [
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
    ],
  };
}

/** A real family's byte-level BPE tokenizer, keyed as convert_hf_to_gguf.py writes it. */
function realTokenizer(family: TinyFamily): TokenizerPart {
  const v = readRealVocabulary(family);
  return {
    name: family === 'llama3' ? 'Glob Tiny Llama 3' : 'Glob Tiny Qwen 2.5',
    nVocab: v.tokens.length,
    bias: v.bias,
    tokenizerKvs: [
      ['tokenizer.ggml.model', 'str', 'gpt2'],
      ['tokenizer.ggml.pre', 'str', v.pre],
      ['tokenizer.ggml.tokens', 'str[]', v.tokens],
      ['tokenizer.ggml.token_type', 'i32[]', v.types],
      ['tokenizer.ggml.merges', 'str[]', v.merges],
      ['tokenizer.ggml.bos_token_id', 'u32', v.bosId],
      ['tokenizer.ggml.eos_token_id', 'u32', v.eotId],
      ['tokenizer.ggml.eot_token_id', 'u32', v.eotId],
      ...(v.padId === null ? [] : [['tokenizer.ggml.padding_token_id', 'u32', v.padId] as KV]),
      ['tokenizer.ggml.add_bos_token', 'bool', v.addBos],
      ['tokenizer.ggml.add_eos_token', 'bool', false],
      ['tokenizer.chat_template', 'str', v.chatTemplate],
    ],
  };
}
