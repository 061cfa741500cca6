import { generateReply } from '@glob/engine/generation';
import type { GenerateRequest, GenerateResult } from '@glob/engine/llama-engine';

/** A generator that emits `pieces` one by one, stopping early when its signal aborts (as llama.cpp's does). */
function scripted(pieces: string[]) {
  const seen: { aborted: boolean; emitted: number } = { aborted: false, emitted: 0 };
  const generate = async (request: GenerateRequest): Promise<GenerateResult> => {
    let text = '';
    for (const piece of pieces) {
      if (request.signal?.aborted) break;
      request.onToken?.(piece);
      text += piece;
      seen.emitted++;
    }
    seen.aborted = request.signal?.aborted ?? false;
    return { text, stopReason: seen.aborted ? 'abort' : 'length', promptTokens: 3, completionTokens: seen.emitted, firstTokenMs: 1, durationMs: 2 };
  };
  return { generate, seen };
}

const step = { messages: [{ role: 'user' as const, content: 'Hi' }], sampling: { max_tokens: 16, temperature: 0, top_p: 1 } };

describe('generateReply: one generation step for the worker and the node agent', () => {
  it('sends every piece (the first at once, the rest batched) and keeps the generator’s stop reason', async () => {
    const { generate } = scripted(['Hello', ' there', ', friend']);
    const sent: string[] = [];
    const result = await generateReply(generate, step, (t) => sent.push(t), 10_000);
    expect(sent.join('')).toBe('Hello there, friend');
    expect(sent[0]).toBe('Hello');
    expect(sent).toHaveLength(2);
    expect(result.stopReason).toBe('length');
  });

  it('a stop sequence ends the generation there and then: nothing from it on is sent, and the reason is stop', async () => {
    const { generate, seen } = scripted(['One', ' two', ' END', ' three', ' four']);
    const sent: string[] = [];
    const result = await generateReply(generate, { ...step, sampling: { ...step.sampling, stop: ['END'] } }, (t) => sent.push(t), 0);
    expect(sent.join('')).toBe('One two ');
    expect(seen.aborted).toBe(true);
    expect(seen.emitted).toBe(3);
    expect(result.stopReason).toBe('stop');
  });

  it('the caller’s abort still ends it (a stop from the requester), with what was generated sent', async () => {
    const abort = new AbortController();
    const { generate } = scripted(['a', 'b', 'c']);
    const sent: string[] = [];
    const result = await generateReply(
      async (request) => {
        request.onToken?.('x');
        abort.abort();
        return generate(request);
      },
      { ...step, signal: abort.signal },
      (t) => sent.push(t),
      0,
    );
    expect(sent.join('')).toBe('x');
    expect(result.stopReason).toBe('abort');
  });
});
