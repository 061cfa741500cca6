/** The platform's own token counts, with each catalog model's tokenizer (its vocabulary only, in a worker thread). */
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CatalogService } from './catalog.service';
import { chatHistory, type ChatTurn } from '@glob/engine/chat-history';
import type { GenerationInput } from '../../jobs/generation-input';
import type { ToolFormat } from '@glob/engine/tool-format';

/**
 * The thread's code, as a string so it runs the same from src (swc, jest) and from dist. It loads each model's
 * vocabulary only (no weights: a few MB) and answers counts. node-llama-cpp is a native ESM addon that jest's VM
 * cannot import in-process, and a long text's tokenization belongs off the API's event loop anyway. Prompts are
 * formatted and texts normalized by the engine's own chat-wrapper.ts (its source through swc where the engine runs
 * from source, its build otherwise), so the counts are the generators' to the token.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register);
const { chatWrapperFor, textNormalizerFor } = require(workerData.chatWrapper);
const { toolFormatOf } = require(workerData.toolFormat);
const ready = (async () => {
  const nlc = await import(workerData.url);
  const llama = await nlc.getLlama({ build: 'never', gpu: false, logLevel: nlc.LlamaLogLevel.error, progressLogs: false });
  return { nlc, llama };
})();
const models = new Map();
async function model(id, path) {
  if (!models.has(id)) {
    models.set(id, (async () => {
      const { nlc, llama } = await ready;
      const model = await llama.loadModel({ modelPath: path, vocabOnly: true });
      const meta = model.fileInfo.metadata;
      const wrapper = chatWrapperFor(nlc, model);
      const normalize = textNormalizerFor(model);
      const pieces = (meta.tokenizer && meta.tokenizer.ggml && meta.tokenizer.ggml.tokens) || [];
      let maxTokenBytes = 4;
      for (const p of pieces) maxTokenBytes = Math.max(maxTokenBytes, Buffer.byteLength(String(p)));
      const arch = meta.general && meta.general.architecture;
      const embeddingLength = Number((arch && meta[arch] && meta[arch].embedding_length) || 0);
      const toolFormat = toolFormatOf(meta.tokenizer && meta.tokenizer.chat_template);
      return { model, wrapper, normalize, maxTokenBytes, embeddingLength, vocabSize: pieces.length, toolFormat };
    })().catch((err) => {
      // Not remembered: a tokenizer file put in place later is read on the next call.
      models.delete(id);
      throw err;
    }));
  }
  return models.get(id);
}
parentPort.on('message', async (m) => {
  try {
    if (m.op === 'close') {
      for (const p of models.values()) await (await p.catch(() => null))?.model.dispose();
      await (await ready).llama.dispose();
      parentPort.close();
      return;
    }
    const t = await model(m.model, m.path);
    let result;
    if (m.op === 'info') result = { maxTokenBytes: t.maxTokenBytes, embeddingLength: t.embeddingLength, vocabSize: t.vocabSize, toolFormat: t.toolFormat };
    else if (m.op === 'prompt') result = t.wrapper.generateContextState({ chatHistory: m.history }).contextText.tokenize(t.model.tokenizer).length;
    else if (m.op === 'tokens') result = Array.from(t.model.tokenize(t.normalize(m.text)));
    else if (m.op === 'tail') {
      let tokens;
      if (m.history) tokens = t.wrapper.generateContextState({ chatHistory: m.history }).contextText.tokenize(t.model.tokenizer);
      else {
        tokens = t.model.tokenize(t.normalize(m.text));
        const bos = t.model.tokens.bos;
        if (t.model.tokens.shouldPrependBosToken && bos !== null) tokens = [bos, ...tokens];
      }
      result = Array.from(tokens.slice(-m.count));
    } else if (m.op === 'decode') {
      // An id outside the vocabulary would take llama.cpp (and the process) down: refused here, whoever asks.
      if ([...m.tokens, ...m.pieces].some((id) => !Number.isInteger(id) || id < 0 || id >= t.vocabSize)) throw new RangeError('a token is not in the vocabulary');
      const eog = m.tokens.map((id) => t.model.isEogToken(id));
      const pieces = {};
      for (const id of m.pieces) pieces[id] = t.model.detokenize([id], false);
      result = { text: t.model.detokenize(m.tokens.filter((_, i) => !eog[i]), false), eog, pieces };
    }
    else result = t.model.tokenize(t.normalize(m.text)).length;
    parentPort.postMessage({ id: m.id, result });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message ? err.message : err) });
  }
});
`;

type Op =
  | { op: 'info' }
  | { op: 'prompt'; history: unknown }
  | { op: 'text' | 'tokens'; text: string }
  | { op: 'tail'; history?: unknown; text?: string; count: number }
  | { op: 'decode'; tokens: number[]; pieces: number[] };

/**
 * The platform's own token counts, with each catalog model's tokenizer, so that what a reply costs never depends on
 * what its generator reports: the prompt as the model's chat template formats it, and the text that was relayed.
 */
@Injectable()
export class TokenCounter implements OnApplicationShutdown {
  private readonly logger = new Logger('TokenCounter');
  private thread: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private seq = 0;

  constructor(private readonly catalog: CatalogService) {}

  /** Whether the platform has this model's tokenizer: a model it cannot count is never given to a remote node. */
  canCount(modelId: string): boolean {
    const m = this.catalog.get(modelId);
    return !!m && existsSync(m.tokenizerPath);
  }

  /** Tokens of the prompt as the model's chat template formats it, generation prompt included. */
  async countPrompt(modelId: string, messages: ChatTurn[]): Promise<number> {
    return (await this.ask(modelId, { op: 'prompt', history: chatHistory(messages) })) as number;
  }

  /** Tokens of a job's input: a raw prompt as its text alone, chat turns as the model's chat template formats them. */
  countInput(modelId: string, input: GenerationInput): Promise<number> {
    return input.prompt !== undefined ? this.countText(modelId, input.prompt) : this.countPrompt(modelId, input.messages);
  }

  /** Tokens of a text (a reply as it was relayed, or a raw prompt). */
  async countText(modelId: string, text: string): Promise<number> {
    if (!text) return 0;
    return (await this.ask(modelId, { op: 'text', text })) as number;
  }

  /** The token ids of a text, to compare two generations token by token. */
  async tokenize(modelId: string, text: string): Promise<number[]> {
    if (!text) return [];
    return (await this.ask(modelId, { op: 'tokens', text })) as number[];
  }

  /**
   * The last `count` tokens a generator evaluates for a job's input, as the engine builds it: the chat template's
   * prompt, or a raw prompt after the model's BOS when it has one to prepend.
   */
  async inputTail(modelId: string, input: GenerationInput, count: number): Promise<number[]> {
    const op = input.prompt !== undefined ? { text: input.prompt } : { history: chatHistory(input.messages) };
    return (await this.ask(modelId, { op: 'tail', count, ...op })) as number[];
  }

  /**
   * Generated tokens as text (end-of-generation tokens adding none), which of them end generation, and each of
   * `pieces` decoded alone.
   */
  async decode(modelId: string, tokens: number[], pieces: number[]): Promise<{ text: string; eog: boolean[]; pieces: Record<number, string> }> {
    return (await this.ask(modelId, { op: 'decode', tokens, pieces })) as { text: string; eog: boolean[]; pieces: Record<number, string> };
  }

  /** The longest a single token of the model can decode to, in bytes (a reply of n tokens is at most n times this). */
  async maxTokenBytes(modelId: string): Promise<number> {
    return ((await this.ask(modelId, { op: 'info' })) as { maxTokenBytes: number }).maxTokenBytes;
  }

  /** How many tokens the model's vocabulary has. */
  async vocabSize(modelId: string): Promise<number> {
    return ((await this.ask(modelId, { op: 'info' })) as { vocabSize: number }).vocabSize;
  }

  /** The model's native tool-call format, read from its chat template (tool-format.ts); null when it has none. */
  async toolFormat(modelId: string): Promise<ToolFormat | null> {
    return ((await this.ask(modelId, { op: 'info' })) as { toolFormat: ToolFormat | null }).toolFormat;
  }

  /** The length of the model's embeddings (its embedding length, from the file's metadata; 0 when it does not say). */
  async embeddingLength(modelId: string): Promise<number> {
    return ((await this.ask(modelId, { op: 'info' })) as { embeddingLength: number }).embeddingLength;
  }

  private ask(modelId: string, op: Op): Promise<unknown> {
    const m = this.catalog.get(modelId);
    if (!m) return Promise.reject(new Error(`model ${modelId} is not in the catalog`));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.start().postMessage({ id, model: m.id, path: m.tokenizerPath, ...op });
    });
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const chatWrapper = require.resolve('@glob/engine/chat-wrapper');
    const toolFormat = require.resolve('@glob/engine/tool-format');
    const thread = new Worker(THREAD, {
      eval: true,
      workerData: {
        url: pathToFileURL(require.resolve('node-llama-cpp')).href,
        chatWrapper,
        toolFormat,
        // The engine's TypeScript source (development, tests) is compiled as the rest of the process's is.
        register: chatWrapper.endsWith('.ts') ? require.resolve('@swc-node/register') : null,
      },
    });
    thread.unref();
    thread.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(`token count failed: ${m.error}`));
      else p?.resolve(m.result);
    });
    const fail = (err: Error) => {
      // After onApplicationShutdown the thread is no longer ours, and its exit is expected.
      if (this.thread === thread) this.logger.error(`Tokenizer thread stopped: ${err.message}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (this.thread === thread) this.thread = undefined;
    };
    thread.on('error', fail);
    thread.on('exit', () => fail(new Error('the tokenizer thread exited')));
    this.thread = thread;
    return thread;
  }

  async onApplicationShutdown(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.thread = undefined;
    // Disposing llama.cpp first: a thread terminated with the addon loaded aborts the whole process.
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Held open until it has closed: nothing else may be keeping this process alive.
    thread.ref();
    thread.postMessage({ op: 'close' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
  }
}
