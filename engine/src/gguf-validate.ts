/**
 * Runs before every load: llama.cpp aborts the whole process (GGML_ASSERT, division by zero, uncaught
 * std::out_of_range) on some malformed files, so nothing reaches it without passing `validateGguf`.
 */
import { stat } from 'node:fs/promises';
import { GgufError, readGgufHeader, splitParts, type GgufHeader, type GgufScalar, type GgufValue } from './gguf';

export interface GgufSummary {
  architecture: string;
  name: string | null;
  contextLength: number;
  /** Transformer blocks (layers): what a GPU share offloads a part of. */
  blockCount: number;
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

/** Architectures whose hyper-parameters and tensors this module checks. Others are refused. */
export const SUPPORTED_ARCHITECTURES: readonly string[] = ['llama'];

interface SizedTensor {
  name: string;
  dims: number[];
  offset: number;
  /** Bytes of data. */
  size: number;
  elements: number;
}

/** Tensor infos llama.cpp can use, each with its data inside its own file and overlapping no other. */
function checkTensors(h: GgufHeader): SizedTensor[] {
  const { path, alignment, dataOffset, fileSize } = h;
  const tensors: SizedTensor[] = [];
  for (const { name, dims, type, offset } of h.tensors) {
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
    tensors.push({ name, dims, offset, size, elements });
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
  return tensors;
}

const GGUF_UINT16 = 2;
const GGUF_INT32 = 5;

/**
 * A `split.*` key of the type llama.cpp reads it as: it reads `split.no` of the later parts with
 * gguf_get_val_u16, which asserts (aborts the process) on any other type.
 */
function splitKey(h: GgufHeader, key: string, type: typeof GGUF_UINT16 | typeof GGUF_INT32): number | null {
  const v = h.metadata.get(key);
  if (v === undefined) return null;
  if (h.valueTypes.get(key) !== type || typeof v !== 'number') {
    throw new GgufError('split_mismatch', `${key} must be ${type === GGUF_UINT16 ? 'a uint16' : 'an int32'}`, h.path);
  }
  return v;
}

/**
 * The tensors of every part of a model: just the file's own unless it is the first part of a split model
 * (`split.count` > 1), whose other parts must all be there, be numbered in order, agree on the count, be
 * sound GGUF files themselves, and together hold `split.tensors.count` tensors, each name once.
 */
async function checkParts(first: GgufHeader): Promise<SizedTensor[]> {
  const { path } = first;
  const tensors = checkTensors(first);
  const count = splitKey(first, 'split.count', GGUF_UINT16) ?? 1;
  if (count <= 1) return tensors;
  const no = splitKey(first, 'split.no', GGUF_UINT16);
  if (no !== 0) {
    throw new GgufError('split_mismatch', `this is part ${no === null ? '?' : no + 1} of a split model: load its first part`, path);
  }
  const expected = splitKey(first, 'split.tensors.count', GGUF_INT32);
  if (expected === null) throw new GgufError('split_mismatch', 'split model without split.tensors.count', path);
  const paths = splitParts(path);
  if (paths.length !== count) {
    throw new GgufError('split_mismatch', `split model of ${count} parts must be named <name>-00001-of-${String(count).padStart(5, '0')}.gguf`, path);
  }
  for (let i = 1; i < count; i++) {
    const partPath = paths[i]!;
    const s = await stat(partPath).catch(() => null);
    if (!s?.isFile()) throw new GgufError('missing_part', `part ${i + 1} of ${count} of the split model is missing`, partPath);
    const part = await readGgufHeader(partPath);
    const partNo = splitKey(part, 'split.no', GGUF_UINT16);
    if (partNo !== i) {
      throw new GgufError('split_mismatch', `split.no is ${partNo ?? 'missing'} in part ${i + 1} (expected ${i})`, partPath);
    }
    const partCount = splitKey(part, 'split.count', GGUF_UINT16);
    if (partCount !== count) {
      throw new GgufError('split_mismatch', `split.count is ${partCount ?? 'missing'} in part ${i + 1}, ${count} in the first part`, partPath);
    }
    tensors.push(...checkTensors(part));
  }
  if (tensors.length !== expected) {
    throw new GgufError('split_mismatch', `the ${count} parts hold ${tensors.length} tensors, split.tensors.count says ${expected}`, path);
  }
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new GgufError('bad_tensor', `tensor ${t.name} is in more than one part`, path);
    names.add(t.name);
  }
  return tensors;
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
    if (Array.isArray(v)) {
      if (v.length !== layers) {
        throw new GgufError('invalid_value', `${key} has ${v.length} entries for ${layers} layers`, this.path);
      }
      return v.map((x) => {
        if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) {
          throw new GgufError('invalid_value', `${key} entries must be non-negative integers`, this.path);
        }
        return x;
      });
    }
    return new Array<number>(layers).fill(this.int(key, true));
  }

  /** An array whose items all pass `isItem` (`items` names them in the error). */
  array<T extends GgufScalar>(key: string, required: boolean, items: string, isItem: (x: GgufScalar) => x is T): T[] | null {
    const v = this.md.get(key);
    if (v === undefined) {
      if (required) throw new GgufError('missing_key', `missing required key ${key}`, this.path);
      return null;
    }
    if (!Array.isArray(v) || !v.every(isItem)) {
      throw new GgufError('invalid_value', `${key} must be an array of ${items}`, this.path);
    }
    return v;
  }
}

const isString = (x: GgufScalar): x is string => typeof x === 'string';
const isNumber = (x: GgufScalar): x is number => typeof x === 'number';
const isInteger = (x: GgufScalar): x is number => Number.isInteger(x);

function describe(v: GgufValue): string {
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return `${typeof v} ${String(v)}`;
}

const KNOWN_TOKENIZERS = ['llama', 'gpt2', 'bert', 't5', 'rwkv', 'plamo2', 'no_vocab', 'none'];

/**
 * Checks everything llama.cpp needs from a model of a supported architecture before it is handed the
 * file (for a split model, the path of its first part): format and bounds of every part (readGgufHeader,
 * checkParts), required hyper-parameters and their consistency (the ones
 * whose absence makes llama.cpp divide by zero or GGML_ASSERT), the vocabulary (including byte fallback
 * for SentencePiece, whose absence makes tokenization throw inside native code), and the presence and
 * shape of every tensor the llama graph uses.
 */
export async function validateGguf(path: string): Promise<GgufSummary> {
  // The metadata (and so the summary) is the first part's; later parts hold only split.* keys.
  const h = await readGgufHeader(path);
  const tensors = await checkParts(h);
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
  const tokens = k.array('tokenizer.ggml.tokens', true, 'strings', isString)!;
  const vocabSize = tokens.length;
  if (vocabSize === 0) throw new GgufError('invalid_value', 'tokenizer.ggml.tokens is empty', path);
  const scores = k.array('tokenizer.ggml.scores', false, 'numbers', isNumber);
  if (scores && scores.length !== vocabSize) {
    throw new GgufError('invalid_value', `tokenizer.ggml.scores has ${scores.length} entries for ${vocabSize} tokens`, path);
  }
  const types = k.array('tokenizer.ggml.token_type', false, 'integers', isInteger);
  if (types && types.length !== vocabSize) {
    throw new GgufError('invalid_value', `tokenizer.ggml.token_type has ${types.length} entries for ${vocabSize} tokens`, path);
  }
  if (tokenizer === 'gpt2') k.array('tokenizer.ggml.merges', true, 'strings', isString);
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
  const byName = new Map(tensors.map((t) => [t.name, t]));
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

  const parameters = tensors.reduce((s, t) => s + t.elements, 0);
  return { architecture, name, contextLength, blockCount: nLayer, parameters, vocabSize, chatTemplate };
}
