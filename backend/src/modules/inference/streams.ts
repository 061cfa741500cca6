import type Redis from 'ioredis';
import type { Schemas } from '../../contract/types';

export type StreamEvent = Schemas['StreamEvent'];

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

export interface ReadOptions {
  /** Last event id the reader already has (0 = from the start). */
  after: number;
  /** Gives up waiting for the first event after this long (the job may never have been queued). */
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

/** Reads events in order until `done` or `error`, blocking between them. */
export async function* readStream(redis: Redis, key: string, opts: ReadOptions): AsyncGenerator<{ id: number; event: StreamEvent }> {
  let cursor = `0-${opts.after}`;
  let idleSince = Date.now();
  while (!opts.signal?.aborted) {
    const res = (await redis.xread('COUNT', 256, 'BLOCK', 1000, 'STREAMS', key, cursor)) as Array<[string, Array<[string, string[]]>]> | null;
    if (!res) {
      if (Date.now() - idleSince > opts.idleTimeoutMs) return;
      continue;
    }
    idleSince = Date.now();
    for (const [id, fields] of res[0]![1]) {
      cursor = id;
      const event = JSON.parse(fields[1]!) as StreamEvent;
      yield { id: Number(id.split('-')[1]), event };
      if (event.type === 'done' || event.type === 'error') return;
    }
  }
}
