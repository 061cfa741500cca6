import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { REDIS, redisOptions } from '../../redis/redis.module';
import { parsePublished, type StreamEvent } from './streams';

/** One event of a stream: its number, the event, and its JSON as stored (what an SSE frame carries as it is). */
type Entry = { id: number; event: StreamEvent; raw: string };

/** Entries one stream read (XRANGE) returns at most; a reader further behind reads page after page. */
const PAGE = 256;

/** After a failed stream read, the next try waits this long. */
const RETRY_MS = 500;

interface Reader {
  key: string;
  /** Sequence number of the last entry this reader has. */
  cursor: number;
  queue: Entry[];
  /** Published entries that came before the ones between them and the cursor (read from the stream meanwhile). */
  ahead: Map<number, Entry>;
  /** A read of the stream from the cursor is running; `again`: another is due when it ends. */
  reading: boolean;
  again: boolean;
  wake: (() => void) | null;
}

export interface HubReadOptions {
  /** Last event id the reader already has (0 = from the start). */
  after: number;
  /** Called whenever nothing arrived for `idleMs`; may append a final event (the reaper), which the reader then gets. */
  onIdle?: () => Promise<void>;
  idleMs: number;
  signal?: AbortSignal;
}

const isFinal = (e: StreamEvent) => e.type === 'done' || e.type === 'error';

const entryOf = (id: number, raw: string): Entry => ({ id, event: JSON.parse(raw) as StreamEvent, raw });

/**
 * All event-stream readers of one API process share one subscriber connection to Redis: each append is published on
 * its stream's channel (see TokenStream.append), and a stream's channel is subscribed while this process has a
 * reader of it, so what a process does per event is a message in and a write to each reader, however many streams
 * are open. A reader joins by subscribing, then reading the stream from its cursor (what came before), and takes
 * published events in order from there: one that comes before the events between it and the cursor waits for a
 * read of the stream, which fills the gap. Before, one XREAD of every open stream ran every 10 ms, a cost that grew
 * with the number of open streams, not of events.
 */
@Injectable()
export class StreamHub implements OnApplicationShutdown {
  private readonly logger = new Logger('StreamHub');
  private readonly readers = new Map<string, Set<Reader>>();
  /** Each channel's SUBSCRIBE, awaited by the readers that join it. */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private subscriber: Redis | undefined;
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Events of `key` after `opts.after`, in order, until `done` or `error` (or the reader goes away). */
  async *read(key: string, opts: HubReadOptions): AsyncGenerator<Entry> {
    const reader: Reader = { key, cursor: opts.after, queue: [], ahead: new Map(), reading: false, again: false, wake: null };
    const onAbort = () => reader.wake?.();
    opts.signal?.addEventListener('abort', onAbort);
    try {
      await this.join(reader);
      while (!opts.signal?.aborted && !this.closed) {
        const next = reader.queue.shift();
        if (next) {
          yield next;
          if (isFinal(next.event)) return;
          continue;
        }
        const arrived = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), opts.idleMs);
          reader.wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        reader.wake = null;
        if (arrived) continue;
        // Quiet for a while: read the stream itself (a message lost while the subscriber reconnected), then ask.
        await this.readStream(reader);
        if (!reader.queue.length && opts.onIdle) {
          await opts.onIdle();
          await this.readStream(reader);
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.leave(reader);
    }
  }

  /** How many readers this process serves (for tests and the bench). */
  get size(): number {
    let n = 0;
    for (const set of this.readers.values()) n += set.size;
    return n;
  }

  /** Subscribed (the channel's SUBSCRIBE confirmed), then what the stream already holds past the cursor. */
  private async join(reader: Reader): Promise<void> {
    let set = this.readers.get(reader.key);
    if (!set) this.readers.set(reader.key, (set = new Set()));
    set.add(reader);
    let subscribing = this.subscribed.get(reader.key);
    if (!subscribing) {
      subscribing = this.connection().subscribe(reader.key);
      this.subscribed.set(reader.key, subscribing);
    }
    await subscribing;
    await this.readStream(reader);
  }

  private leave(reader: Reader): void {
    const set = this.readers.get(reader.key);
    if (!set?.delete(reader) || set.size) return;
    this.readers.delete(reader.key);
    this.subscribed.delete(reader.key);
    // Commands on one connection run in order: a reader joining after this subscribes again after it.
    if (!this.closed) this.subscriber?.unsubscribe(reader.key).catch(() => undefined);
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    // No ready check: a SUBSCRIBE issued while ioredis sets the connection up goes out at once (Redis runs it even
    // while loading), and the check's INFO after it is refused on a connection in subscriber mode, which then fails.
    const sub = new Redis(this.config.redis.url, { ...redisOptions(this.config, true), enableReadyCheck: false });
    sub.on('error', (err: Error) => this.logger.warn(err.message));
    sub.on('message', (channel: string, message: string) => this.published(channel, message));
    let connectedBefore = false;
    // Messages published while the connection was down are lost: once it is back (and resubscribed), every reader
    // reads its stream from its cursor.
    sub.on('ready', () => {
      if (connectedBefore) for (const set of this.readers.values()) for (const r of set) void this.readStream(r);
      connectedBefore = true;
    });
    this.subscriber = sub;
    return sub;
  }

  private published(channel: string, message: string): void {
    const set = this.readers.get(channel);
    const published = set && parsePublished(message);
    if (!published) return;
    let entry: Entry | undefined;
    for (const r of set) {
      if (published.seq <= r.cursor) continue;
      entry ??= entryOf(published.seq, published.raw);
      this.offer(r, entry);
    }
  }

  /** An entry for a reader: taken if it is the next, kept until the ones before it are read otherwise. */
  private offer(r: Reader, e: Entry): void {
    if (e.id <= r.cursor) return;
    if (e.id !== r.cursor + 1) {
      r.ahead.set(e.id, e);
      void this.readStream(r);
      return;
    }
    r.queue.push(e);
    r.cursor = e.id;
    for (let next = r.ahead.get(r.cursor + 1); next; next = r.ahead.get(r.cursor + 1)) {
      r.ahead.delete(next.id);
      r.queue.push(next);
      r.cursor = next.id;
    }
    for (const id of r.ahead.keys()) if (id <= r.cursor) r.ahead.delete(id);
    r.wake?.();
  }

  /** The stream's entries past the reader's cursor, page by page; a call while one runs makes it read once more. */
  private async readStream(r: Reader): Promise<void> {
    if (r.reading) {
      r.again = true;
      return;
    }
    r.reading = true;
    try {
      do {
        r.again = false;
        for (;;) {
          const entries = (await this.redis.xrange(r.key, `(0-${r.cursor}`, '+', 'COUNT', PAGE)) as Array<[string, string[]]>;
          for (const [id, fields] of entries) this.offer(r, entryOf(Number(id.split('-')[1]), fields[1]!));
          if (entries.length < PAGE) break;
        }
      } while (r.again && !this.closed);
    } catch (err) {
      if (this.closed) return;
      this.logger.warn(`Stream read failed: ${err instanceof Error ? err.message : String(err)}`);
      setTimeout(() => {
        if (this.readers.get(r.key)?.has(r)) void this.readStream(r);
      }, RETRY_MS);
    } finally {
      r.reading = false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    for (const set of this.readers.values()) for (const r of set) r.wake?.();
    this.subscriber?.disconnect();
  }
}
