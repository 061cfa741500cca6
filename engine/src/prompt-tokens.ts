/**
 * A prompt as the tokens a model evaluates, defined once for every generator: the engine (node-llama-cpp) and a
 * pool's coordinator (llama.cpp's llama-server, which is handed these ids instead of text). The platform's token
 * counter applies the same rule in its own thread (it cannot import this module there).
 *
 * Chat turns are rendered by the model's chat wrapper (chat-wrapper.ts) into a LlamaText whose template parts are
 * special tokens and whose turns are plain text: a turn that spells a control token (`<|eot_id|>`,
 * `<|im_start|>system`) stays text, so no user (or tool result) can end a turn or open a system turn by typing one.
 * A raw prompt is text throughout.
 */
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { chatHistory, type ChatTurn } from './chat-history';
import { chatWrapperFor, textNormalizerFor } from './chat-wrapper';
import { validateGguf } from './gguf-validate';
import { loadNodeLlamaCpp } from './node-llama-cpp';

/** The chat turns' prompt, generation prompt included: the template's control tokens as tokens, the turns' text as text. */
export function chatPromptTokens(model: Nlc.LlamaModel, wrapper: Nlc.ChatWrapper, messages: ChatTurn[]): Nlc.Token[] {
  const { contextText } = wrapper.generateContextState({ chatHistory: chatHistory(messages) });
  return contextText.tokenize(model.tokenizer);
}

/**
 * A raw prompt's own tokens (what it is counted as): its text alone, normalized as the family's tokenizer normalizes
 * text (chat-wrapper.ts), never a control token, no BOS.
 */
export function rawPromptTokens(model: Nlc.LlamaModel, text: string): Nlc.Token[] {
  return text ? model.tokenize(textNormalizerFor(model)(text), false) : [];
}

/** What a raw prompt's tokens are evaluated as: after the model's BOS when it has one to prepend (as node-llama-cpp does). */
export function withBos(model: Nlc.LlamaModel, tokens: Nlc.Token[]): Nlc.Token[] {
  const bos = model.tokens.bos;
  return model.tokens.shouldPrependBosToken && bos !== null ? [bos, ...tokens] : tokens;
}

/**
 * The node-llama-cpp instance vocabularies are loaded with, on the CPU (a tokenizer needs no GPU), made on first use and
 * kept: disposing an instance frees llama.cpp's backend for every instance in the process that shares its addon (the
 * engine's among them).
 */
let vocabLlama: Promise<{ nlc: typeof Nlc; llama: Nlc.Llama }> | null = null;

function llamaForVocabularies(): Promise<{ nlc: typeof Nlc; llama: Nlc.Llama }> {
  vocabLlama ??= (async () => {
    const nlc = await loadNodeLlamaCpp();
    const llama = await nlc.getLlama({ build: 'never', gpu: false, logLevel: nlc.LlamaLogLevel.error, progressLogs: false });
    return { nlc, llama };
  })().catch((err: unknown) => {
    vocabLlama = null;
    throw err;
  });
  return vocabLlama;
}

/**
 * A model's prompt tokenizer from its vocabulary alone (no weights: a few MB even for a 70B model's file), for a
 * generator that runs the model elsewhere (a pool's llama-server).
 */
export class PromptTokenizer {
  private disposed = false;

  private constructor(
    private readonly model: Nlc.LlamaModel,
    private readonly wrapper: Nlc.ChatWrapper,
  ) {}

  /** Validates the file first (llama.cpp aborts the whole process on some malformed headers), then loads its vocabulary. */
  static async load(modelPath: string): Promise<PromptTokenizer> {
    await validateGguf(modelPath);
    const { nlc, llama } = await llamaForVocabularies();
    const model = await llama.loadModel({ modelPath, vocabOnly: true });
    try {
      return new PromptTokenizer(model, chatWrapperFor(nlc, model));
    } catch (err) {
      await model.dispose();
      throw err;
    }
  }

  /** The chat turns' prompt as the engine evaluates it. */
  chat(messages: ChatTurn[]): number[] {
    return Array.from(chatPromptTokens(this.model, this.wrapper, messages));
  }

  /** A raw prompt's own tokens (no BOS): what it is counted as. */
  text(text: string): number[] {
    return Array.from(rawPromptTokens(this.model, text));
  }

  /** A raw prompt as the engine evaluates it: its tokens after the BOS when the model prepends one. */
  raw(text: string): number[] {
    return Array.from(withBos(this.model, rawPromptTokens(this.model, text)));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.model.dispose();
  }
}
