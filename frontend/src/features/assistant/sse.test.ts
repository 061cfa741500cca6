import { describe, expect, it, jest } from '@jest/globals';
import { followStream, readEvents, StreamEventError } from './sse';

const encoder = new TextEncoder();
const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(encoder.encode(chunk));
      c.close();
    },
  });
const ev = (id: number, data: unknown) => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
const token = (text: string) => ({ type: 'token', text });
const done = { type: 'done', success: true, usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 }, stop_reason: 'stop' };

async function collect(stream: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const e of readEvents(stream)) out.push(e);
  return out;
}

describe('readEvents', () => {
  it('parses id + data events cut anywhere across chunks, CRLF or LF, skipping keep-alive comments', async () => {
    const events = await collect(
      body(
        'id: 1\nda',
        'ta: {"type":"tok',
        'en","text":"Hel"}\n',
        '\n: keep-alive\n\n',
        'id: 2\r',
        '\ndata: {"type":"token","text":"lo"}\r\n\r\n',
        'data: not json\n\n',
        `id: 3\ndata: ${JSON.stringify(done)}`, // the last event without its blank line
      ),
    );
    expect(events).toEqual([
      { id: 1, event: token('Hel') },
      { id: 2, event: token('lo') },
      { id: 3, event: done },
    ]);
  });
});

describe('followStream', () => {
  it('appends tokens and resolves with the done event', async () => {
    const tokens: string[] = [];
    const result = await followStream({
      open: async () => body(ev(1, token('a')), ev(2, token('b')), ev(3, done)),
      resume: async () => {
        throw new Error('not needed');
      },
      onToken: (t) => tokens.push(t),
      signal: new AbortController().signal,
    });
    expect(tokens).toEqual(['a', 'b']);
    expect(result).toEqual(done);
  });

  it('reads the response to its end after done instead of tearing it down (no aborted request in the browser)', async () => {
    const cancel = jest.fn<() => void>();
    let closed = false;
    const chunks = [ev(1, token('a')), ev(2, done)];
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          const next = chunks.shift();
          if (next) c.enqueue(encoder.encode(next));
          else {
            closed = true;
            c.close();
          }
        },
        cancel,
      },
      { highWaterMark: 0 },
    ); // pulled only when read
    const result = await followStream({
      open: async () => stream,
      resume: async () => {
        throw new Error('not needed');
      },
      onToken: () => undefined,
      signal: new AbortController().signal,
    });
    expect(result).toEqual(done);
    expect(closed).toBe(true);
    expect(cancel).not.toHaveBeenCalled();
  });

  it('reconnects after the last event id when the connection drops, without repeating tokens', async () => {
    const tokens: string[] = [];
    const resume = jest.fn(async (last: number) => {
      expect(last).toBe(2);
      // The server may replay from an earlier point: events already seen are skipped.
      return body(ev(2, token('b')), ev(3, token('c')), ev(4, done));
    });
    const result = await followStream({
      open: async () => body(ev(1, token('a')), ev(2, token('b'))),
      resume,
      onToken: (t) => tokens.push(t),
      signal: new AbortController().signal,
      reconnectDelaysMs: [1],
    });
    expect(resume).toHaveBeenCalledTimes(1);
    expect(tokens).toEqual(['a', 'b', 'c']);
    expect(result.type).toBe('done');
  });

  it('throws the error event as a StreamEventError with its code', async () => {
    const failing = followStream({
      open: async () => body(ev(1, token('a')), ev(2, { type: 'error', code: 'WORKER_FAILED', message: 'The worker crashed' })),
      resume: async () => body(),
      onToken: () => undefined,
      signal: new AbortController().signal,
    });
    await expect(failing).rejects.toBeInstanceOf(StreamEventError);
    await expect(failing).rejects.toMatchObject({ code: 'WORKER_FAILED', message: 'The worker crashed' });
  });

  it('gives up when every reconnect ends without done', async () => {
    const resume = jest.fn(async () => body());
    await expect(
      followStream({
        open: async () => body(ev(1, token('a'))),
        resume,
        onToken: () => undefined,
        signal: new AbortController().signal,
        reconnectDelaysMs: [1, 1],
      }),
    ).rejects.toThrow('The stream connection was lost');
    expect(resume).toHaveBeenCalledTimes(2);
  });

  it('passes the opening failure (e.g. a 402) through untouched', async () => {
    const failure = Object.assign(new Error('Payment required'), { status: 402 });
    await expect(
      followStream({
        open: async () => Promise.reject(failure),
        resume: async () => body(),
        onToken: () => undefined,
        signal: new AbortController().signal,
      }),
    ).rejects.toBe(failure);
  });

  it('resolves as aborted when its signal aborts mid-stream', async () => {
    const controller = new AbortController();
    const never = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(ev(1, token('a'))));
      },
    });
    const tokens: string[] = [];
    const result = followStream({
      open: async () => never,
      resume: async () => body(),
      onToken: (t) => {
        tokens.push(t);
        controller.abort();
      },
      signal: controller.signal,
    });
    await expect(result).resolves.toEqual({ type: 'aborted' });
    expect(tokens).toEqual(['a']);
  });
});
