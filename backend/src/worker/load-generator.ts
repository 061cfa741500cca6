/**
 * A stand-in for llama.cpp in benches of the platform itself (WORKER_LOAD_TOKENS_PER_SECOND): each reply is made-up
 * tokens at a set rate, each carrying the time it was written (`t<ms since the epoch> `), so a reader can tell how
 * long a token took to reach it. Nothing is loaded; as many replies run at once as the worker takes.
 */
import type { GenerateRequest, GenerateResult, LlamaEngine, ModelCapacity } from '@glob/engine/llama-engine';

/** Replies one load-generating worker runs at once, per model. */
const LOAD_SEQUENCES = 1000;

/** What the worker asks of its engine. */
export type WorkerEngine = Pick<
  LlamaEngine,
  'load' | 'capacity' | 'benchmark' | 'countTokens' | 'countTextTokens' | 'generate' | 'embed' | 'recompute' | 'score' | 'dispose'
>;

export class LoadGenerator implements WorkerEngine {
  constructor(private readonly tokensPerSecond: number) {}

  async load(): Promise<void> {}

  capacity(): ModelCapacity {
    return { sequences: LOAD_SEQUENCES, contextSize: 8192, kvBytesPerSequence: 0, contextBytes: 0 };
  }

  async benchmark(): Promise<{ tokensPerSecond: number }> {
    return { tokensPerSecond: this.tokensPerSecond };
  }

  /** A rough count: a load bench measures the relay, not the prompt. */
  countTokens(_modelId: string, messages: Array<{ content: string }>): number {
    return messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 1);
  }

  countTextTokens(_modelId: string, text: string): number {
    return Math.ceil(text.length / 4);
  }

  async generate(_modelId: string, req: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const interval = 1000 / this.tokensPerSecond;
    let text = '';
    let n = 0;
    let firstTokenMs: number | null = null;
    while (n < req.sampling.max_tokens && !req.signal?.aborted) {
      // Paced from the start, so a late timer does not slow the rate down.
      const due = started + (n + 1) * interval - performance.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
      const token = `t${Date.now()} `;
      text += token;
      n += 1;
      firstTokenMs ??= Math.round(performance.now() - started);
      req.onToken?.(token);
    }
    return {
      text,
      stopReason: req.signal?.aborted ? 'abort' : 'length',
      promptTokens: req.messages ? this.countTokens('', req.messages) : this.countTextTokens('', req.prompt ?? ''),
      completionTokens: n,
      firstTokenMs,
      durationMs: Math.round(performance.now() - started),
    };
  }

  embed(): never {
    throw new Error('a load-generating worker computes no embeddings');
  }

  recompute(): never {
    throw new Error('a load-generating worker verifies nothing');
  }

  score(): never {
    throw new Error('a load-generating worker scores nothing');
  }

  async dispose(): Promise<void> {}
}
