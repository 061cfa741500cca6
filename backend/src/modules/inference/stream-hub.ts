import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { createRedis, REDIS } from '../../redis/redis.module';
import type { StreamEvent } from './streams';

/** One event of a stream: its number, the event, and its JSON as stored (what an SSE frame carries as it is). */
type Entry = { id: number; event: StreamEvent; raw: string };

/**
 * The shortest time between two reads: a read carries every event that arrived for every stream since the last, so at
 * many tokens a second a reader gets one batch per interval (one write to its socket), and a lone token waits at most
 * this long. With the generators' own batching (TokenBatcher, at most 10 ms), a token reaches its reader within 20 ms.
 */
export const HUB_FRAME_MS = 10;

interface Reader {
  key: string;
  /** Sequence number of the last entry this reader has. */
  cursor: number;
  queue: Entry[];
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

/**
 * All event-stream readers of one API process share one blocking Redis connection: a single XREAD BLOCK over
 * every stream someone reads, fanned out to its readers. A new reader wakes the blocked read (CLIENT UNBLOCK
 * from the command connection) so its stream joins at once. Without it, each reader held a connection of its
 * own, and a thousand readers could exhaust a shared Redis.
 */
@Injectable()
export class StreamHub implements OnApplicationShutdown {
  private readonly logger = new Logger('StreamHub');
  private readonly readers = new Set<Reader>();
  private connection: Redis | undefined;
  private connectionId: number | undefined;
  private running = false;
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Events of `key` after `opts.after`, in order, until `done` or `error` (or the reader goes away). */
  async *read(key: string, opts: HubReadOptions): AsyncGenerator<Entry> {
    const reader: Reader = { key, cursor: opts.after, queue: [], wake: null };
    this.readers.add(reader);
    this.ensureLoop();
    await this.interrupt();
    const onAbort = () => reader.wake?.();
    opts.signal?.addEventListener('abort', onAbort);
    try {
      while (!opts.signal?.aborted) {
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
        if (!arrived && opts.onIdle) await opts.onIdle();
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.readers.delete(reader);
    }
  }

  /** How many readers this process serves (for tests and the bench). */
  get size(): number {
    return this.readers.size;
  }

  private ensureLoop(): void {
    if (this.running || this.closed) return;
    this.running = true;
    void this.loop().finally(() => {
      this.running = false;
      if (this.readers.size && !this.closed) this.ensureLoop();
    });
  }

  private async blockingConnection(): Promise<Redis> {
    if (!this.connection) {
      this.connection = createRedis(this.config, true);
      this.connection.on('error', (err: Error) => this.logger.warn(err.message));
      this.connection.on('ready', () => {
        this.connectionId = undefined;
      });
    }
    this.connectionId ??= Number(await this.connection.client('ID'));
    return this.connection;
  }

  /** Wakes the blocked XREAD so it starts again with the current set of streams. */
  private async interrupt(): Promise<void> {
    if (this.connectionId !== undefined) await this.redis.client('UNBLOCK', this.connectionId).catch(() => undefined);
  }

  private async loop(): Promise<void> {
    let lastRead = 0;
    while (this.readers.size && !this.closed) {
      const wait = lastRead + HUB_FRAME_MS - Date.now();
      if (wait > 0) {
        await new Promise((r) => setTimeout(r, wait));
        // The last reader may have left meanwhile: an XREAD of no stream is a syntax error.
        continue;
      }
      lastRead = Date.now();
      // Each stream is read from the oldest position any of its readers still needs.
      const cursors = new Map<string, number>();
      for (const r of this.readers) cursors.set(r.key, Math.min(cursors.get(r.key) ?? Infinity, r.cursor));
      let res: Array<[string, Array<[string, string[]]>]> | null;
      try {
        const conn = await this.blockingConnection();
        res = (await conn.xread(
          'COUNT',
          256,
          'BLOCK',
          2_000,
          'STREAMS',
          ...cursors.keys(),
          ...[...cursors.values()].map((c) => `0-${c}`),
        )) as typeof res;
      } catch (err) {
        if (this.closed) return;
        this.logger.warn(`Stream read failed: ${err instanceof Error ? err.message : String(err)}`);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      for (const [key, entries] of res ?? []) {
        const parsed = entries.map(([id, fields]) => ({
          id: Number(id.split('-')[1]),
          event: JSON.parse(fields[1]!) as StreamEvent,
          raw: fields[1]!,
        }));
        for (const r of this.readers) {
          if (r.key !== key) continue;
          for (const e of parsed) {
            // In order and without gaps: a reader that joined while this read was in flight (from further back)
            // gets its missing events from the next read, which starts at its cursor.
            if (e.id !== r.cursor + 1) continue;
            r.queue.push(e);
            r.cursor = e.id;
          }
          r.wake?.();
        }
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    for (const r of this.readers) r.wake?.();
    this.connection?.disconnect();
  }
}
