import { createParser } from 'eventsource-parser';
import type { StreamEvent } from '../../api/queries/inference';

/** One server-sent event of an inference stream: its `id:` (sequence number from 1) and its JSON `data:`. */
export interface SseEvent {
  id: number | null;
  event: StreamEvent;
}

/**
 * Reads a text/event-stream into events (the spec's format: `id: <n>`, `data: <json>`, a blank line; lines
 * starting with `:` are keep-alive comments), with eventsource-parser doing the line and field parsing.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  /** The last id received stays current for later events without one (as an EventSource's lastEventId does). */
  let id: number | null = null;
  const ready: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      if (message.id !== undefined && /^\d+$/.test(message.id)) id = Number(message.id);
      const event = parse(message.data);
      if (event) ready.push({ id, event });
    },
  });
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      yield* ready.splice(0);
    }
    // The server closed right after a last event without its blank line: end it as that line would.
    parser.feed(`${decoder.decode()}\n\n`);
    yield* ready.splice(0);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    try {
      reader.releaseLock();
    } catch {
      // a read still pending after a cancel: the stream is being torn down anyway
    }
  }
}

function parse(text: string): StreamEvent | null {
  try {
    const value = JSON.parse(text) as StreamEvent;
    return value && typeof value === 'object' && typeof value.type === 'string' ? value : null;
  } catch {
    return null; // not one of ours: ignore it
  }
}

/** Why a stream ended without `done`: the server's `error` event. */
export class StreamEventError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'StreamEventError';
    this.code = code;
  }
}

export interface FollowOptions {
  /** Opens the stream (POST stream/start); its failures (402, 401, …) are thrown as they are. */
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;
  /** Reopens it after the last event received (GET stream/{id} with Last-Event-ID). */
  resume: (lastEventId: number, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;
  onToken: (text: string) => void;
  signal: AbortSignal;
  /** Waits before each reconnect; as many reconnects as entries. */
  reconnectDelaysMs?: number[];
}

export type FollowResult = Extract<StreamEvent, { type: 'done' }> | { type: 'aborted' };

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Follows an inference stream to its `done` event, appending tokens as they come. When the connection drops
 * (the body ends, or reading fails, before `done`/`error`), reconnects with the id of the last event received,
 * so no token is lost or repeated. An `error` event throws a StreamEventError.
 */
export async function followStream(opts: FollowOptions): Promise<FollowResult> {
  const delays = opts.reconnectDelaysMs ?? [500, 1000, 2000];
  let lastId = 0;
  let attempt = 0;
  let body = await opts.open(opts.signal);
  for (;;) {
    // The last event (done or error) ends the stream; the server closes the response right after it, and the
    // body is read to that end so the request completes instead of being torn down mid-response.
    let last: Extract<StreamEvent, { type: 'done' | 'error' }> | null = null;
    try {
      for await (const { id, event } of readEvents(body, opts.signal)) {
        if (id !== null) {
          if (id <= lastId) continue; // already seen (a replay overlapping what we have)
          lastId = id;
        }
        attempt = 0;
        if (last) continue;
        if (event.type === 'token') opts.onToken(event.text);
        else if (event.type === 'done' || event.type === 'error') last = event;
      }
    } catch {
      if (opts.signal.aborted && !last) return { type: 'aborted' };
      // the connection broke while reading: reconnect below (or end with the last event if it came)
    }
    if (last?.type === 'done') return last;
    if (last?.type === 'error') throw new StreamEventError(last.code, last.message);
    if (opts.signal.aborted) return { type: 'aborted' };
    const delay = delays[attempt];
    if (delay === undefined) throw new Error('The stream connection was lost');
    attempt += 1;
    await sleep(delay, opts.signal);
    if (opts.signal.aborted) return { type: 'aborted' };
    try {
      body = await opts.resume(lastId, opts.signal);
    } catch (err) {
      if (opts.signal.aborted) return { type: 'aborted' };
      // A network error: try again after the next delay; an answer from the server (404: expired) ends it.
      if (err instanceof TypeError && delays[attempt] !== undefined) {
        body = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
        continue;
      }
      throw err;
    }
  }
}
