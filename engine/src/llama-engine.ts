/**
 * The local inference engine: llama.cpp through node-llama-cpp, loaded only at run time
 * (LlamaEngine.create, see node-llama-cpp.ts), so everything else — and every jest test that merely
 * imports this module — never loads the native addon. jest tests that need the engine run it in a child
 * process (test/support/engine-probe.ts).
 *
 * Threads decide everything on CPU. Measured on this machine (2 cores, no GPU, shared with other jobs:
 * load average 4-5 during the runs), default tiny model (glob-tiny-chat.gguf: 2.22 M parameters, 192-dim,
 * 4 layers, F32, vocabulary 1166), benchmark(256), one generation at a time:
 *   threads 1: 300-500 tokens/s (raw sequence.evaluate: 480-850)    threads 2: 5-100 tokens/s
 * ggml's worker threads spin-wait for each other; with both cores already busy, two threads stall on
 * every token (node-llama-cpp's default, max(4, cores) threads, is worse still). A 1.15 M-parameter
 * variant (128-dim) measured the same: at this size the per-token cost is node-llama-cpp/ggml overhead,
 * not arithmetic. Default to 1 thread on small machines; score other values with benchmark().
 */
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { chatHistory, type ChatTurn } from './chat-history';
import { chatWrapperFor, textNormalizerFor } from './chat-wrapper';
import { boundNumberRules } from './json-grammar';
import { JsonSchemaGbnf } from './json-schema-gbnf';
import { validateGguf } from './gguf-validate';
import { loadNodeLlamaCpp } from './node-llama-cpp';
import { chatPromptTokens, rawPromptTokens, withBos } from './prompt-tokens';
import { alignLogprobs, clampLogprob, piecesWithin, tokenPieces, type TokenLogprob } from './logprobs';
import { COMMIT_TOP, type Step } from './commitment';
import { REPEAT_WINDOW, type Recomputation } from './verification';
import { llamaCppOptions, type Sampling } from './sampling';
import { framedGrammar, type JsonFrame } from './tool-format';

export type { ChatTurn } from './chat-history';
export type EngineStopReason = 'stop' | 'length' | 'abort';
export interface GenerateRequest {
  /** Chat turns, formatted by the model's chat template (the prompt trimmed of its oldest turns to fit). */
  messages?: ChatTurn[];
  /**
   * Instead of `messages`: a raw text the model continues as it is, with no chat template (OpenAI's legacy
   * completions); a prompt too long for the context loses its start.
   */
  prompt?: string;
  /**
   * How the reply is sampled, as the job carries it: the limit, temperature, top_p, seed; `json_schema` generates the
   * JSON alone under the grammar the schema makes (node-llama-cpp's supported subset of JSON Schema); `logprobs` scores
   * the reply's tokens (each with its log probability at temperature 1, as the model scores the finished text after
   * the prompt, and this many of the likeliest tokens at its place). Stop sequences are generation.ts's to apply.
   */
  sampling: Sampling;
  /**
   * Commit to the reply: each generated token's id, log probability and likeliest candidates (commitment.ts), the
   * end-of-generation token last when the model ended the reply.
   */
  commit?: boolean;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}
/** What a prompt needs to be fitted into the context (scoring and recomputing another generator's reply): its limit. */
export type PromptRequest = Pick<GenerateRequest, 'messages' | 'prompt'> & { sampling: Pick<Sampling, 'max_tokens'> };
export interface GenerateResult {
  text: string;
  stopReason: EngineStopReason;
  promptTokens: number;
  completionTokens: number;
  firstTokenMs: number | null;
  durationMs: number;
  /** The text's tokens, when the request asked for `logprobs`. */
  logprobs?: TokenLogprob[];
  /** The generation's steps, when the request asked to `commit`. */
  commitment?: Step[];
}

export interface EngineOptions {
  threads: number;
  gpu?: boolean;
}
export interface LoadOptions {
  /** Tokens per sequence. Default: the model's training context, capped at 4096 (and to what fits in memory). */
  contextSize?: number;
  /**
   * Generations that run at once on this model, each on its own sequence of one llama.cpp context, so they are
   * evaluated together in one batch per step; more wait in a queue. A number, or a memory budget: as many sequences
   * as their KV caches (and the context's compute buffers) fit in `memoryBytes`, at least 1 and at most `max`
   * (default 16). Default 2.
   */
  sequences?: number | SequenceBudget;
  /**
   * With the GPU on: the share (0-1) of the model's layers offloaded to it, e.g. a provider's GPU allocation.
   * Default: as many as fit ('auto').
   */
  gpuShare?: number;
}

export interface SequenceBudget {
  memoryBytes: number;
  max?: number;
}

/** The most sequences a memory budget sizes one model's context to: beyond it a batch step waits on its slowest member. */
export const MAX_SEQUENCES = 16;

/** What a loaded model runs with: its sequences (replies at once), tokens per sequence, and the KV cache one sequence costs. */
export interface ModelCapacity {
  sequences: number;
  contextSize: number;
  /** One sequence's KV cache (kvCacheBytes): what each sequence beyond the first adds to the context's memory. */
  kvBytesPerSequence: number;
  /** What the context needs with one sequence (its compute buffers and one KV cache), by node-llama-cpp's estimate. */
  contextBytes: number;
}

/** The cells llama.cpp gives a sequence's KV cache: its context size, rounded up to llama.cpp's padding of 256. */
const KV_CELL_PADDING = 256;

/**
 * Bytes of one sequence's KV cache, from the model's metadata: for every layer and every cell of the context, a key and
 * a value vector per KV head (n_head_kv of them: fewer than the attention heads under grouped-query attention), in F16
 * (2 bytes, llama.cpp's and node-llama-cpp's default cache type). Exact for the architecture the engine loads (llama:
 * every layer attends to the whole context).
 */
export function kvCacheBytes(metadata: Record<string, unknown>, contextSize: number): number {
  const arch = (metadata.general as { architecture?: string } | undefined)?.architecture ?? 'llama';
  const a = (metadata[arch] ?? {}) as {
    block_count?: number;
    embedding_length?: number;
    attention?: { head_count?: number; head_count_kv?: number; key_length?: number; value_length?: number };
  };
  const nHead = Number(a.attention?.head_count ?? 0);
  const nHeadKv = Number(a.attention?.head_count_kv ?? nHead);
  const headDim = nHead > 0 ? Number(a.embedding_length ?? 0) / nHead : 0;
  const k = Number(a.attention?.key_length ?? headDim);
  const v = Number(a.attention?.value_length ?? headDim);
  const cells = Math.ceil(contextSize / KV_CELL_PADDING) * KV_CELL_PADDING;
  return Number(a.block_count ?? 0) * cells * nHeadKv * (k + v) * 2;
}

/**
 * How many sequences fit a memory budget: what the context needs with one sequence (`base`, its compute buffers
 * and one KV cache) and what each further one adds (its KV cache); at least 1, at most `max`.
 */
export function sequencesFor(budget: SequenceBudget, base: number, perSequence: number): number {
  const max = budget.max ?? MAX_SEQUENCES;
  const extra = perSequence > 0 ? Math.floor((budget.memoryBytes - base) / perSequence) : max;
  return Math.max(1, Math.min(max, 1 + extra));
}

/** A generation asked of a model that is not loaded. */
export class ModelNotLoadedError extends Error {
  override readonly name = 'ModelNotLoadedError';
  constructor(readonly modelId: string) {
    super(`model ${modelId} is not loaded`);
  }
}

interface Slot {
  chat: Nlc.LlamaChat;
  /** Raw-text generation on the same sequence, made on first use (a slot runs one generation at a time). */
  completion?: Nlc.LlamaCompletion;
  busy: boolean;
}

interface LoadedModel {
  id: string;
  path: string;
  model: Nlc.LlamaModel;
  context: Nlc.LlamaContext;
  capacity: ModelCapacity;
  chatWrapper: Nlc.ChatWrapper;
  /** A text as the family's tokenizer normalizes it before splitting it (chat-wrapper.ts): every text tokenized here goes through it. */
  normalize: (text: string) => string;
  slots: Slot[];
  /** Tokens in the model's vocabulary (ids run from 0 to one less). */
  vocabSize: number;
  /** Generations waiting for a free sequence; called with null when the model is unloaded. */
  waiters: Array<(slot: Slot | null) => void>;
}

interface InternalRequest extends GenerateRequest {
  /** Only for benchmark(): the prompt is known to fit. */
  skipTrim?: boolean;
}

const BENCHMARK_PROMPT: ChatTurn[] = [{ role: 'user', content: 'Write a long story about the river and the city.' }];

/** JSON-schema grammars kept built: parsing a schema into a grammar costs more than a short reply's first token. */
const GRAMMAR_CACHE = 16;

export class LlamaEngine {
  private readonly models = new Map<string, LoadedModel>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Grammars by their schema's JSON text, least recently used first. */
  private readonly grammars = new Map<string, Promise<Nlc.LlamaGrammar>>();
  /** Writes a schema's grammar text off the event loop (json-schema-gbnf.ts). */
  private readonly gbnf = new JsonSchemaGbnf();
  /** Each loaded model's embedding context (its pooled output), made on its first embedding request. */
  private readonly embedders = new Map<string, Promise<Nlc.LlamaEmbeddingContext>>();
  private disposed = false;

  private constructor(
    private readonly nlc: typeof Nlc,
    private readonly llama: Nlc.Llama,
    private readonly opts: EngineOptions,
  ) {}

  static async create(opts: EngineOptions): Promise<LlamaEngine> {
    if (!Number.isInteger(opts.threads) || opts.threads < 1) {
      throw new RangeError(`threads must be a positive integer, got ${opts.threads}`);
    }
    const nlc = await loadNodeLlamaCpp();
    const llama = await nlc.getLlama({
      // Prebuilt binaries only: nothing may be compiled or downloaded at run time.
      build: 'never',
      gpu: opts.gpu ? 'auto' : false,
      maxThreads: opts.threads,
      logLevel: nlc.LlamaLogLevel.error,
      progressLogs: false,
    });
    return new LlamaEngine(nlc, llama, opts);
  }

  /** Validates the file (GgufError when llama.cpp must not see it), then loads it under `modelId`. */
  async load(modelId: string, path: string, opts: LoadOptions = {}): Promise<void> {
    this.assertAlive();
    const existing = this.models.get(modelId);
    if (existing) {
      if (existing.path === path) return;
      throw new Error(`model ${modelId} is already loaded from ${existing.path}`);
    }
    const pending = this.loading.get(modelId);
    if (pending) return pending;
    const p = this.doLoad(modelId, path, opts).finally(() => this.loading.delete(modelId));
    this.loading.set(modelId, p);
    return p;
  }

  private async doLoad(modelId: string, path: string, opts: LoadOptions): Promise<void> {
    // Must run before every load: some malformed files abort the whole process inside llama.cpp.
    const summary = await validateGguf(path);
    const asked = opts.sequences ?? 2;
    if (typeof asked === 'number' && (!Number.isInteger(asked) || asked < 1)) throw new RangeError('sequences must be a positive integer');
    const model = await this.llama.loadModel({
      modelPath: path,
      gpuLayers: !this.opts.gpu ? 0 : opts.gpuShare === undefined ? 'auto' : Math.round(summary.blockCount * Math.min(1, Math.max(0, opts.gpuShare))),
    });
    try {
      const contextSize = opts.contextSize ?? Math.min(summary.contextLength, 4096);
      // node-llama-cpp's own estimate of the context's memory (RAM and VRAM) with this many sequences.
      const needs = async (sequences: number) => {
        const r = await model.fileInsights.estimateContextResourceRequirementsV2({ contextSize, sequences, modelGpuLayers: model.gpuLayers });
        return r.cpuRam + r.gpuVram;
      };
      const one = await needs(1);
      const metadata = model.fileInfo.metadata as unknown as Record<string, unknown>;
      let sequences = typeof asked === 'number' ? asked : sequencesFor(asked, one, kvCacheBytes(metadata, contextSize));
      // The compute buffers grow with the sequences too (slightly, and by a whole batch where a sequence has fewer than
      // 512 cells: two sequences of 256 take a batch twice as large): one fewer while the estimate does not fit.
      while (typeof asked !== 'number' && sequences > 1 && (await needs(sequences)) > asked.memoryBytes) sequences--;
      const context = await model.createContext({
        sequences,
        contextSize: opts.contextSize ?? {
          min: Math.min(256, summary.contextLength),
          max: contextSize,
        },
        threads: this.opts.threads,
      });
      const chatWrapper = chatWrapperFor(this.nlc, model);
      const slots: Slot[] = [];
      for (let i = 0; i < sequences; i++) {
        slots.push({
          chat: new this.nlc.LlamaChat({
            contextSequence: context.getSequence(),
            chatWrapper,
            autoDisposeSequence: true,
          }),
          busy: false,
        });
      }
      const capacity = {
        sequences,
        contextSize: context.contextSize,
        kvBytesPerSequence: kvCacheBytes(metadata, context.contextSize),
        contextBytes: one,
      };
      this.models.set(modelId, {
        id: modelId,
        path,
        model,
        context,
        capacity,
        chatWrapper,
        normalize: textNormalizerFor(model),
        slots,
        vocabSize: summary.vocabSize,
        waiters: [],
      });
    } catch (err) {
      await model.dispose();
      throw err;
    }
  }

  /** Unloads a model. Waiting generations fail with ModelNotLoadedError; running ones fail too. */
  async unload(modelId: string): Promise<void> {
    const m = this.models.get(modelId);
    if (!m) return;
    this.models.delete(modelId);
    for (const waiter of m.waiters.splice(0)) waiter(null);
    const embedder = this.embedders.get(modelId);
    this.embedders.delete(modelId);
    await (await embedder?.catch(() => null))?.dispose();
    for (const s of m.slots) {
      s.completion?.dispose({ disposeSequence: false });
      s.chat.dispose();
    }
    await m.context.dispose();
    await m.model.dispose();
  }

  loadedModels(): string[] {
    return [...this.models.keys()];
  }

  isLoaded(modelId: string): boolean {
    return this.models.has(modelId);
  }

  contextSize(modelId: string): number {
    return this.get(modelId).context.contextSize;
  }

  /** The model's sequences (replies it runs at once), their context size and the KV cache each costs. */
  capacity(modelId: string): ModelCapacity {
    return this.get(modelId).capacity;
  }

  /** Tokens of the prompt as the model's chat template formats it (generation prompt included). */
  countTokens(modelId: string, messages: ChatTurn[]): number {
    return this.promptTokens(this.get(modelId), messages);
  }

  /** The token ids of the prompt as the model's chat template formats it (generation prompt included), untrimmed. */
  tokenizePrompt(modelId: string, messages: ChatTurn[]): number[] {
    return Array.from(this.chatPrompt(this.get(modelId), messages));
  }

  /** Tokens of a raw prompt: the text alone, as the model's tokenizer splits it (no chat template). */
  countTextTokens(modelId: string, text: string): number {
    return this.tokenize(modelId, text).length;
  }

  /** The token ids of a text (to compare two generations token by token). */
  tokenize(modelId: string, text: string): number[] {
    const m = this.get(modelId);
    return text ? Array.from(m.model.tokenize(m.normalize(text))) : [];
  }

  /**
   * One embedding per text, in order: the model's pooled output (an embedding model's file says how it pools; mean for
   * the project's tiny one), from a context of its own beside the model's generation sequences, one text at a time.
   */
  async embed(modelId: string, texts: string[]): Promise<Float32Array[]> {
    const m = this.get(modelId);
    let context = this.embedders.get(modelId);
    if (!context) {
      // One batch holds a whole text: a pooled embedding is made from a single batch.
      const size = Math.min(m.context.contextSize, 2048);
      context = m.model.createEmbeddingContext({ contextSize: size, batchSize: size, threads: this.opts.threads });
      context.catch(() => this.embedders.delete(modelId));
      this.embedders.set(modelId, context);
    }
    const c = await context;
    const out: Float32Array[] = [];
    for (const text of texts) out.push(Float32Array.from((await c.getEmbeddingFor(text)).vector));
    return out;
  }

  async generate(modelId: string, req: GenerateRequest): Promise<GenerateResult> {
    return this.run(this.get(modelId), req);
  }

  /**
   * Scores a reply someone else generated (a spot check of a node's logprobs): its tokens (the ids it committed to,
   * end-of-generation left out) as a generation with `logprobs: top` scored them after the same prompt, cut to `text`.
   */
  async score(modelId: string, req: PromptRequest, tokens: number[], text: string, top: number): Promise<TokenLogprob[]> {
    const m = this.get(modelId);
    if (tokens.some((t) => !Number.isInteger(t) || t < 0 || t >= m.vocabSize)) throw new RangeError('a token is not in the vocabulary');
    const prompt = this.promptOf(m, this.input(m, req));
    const slot = await this.acquire(m);
    if (!slot) throw new ModelNotLoadedError(modelId);
    try {
      return await this.scoreOn(m, slot, prompt, tokens as Nlc.Token[], text, top);
    } finally {
      this.release(m, slot);
    }
  }

  /**
   * A verifier's pass over a reply someone else generated: `tokens` (ids, the end-of-generation token included if the
   * generator ended with one) evaluated after the request's prompt in one teacher-forced pass, each position's `top`
   * likeliest tokens read.
   */
  async recompute(modelId: string, req: PromptRequest, tokens: number[], top: number): Promise<Recomputation> {
    const m = this.get(modelId);
    if (tokens.some((t) => !Number.isInteger(t) || t < 0 || t >= m.vocabSize)) throw new RangeError('a token is not in the vocabulary');
    const prompt = this.promptOf(m, this.input(m, req));
    const slot = await this.acquire(m);
    if (!slot) throw new ModelNotLoadedError(modelId);
    try {
      const ids = tokens as Nlc.Token[];
      const steps = await this.stepsOn(m, slot, prompt, ids, top, false);
      const eog = ids.map((t) => m.model.isEogToken(t));
      const text = m.model.detokenize(
        ids.filter((_, i) => !eog[i]),
        false,
      );
      // Each token's own text, the candidates' too: inside a JSON string, the grammar allows any token without a quote,
      // a backslash or a control character.
      const pieces: Record<number, string> = {};
      for (const s of steps) for (const id of [s.token, ...s.top.map(([t]) => t)]) pieces[id] ??= m.model.detokenize([id as Nlc.Token], false);
      return { steps, promptTail: prompt.slice(-REPEAT_WINDOW), text, eog, pieces };
    } finally {
      this.release(m, slot);
    }
  }

  /**
   * Generates about `tokens` tokens (default 128) and returns the decode speed (prompt evaluation and
   * queueing excluded). Repeats when the model ends its answer early.
   */
  async benchmark(modelId: string, tokens = 128): Promise<{ tokensPerSecond: number }> {
    const m = this.get(modelId);
    let generated = 0;
    let decodeMs = 0;
    for (let round = 0; round < 8 && generated < tokens; round++) {
      let first = 0;
      let count = 0;
      const r = await this.run(m, {
        messages: BENCHMARK_PROMPT,
        sampling: { max_tokens: Math.max(2, tokens - generated + 1), temperature: 0.8, top_p: 0.95, seed: 1234 + round },
        skipTrim: true,
        onToken: () => {
          count++;
          if (count === 1) first = performance.now();
        },
      });
      if (r.completionTokens >= 2 && first > 0) {
        generated += r.completionTokens - 1;
        decodeMs += performance.now() - first;
      }
    }
    return { tokensPerSecond: decodeMs > 0 ? Math.round((generated / decodeMs) * 1000 * 10) / 10 : 0 };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await Promise.allSettled(this.loading.values());
    for (const id of [...this.models.keys()]) await this.unload(id);
    this.disposed = true;
    await this.gbnf.close();
    await this.llama.dispose();
  }

  // -------------------------------------------------------------------------------------------------

  private assertAlive(): void {
    if (this.disposed) throw new Error('LlamaEngine is disposed');
  }

  private get(modelId: string): LoadedModel {
    this.assertAlive();
    const m = this.models.get(modelId);
    if (!m) throw new ModelNotLoadedError(modelId);
    return m;
  }

  /** The grammar of a JSON schema (in its frame), built once and shared by every generation that asks for the same. */
  private grammarFor(schema: object, frame: JsonFrame | undefined): Promise<Nlc.LlamaGrammar> {
    const key = JSON.stringify([schema, frame ?? null]);
    let grammar = this.grammars.get(key);
    if (grammar) this.grammars.delete(key);
    else {
      grammar = this.buildGrammar(schema, frame);
      // A schema the grammar builder refuses is not kept: the next request with it fails the same way, on its own.
      grammar.catch(() => this.grammars.delete(key));
    }
    this.grammars.set(key, grammar);
    for (const oldest of this.grammars.keys()) {
      if (this.grammars.size <= GRAMMAR_CACHE) break;
      this.grammars.delete(oldest);
    }
    return grammar;
  }

  /**
   * The grammar createGrammarForJsonSchema would make, its number rules bounded: the text written on the grammar
   * thread, then parsed here once (the JSON's end, four newlines, its stop trigger, trimmed from the text). In a frame
   * (a family's tool call), the end of generation follows the frame's end instead.
   */
  private async buildGrammar(schema: object, frame: JsonFrame | undefined): Promise<Nlc.LlamaGrammar> {
    const text = boundNumberRules(await this.gbnf.text(schema));
    if (frame) {
      const framed = framedGrammar(text, frame);
      if (framed === null) throw new Error('the JSON-schema grammar is not written as engine/src/tool-format.ts expects');
      return this.llama.createGrammar({ grammar: framed });
    }
    return this.llama.createGrammar({
      grammar: text,
      stopGenerationTriggers: [this.nlc.LlamaText(['\n'.repeat(4)])],
      trimWhitespaceSuffix: true,
    });
  }

  private promptTokens(m: LoadedModel, messages: ChatTurn[]): number {
    return this.chatPrompt(m, messages).length;
  }

  /** The prompt a generation evaluates: chat turns fitted into what the completion limit leaves, or a raw prompt's end. */
  private input(m: LoadedModel, req: PromptRequest & Pick<InternalRequest, 'skipTrim'>): { messages: ChatTurn[]; rawTokens: Nlc.Token[] | null } {
    const contextSize = m.context.contextSize;
    const room = contextSize - Math.min(req.sampling.max_tokens, Math.floor(contextSize / 2));
    if (req.prompt !== undefined) {
      // The end of a raw prompt is what the model continues: a prompt too long loses its start (one token is the BOS).
      const tokens = rawPromptTokens(m.model, req.prompt);
      return { messages: [], rawTokens: tokens.length > room - 1 ? tokens.slice(tokens.length - Math.max(1, room - 1)) : tokens };
    }
    if (!req.messages) throw new TypeError('a generation needs messages or a prompt');
    return { messages: req.skipTrim ? req.messages : this.fit(m, req.messages, room), rawTokens: null };
  }

  /** The tokens `input` evaluates, as node-llama-cpp does (a raw prompt after the model's BOS when it has one to prepend). */
  private promptOf(m: LoadedModel, input: { messages: ChatTurn[]; rawTokens: Nlc.Token[] | null }): Nlc.Token[] {
    return input.rawTokens ? withBos(m.model, input.rawTokens) : this.chatPrompt(m, input.messages);
  }

  private chatPrompt(m: LoadedModel, messages: ChatTurn[]): Nlc.Token[] {
    return chatPromptTokens(m.model, m.chatWrapper, messages);
  }

  /**
   * Keeps the part of the slot's cached context that is `prompt`'s start and erases the rest; answers how many tokens
   * were kept. The last prompt token is evaluated again in any case: its output is the first token's distribution.
   */
  private async keepPrompt(slot: Slot, prompt: Nlc.Token[]): Promise<number> {
    const seq = slot.chat.sequence;
    const cached = seq.contextTokens;
    let keep = 0;
    while (keep < prompt.length - 1 && keep < cached.length && cached[keep] === prompt[keep]) keep++;
    if (keep < seq.nextTokenIndex) await seq.eraseContextTokenRanges([{ start: keep, end: seq.nextTokenIndex }]);
    return keep;
  }

  /**
   * The steps of `tokens` after `prompt`: each token's log probability at temperature 1 and the `top` likeliest tokens
   * at its place, from one teacher-forced pass on the slot's sequence (its cached prompt kept). With `end`, one step
   * more: the likeliest end-of-generation token after the last (a generation the model ended).
   */
  private async stepsOn(m: LoadedModel, slot: Slot, prompt: Nlc.Token[], tokens: Nlc.Token[], top: number, end: boolean): Promise<Step[]> {
    if (prompt.length === 0) return [];
    const seq = slot.chat.sequence;
    const keep = await this.keepPrompt(slot, prompt);
    const from = prompt.length - 1 - keep;
    const { eos, eot } = m.model.tokens;
    const ends = [eos, eot].filter((t): t is Nlc.Token => t !== null);
    // Only the logits of the token that follows and of the likeliest ones, with the softmax's normalizer: a whole
    // vocabulary's distribution per position (128k entries on a real model) is never copied out of llama.cpp.
    const raw = { temperature: 1, topK: 0, topP: 1, minP: 0 };
    const evaluated = end ? [...prompt.slice(keep), ...tokens] : [...prompt.slice(keep), ...tokens.slice(0, -1)];
    const input: Nlc.ControlledEvaluateInputItem[] = evaluated.map((t, i) =>
      i >= from
        ? [
            t,
            {
              generateNext: {
                logits: { filter: { tokens: i - from < tokens.length ? [tokens[i - from]!] : ends, includeTop: top, includeMax: true } },
                totalLogitWeight: true,
                options: raw,
              },
            },
          ]
        : t,
    );
    const out = tokens.length > 0 || end ? await seq.controlledEvaluate(input) : [];
    const steps: Step[] = [];
    for (let j = 0; j < tokens.length + (end ? 1 : 0); j++) {
      const next = out[from + j]?.next;
      const logits = [...(next?.logits ?? new Map<Nlc.Token, number>())].sort((x, y) => y[1] - x[1]);
      // log softmax: totalLogitWeight is the sum of exp(logit - max logit) over the vocabulary.
      const norm = (logits[0]?.[1] ?? 0) + Math.log(next?.totalLogitWeight ?? 1);
      const logprobOf = (logit: number | undefined) => clampLogprob(logit === undefined ? null : logit - norm);
      // After the last token: the end-of-generation token the model likes best (it may have several).
      const token = j < tokens.length ? tokens[j]! : (logits.find(([id]) => m.model.isEogToken(id))?.[0] ?? ends[0] ?? (0 as Nlc.Token));
      steps.push({ token, logprob: logprobOf(next?.logits?.get(token)), top: logits.slice(0, top).map(([id, logit]) => [id, logprobOf(logit)]) });
    }
    return steps;
  }

  /**
   * The generated `tokens` with their log probabilities at temperature 1 after `prompt`, and the `top` likeliest tokens
   * at each place, those past `text`'s end left out: evaluated again on the slot's sequence (its cached prompt kept),
   * one batch. The tokens as sampled, never the text split again: a SentencePiece tokenizer would split a reply that
   * starts "!" into one token more than was generated.
   */
  private async scoreOn(m: LoadedModel, slot: Slot, prompt: Nlc.Token[], generated: Nlc.Token[], text: string, top: number): Promise<TokenLogprob[]> {
    const tokens = generated.filter((t) => !m.model.isEogToken(t));
    if (tokens.length === 0 || prompt.length === 0) return [];
    // Decoded as in the reply (a tokenizer's leading space at its start dropped, as in the text).
    const decode = (ids: Nlc.Token[], at: number) => m.model.detokenize(ids, false, tokens.slice(Math.max(0, at - 4), at));
    const pieces = tokenPieces(tokens, (ids, start) => decode(ids as Nlc.Token[], start));
    const shown = piecesWithin(pieces, text.length);
    const steps = await this.stepsOn(m, slot, prompt, tokens.slice(0, shown), top, false);
    return alignLogprobs(
      text,
      steps.map((step, j) => ({
        piece: pieces[j]!,
        logprob: step.logprob,
        top: step.top.map(([id, logprob]) => ({ piece: decode([id as Nlc.Token], j), logprob })),
      })),
    );
  }

  /**
   * Fits the prompt into `budget` tokens: drops the oldest non-system turns (never the last one), then
   * the system turns, then cuts the start of the last turn.
   */
  private fit(m: LoadedModel, messages: ChatTurn[], budget: number): ChatTurn[] {
    let turns = [...messages];
    const fits = (t: ChatTurn[]): boolean => this.promptTokens(m, t) <= budget;
    if (fits(turns)) return turns;
    const dropFirst = (pred: (t: ChatTurn) => boolean): boolean => {
      const i = turns.findIndex((t, idx) => idx < turns.length - 1 && pred(t));
      if (i < 0) return false;
      turns.splice(i, 1);
      return true;
    };
    // The tools a conversation offers are never dropped: the reply's grammar may be one of their calls.
    while (!fits(turns) && dropFirst((t) => t.role !== 'system' && t.role !== 'tools'));
    while (!fits(turns) && dropFirst((t) => t.role !== 'tools'));
    if (fits(turns)) return turns;
    const last = turns.at(-1);
    if (!last) return turns;
    // Binary search on how many leading characters of the last turn to cut.
    let lo = 0;
    let hi = last.content.length;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (fits([...turns.slice(0, -1), { ...last, content: last.content.slice(mid) }])) hi = mid;
      else lo = mid + 1;
    }
    turns = [...turns.slice(0, -1), { ...last, content: last.content.slice(lo) }];
    return turns;
  }

  private acquire(m: LoadedModel, signal?: AbortSignal): Promise<Slot | null> {
    const free = m.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((resolve, reject) => {
      const waiter = (slot: Slot | null): void => {
        signal?.removeEventListener('abort', onAbort);
        if (slot) resolve(slot);
        else reject(new ModelNotLoadedError(m.id));
      };
      const onAbort = (): void => {
        const i = m.waiters.indexOf(waiter);
        if (i >= 0) m.waiters.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      m.waiters.push(waiter);
    });
  }

  private release(m: LoadedModel, slot: Slot): void {
    const next = m.waiters.shift();
    // Handed over to the next waiter, the slot stays busy.
    if (next) next(slot);
    else slot.busy = false;
  }

  private async run(m: LoadedModel, req: InternalRequest): Promise<GenerateResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    if (!Number.isInteger(req.sampling.max_tokens) || req.sampling.max_tokens < 1) {
      throw new RangeError(`max_tokens must be a positive integer, got ${req.sampling.max_tokens}`);
    }
    const { messages, rawTokens } = this.input(m, req);
    const promptTokens = rawTokens ? rawTokens.length : this.promptTokens(m, messages);
    const aborted = (text = '', completionTokens = 0, firstTokenMs: number | null = null): GenerateResult => ({
      text,
      stopReason: 'abort',
      promptTokens,
      completionTokens,
      firstTokenMs,
      durationMs: elapsed(),
    });
    if (req.signal?.aborted) return aborted();
    const grammar = req.sampling.json_schema ? await this.grammarFor(req.sampling.json_schema, req.sampling.json_frame) : undefined;

    const slot = await this.acquire(m, req.signal);
    if (!slot) return aborted();
    let text = '';
    let completionTokens = 0;
    let firstTokenMs: number | null = null;
    const generated: Nlc.Token[] = [];
    try {
      const options = {
        ...llamaCppOptions(req.sampling),
        ...(req.signal ? { signal: req.signal } : {}),
        // The grammar ends the JSON with newlines that are its stop trigger; the response is trimmed of them.
        ...(grammar ? { grammar } : {}),
        stopOnAbortSignal: true,
        onToken: (tokens: Nlc.Token[]) => {
          completionTokens += tokens.length;
          if (req.commit || req.sampling.logprobs !== undefined) generated.push(...tokens);
        },
        onTextChunk: (chunk: string) => {
          if (chunk.length === 0) return;
          firstTokenMs ??= elapsed();
          text += chunk;
          req.onToken?.(chunk);
        },
      };
      let res: { response: string; metadata: { stopReason: string } };
      if (rawTokens) {
        slot.completion ??= new this.nlc.LlamaCompletion({ contextSequence: slot.chat.sequence, autoDisposeSequence: false });
        res = await slot.completion.generateCompletionWithMeta(rawTokens, options);
      } else res = await slot.chat.generateResponse(chatHistory(messages), options);
      const reason = res.metadata.stopReason;
      // `response` is what was streamed, except a held-back partial stop trigger; keep them equal.
      if (res.response.startsWith(text) && res.response.length > text.length && reason !== 'abort') {
        const rest = res.response.slice(text.length);
        firstTokenMs ??= elapsed();
        text += rest;
        req.onToken?.(rest);
      }
      // Scored also after an abort: a stop sequence ends a generation that way, and its text is still the answer.
      const logprobs =
        req.sampling.logprobs !== undefined
          ? await this.scoreOn(m, slot, this.promptOf(m, { messages, rawTokens }), generated, text, req.sampling.logprobs)
          : undefined;
      const prompt = req.commit ? this.promptOf(m, { messages, rawTokens }) : [];
      const commitment = req.commit ? await this.stepsOn(m, slot, prompt, generated, COMMIT_TOP, reason === 'eogToken') : undefined;
      return {
        text,
        stopReason: reason === 'abort' ? 'abort' : reason === 'maxTokens' ? 'length' : 'stop',
        promptTokens,
        completionTokens,
        firstTokenMs,
        durationMs: elapsed(),
        ...(logprobs ? { logprobs } : {}),
        ...(commitment ? { commitment } : {}),
      };
    } catch (err) {
      // Aborted before the first token: node-llama-cpp throws signal.reason.
      if (req.signal?.aborted) return aborted(text, completionTokens, firstTokenMs);
      throw err;
    } finally {
      this.release(m, slot);
    }
  }
}
