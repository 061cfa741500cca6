import type { GenerateRequest, GenerateResult } from './llama-engine';
import { cutLogprobs } from './logprobs';
import { StopSequences } from './stop-sequences';
import { TokenBatcher } from './token-batcher';

/** A generation as every generator runs it; its sampling's stop sequences end the reply (nothing of them is sent). */
export type GenerationStep = Omit<GenerateRequest, 'onToken'>;

/**
 * One reply generated the way every generator of the network does it (the in-cluster worker and a provider's node
 * alike): the text goes to `send` in batches (the first piece at once, then at most every `batchMs`); a stop sequence
 * ends the generation there and then, so only the tokens before it are generated and charged, and the answer's stop
 * reason says `stop`. Whatever was generated is sent, also when the generation fails.
 */
export async function generateReply(
  generate: (request: GenerateRequest) => Promise<GenerateResult>,
  step: GenerationStep,
  send: (text: string) => void,
  batchMs?: number,
): Promise<GenerateResult> {
  const { signal, ...request } = step;
  const stop = step.sampling.stop;
  const batcher = new TokenBatcher(send, batchMs);
  const cut = new AbortController();
  const stops = stop?.length ? new StopSequences(stop, (text) => batcher.push(text)) : null;
  try {
    const result = await generate({
      ...request,
      signal: signal ? AbortSignal.any([signal, cut.signal]) : cut.signal,
      onToken: (text) => {
        if (!stops) batcher.push(text);
        else if (stops.push(text)) cut.abort();
      },
    });
    stops?.flush();
    if (!stops?.matched) return result;
    // The answer is the text before the stop sequence (what was sent): so are its tokens.
    return {
      ...result,
      text: result.text.slice(0, stops.shown),
      stopReason: 'stop',
      ...(result.logprobs ? { logprobs: cutLogprobs(result.logprobs, stops.shown) } : {}),
    };
  } finally {
    batcher.flush();
  }
}
