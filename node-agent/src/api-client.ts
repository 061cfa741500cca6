/**
 * The node's only way to the platform: the API over HTTP, through an openapi-fetch client typed by the
 * generated contract, with the node credential as its Bearer token. Calls that meet an unreachable API (no
 * connection, a timeout, 5xx, 429) retry with backoff: 1 s, doubling up to 30 s, or later when the answer's
 * Retry-After says so.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { paths } from '@glob/contract';
import createClient from 'openapi-fetch';

export type NodeApi = ReturnType<typeof createNodeApi>;

/** `credential()` is read on each call, so pairing can set it after the client exists. */
export function createNodeApi(
  baseUrl: string,
  credential: () => string | undefined,
  fetchImpl: (request: Request) => Promise<Response> = (r) => globalThis.fetch(r),
) {
  const client = createClient<paths>({ baseUrl, fetch: (request) => fetchImpl(request) });
  client.use({
    onRequest({ request }) {
      const c = credential();
      if (c) request.headers.set('Authorization', `Bearer ${c}`);
      return request;
    },
  });
  return client;
}

/** Retry delays: `minMs`, doubling up to `maxMs`; `reset()` after a success. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs = 1_000,
    private readonly maxMs = 30_000,
  ) {}

  next(): number {
    const delay = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return delay;
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** A status that says the API is away or busy, not that the request was wrong. */
export const isTransientStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/** The longest Retry-After a call waits for. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** What an answer's Retry-After asks for (seconds or an HTTP date), in ms, at most an hour; null without one. */
export function retryAfterMs(res: Response, now = Date.now()): number | null {
  const raw = res.headers.get('retry-after')?.trim();
  if (!raw) return null;
  const ms = /^\d+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw) - now;
  return Number.isFinite(ms) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)) : null;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export interface CallOptions {
  /** Aborts the call and any wait between retries (the agent is stopping). */
  signal?: AbortSignal;
  /** Per attempt. */
  timeoutMs?: number;
  /** false: one attempt; an unreachable API answers `null` instead of retrying. */
  retry?: boolean;
}

/**
 * Tracks whether the API is reachable, so the log says so once per outage ("API unreachable, retrying in 4 s"
 * … "API reachable again") whichever call meets it.
 */
export class Connection {
  private down = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly backoff: () => Backoff = () => new Backoff(),
  ) {}

  get reachable(): boolean {
    return !this.down;
  }

  /** Resolves with the API's answer (any non-transient status); throws only when `signal` aborts it. */
  call<T extends { response: Response }>(fn: (signal: AbortSignal) => Promise<T>, opts: CallOptions & { retry: false }): Promise<T | null>;
  call<T extends { response: Response }>(fn: (signal: AbortSignal) => Promise<T>, opts?: CallOptions): Promise<T>;
  async call<T extends { response: Response }>(fn: (signal: AbortSignal) => Promise<T>, opts: CallOptions = {}): Promise<T | null> {
    const backoff = this.backoff();
    for (;;) {
      opts.signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? 15_000);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let why: string;
      let asked: number | null = null;
      try {
        const res = await fn(signal);
        if (!isTransientStatus(res.response.status)) {
          if (this.down) this.log('API reachable again');
          this.down = false;
          return res;
        }
        why = res.response.status === 429 ? 'API busy (429)' : `API unavailable (${res.response.status})`;
        asked = retryAfterMs(res.response);
        // The body is not needed; free the connection.
        await res.response.body?.cancel().catch(() => undefined);
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason ?? err;
        why = 'API unreachable';
      }
      if (opts.retry === false) {
        if (!this.down) this.log(why);
        this.down = true;
        return null;
      }
      this.down = true;
      const delay = Math.max(backoff.next(), asked ?? 0);
      this.log(`${why}, retrying in ${seconds(delay)}`);
      await sleep(delay, undefined, opts.signal ? { signal: opts.signal } : {});
    }
  }
}
