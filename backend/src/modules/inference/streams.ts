import type { Redis, Result } from 'ioredis';
import { defineScript, withScripts } from '../../redis/scripts';
import type { Schemas } from '../../contract/types';

export type StreamEvent = Schemas['StreamEvent'];

/**
 * Most events one stream keeps: XADD trims older ones beyond this (approximately, by whole nodes). A reply's
 * events are capped far below it; this only keeps a runaway writer from growing a stream without bound.
 */
export const STREAM_MAX_EVENTS = 10_000;

/** Most bytes of token text `TokenStream.text()` returns by default (a reply saved or reaped keeps this prefix). */
export const STREAM_TEXT_MAX_BYTES = 4 * 1024 * 1024;

/** Entries read per XRANGE call while collecting a stream's text. */
const TEXT_PAGE = 256;

/**
 * Lua for an append: the event joins the stream (Redis numbers it; the local `id`) and is published, with its id, on
 * the channel named as the stream, in one step, so a reader subscribed before it reads the stream misses nothing
 * between the two. Its arguments are Lua expressions (the stream's key, the event's JSON), so other scripts append too.
 */
export const appendLua = (key: string, raw: string) => `
local id = redis.call('XADD', ${key}, 'MAXLEN', '~', ${STREAM_MAX_EVENTS}, '0-*', 'e', ${raw})
redis.call('PUBLISH', ${key}, id .. ' ' .. ${raw})
`;

const APPEND_LUA = `${appendLua('KEYS[1]', 'ARGV[1]')}
return id`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    globStreamAppend(key: string, raw: string): Result<string, Context>;
  }
}

defineScript('globStreamAppend', 1, APPEND_LUA);

/** A published event: `<id> <raw JSON>` as the append script sends it. */
export function parsePublished(message: string): { seq: number; raw: string } | null {
  const space = message.indexOf(' ');
  const seq = Number(message.slice(message.indexOf('-') + 1, space));
  return space > 0 && Number.isSafeInteger(seq) ? { seq, raw: message.slice(space + 1) } : null;
}

/**
 * Token streams live in Redis Streams, so a reader that connects late or reconnects misses nothing; each append is
 * also published on the stream's channel, so live readers hear of it without reading every open stream. Entry ids
 * are `0-<n>` with n = 1, 2, 3…: the same n is the SSE `id:` and a reader resumes after Last-Event-ID by reading
 * from `0-<n>`. Redis numbers the entries itself (`XADD … 0-*`), so any process may append (a node's events reach
 * whichever API process its call lands on) without reading the stream first.
 */
export class TokenStream {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
  ) {}

  static key(prefix: string, streamId: string): string {
    return `${prefix}:stream:${streamId}`;
  }

  /** The number of the last event so far (0 when there is none): a retried job's events come after the first attempt's. */
  async lastSeq(): Promise<number> {
    const last = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1))[0];
    return last ? Number(last[0].split('-')[1]) : 0;
  }

  /**
   * Appends one event after the last (its number Redis's), trimming the stream to about STREAM_MAX_EVENTS; calls
   * are ordered on the connection, so they need not be awaited one by one.
   */
  append(event: StreamEvent): Promise<unknown> {
    return withScripts(this.redis).globStreamAppend(this.key, JSON.stringify(event));
  }

  /**
   * The text of the token events so far (a reply ended from outside keeps what was streamed), at most
   * `maxBytes` UTF-8 bytes of it: read page by page, so a huge stream is never loaded whole.
   */
  async text(maxBytes: number = STREAM_TEXT_MAX_BYTES): Promise<string> {
    const parts: string[] = [];
    let bytes = 0;
    let start = '-';
    while (bytes <= maxBytes) {
      const entries = (await this.redis.xrange(this.key, start, '+', 'COUNT', TEXT_PAGE)) as Array<[string, string[]]>;
      for (const [, fields] of entries) {
        const event = JSON.parse(fields[1]!) as StreamEvent;
        if (event.type !== 'token' || !event.text) continue;
        parts.push(event.text);
        bytes += Buffer.byteLength(event.text);
        if (bytes > maxBytes) break;
      }
      if (entries.length < TEXT_PAGE) break;
      start = `(${entries[entries.length - 1]![0]}`;
    }
    const text = parts.join('');
    return bytes > maxBytes ? cutUtf8(text, maxBytes) : text;
  }

  /** The id of the stream's final event (done or error), or null while it has none. */
  async endedAt(): Promise<number | null> {
    const last = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1))[0] as [string, string[]] | undefined;
    if (!last) return null;
    const event = JSON.parse(last[1][1]!) as StreamEvent;
    return event.type === 'done' || event.type === 'error' ? Number(last[0].split('-')[1]) : null;
  }

  async finish(ttlSeconds: number): Promise<void> {
    await this.redis.expire(this.key, ttlSeconds);
  }
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // Back off over continuation bytes (10xxxxxx) to the start of the character the limit falls inside.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
