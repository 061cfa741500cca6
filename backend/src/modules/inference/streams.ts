import type Redis from 'ioredis';
import type { Schemas } from '../../contract/types';

export type StreamEvent = Schemas['StreamEvent'];

/** Where a stop for a stream waits for its worker; the value is the user who asked. */
export const stopKey = (prefix: string, streamId: string) => `${prefix}:stop:${streamId}`;

/**
 * Token streams live in Redis Streams (not pub/sub), so a reader that connects late or reconnects misses
 * nothing. Entry ids are `0-<n>` with n = 1, 2, 3…: the same n is the SSE `id:` and a reader resumes
 * after Last-Event-ID by reading from `0-<n>`.
 */
export class TokenStream {
  private seq = 0;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
  ) {}

  static key(prefix: string, streamId: string): string {
    return `${prefix}:stream:${streamId}`;
  }

  /** Continues after what is already there (a retried job appends after the first attempt's events). */
  async init(): Promise<number> {
    const last = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1))[0];
    this.seq = last ? Number(last[0].split('-')[1]) : 0;
    return this.seq;
  }

  /** Appends one event; calls are ordered on the connection, so they need not be awaited one by one. */
  append(event: StreamEvent): Promise<unknown> {
    this.seq += 1;
    return this.redis.xadd(this.key, `0-${this.seq}`, 'e', JSON.stringify(event));
  }

  /** The text of the token events so far (a reply ended from outside keeps what was streamed). */
  async text(): Promise<string> {
    const entries = (await this.redis.xrange(this.key, '-', '+')) as Array<[string, string[]]>;
    return entries
      .map(([, fields]) => JSON.parse(fields[1]!) as StreamEvent)
      .map((e) => (e.type === 'token' ? e.text : ''))
      .join('');
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

/**
 * Coalesces generated text into token events: the first piece goes out at once, later ones at most every
 * `intervalMs` (a fast model on a fast machine makes 1,000+ tokens/s; one Redis entry, SSE frame and client
 * update per token costs more than the generation itself). `flush()` before the final event.
 */
export class TokenBatcher {
  private pending = '';
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 10,
  ) {}

  push(text: string): void {
    this.pending += text;
    if (this.timer) return;
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.last = Date.now();
    this.send(text);
  }
}
