/**
 * A job's events over one request (streamNodeJobEvents): each batch is a line of the request's body, answered by a
 * line of its answer, so a reply costs the API one authenticated request instead of one per batch. Where that request
 * cannot open (an API without it, a proxy that holds request bodies until they end), the batches go one request each
 * (sendNodeJobEvents), as the API documents.
 */
import type { NodeJobEvent, SendResult } from './job-events';

/** How long the answer's headers may take before the API (or its proxy) is taken not to stream request bodies. */
export const STREAM_OPEN_TIMEOUT_MS = 10_000;
/** Statuses of an API that does not know the operation: it never will, for this session. */
const UNSUPPORTED = new Set([404, 405, 415]);

export interface EventChannelOptions {
  /** The job's streamNodeJobEvents URL. */
  url: string;
  /** The node's credential, read when the request opens. */
  authorization: () => string | undefined;
  fetch: (request: Request) => Promise<Response>;
  /** One batch as its own request (sendNodeJobEvents). */
  fallback: (events: NodeJobEvent[]) => Promise<SendResult>;
  /** The API cannot stream request bodies: later jobs should not try. */
  onUnsupported: (why: string) => void;
  /** Aborts the request (the agent is stopping). */
  signal: AbortSignal;
  openTimeoutMs?: number;
}

export class EventChannel {
  private mode: 'new' | 'open' | 'calls' = 'new';
  private body: ReadableStreamDefaultController<Uint8Array> | null = null;
  private answer: ReadableStreamDefaultReader<string> | null = null;
  private buffered = '';
  private finished = false;
  private readonly abort = new AbortController();
  private readonly encoder = new TextEncoder();

  constructor(private readonly opts: EventChannelOptions) {}

  /** One batch, as the sender posts it: answered by the API's line for it (or by its own request). */
  async post(events: NodeJobEvent[]): Promise<SendResult> {
    const line = this.encoder.encode(`${JSON.stringify({ events })}\n`);
    if (this.mode === 'calls') return this.opts.fallback(events);
    if (this.mode === 'new') {
      const opened = await this.open(line);
      if (opened !== 'open') return opened === 'calls' ? this.opts.fallback(events) : opened;
    } else {
      try {
        this.body!.enqueue(line);
      } catch {
        return this.broken(events);
      }
    }
    const answer = await this.nextLine();
    if (answer === null) return this.broken(events);
    let value: { stop?: unknown; statusCode?: unknown; message?: unknown };
    try {
      value = JSON.parse(answer) as typeof value;
    } catch {
      return this.broken(events);
    }
    if (typeof value.stop === 'boolean') {
      if (events.some((e) => e.type !== 'token')) this.finish();
      return { kind: 'ok', stop: value.stop };
    }
    this.close();
    const status = typeof value.statusCode === 'number' ? value.statusCode : 500;
    if (status === 401) return { kind: 'revoked' };
    return { kind: 'lost', status, message: typeof value.message === 'string' ? value.message : `status ${status}` };
  }

  /** The reply has ended: the body ends, and the API ends its answer, which is read to its end. */
  private finish(): void {
    this.finished = true;
    this.mode = 'calls';
    try {
      this.body?.close();
    } catch {
      // Already closed.
    }
    this.body = null;
    const answer = this.answer;
    void (async () => {
      try {
        while (answer && !(await answer.read()).done);
      } catch {
        // Cut: nothing more was needed from it.
      }
    })();
  }

  /** Ends the request at once (the job ended, or its sending did), unless the reply's end already ended it. */
  close(): void {
    if (this.finished) return;
    if (this.mode === 'open') this.mode = 'calls';
    try {
      this.body?.close();
    } catch {
      // Already closed.
    }
    this.body = null;
    this.abort.abort();
  }

  /** Opens the request with its first line: 'open' once its answer's headers say 200, else what to do with the batch. */
  private async open(first: Uint8Array): Promise<'open' | 'calls' | SendResult> {
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.body = c;
        c.enqueue(first);
      },
    });
    // The wait for the answer's headers is bounded, not the request: a reply streams for as long as it takes.
    const openTimeoutMs = this.opts.openTimeoutMs ?? STREAM_OPEN_TIMEOUT_MS;
    const opening = new AbortController();
    const timer = setTimeout(() => opening.abort(), openTimeoutMs);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-ndjson', Accept: 'application/x-ndjson' };
    const authorization = this.opts.authorization();
    if (authorization) headers.Authorization = `Bearer ${authorization}`;
    let res: Response;
    try {
      const request = new Request(this.opts.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.any([this.abort.signal, this.opts.signal, opening.signal]),
        duplex: 'half',
      } as RequestInit);
      res = await this.opts.fetch(request);
    } catch (err) {
      this.close();
      this.mode = 'calls';
      if (this.opts.signal.aborted) throw err;
      // Headers that never came: a proxy holding the body until it ends. Nothing of it reached the API.
      if (opening.signal.aborted) this.opts.onUnsupported(`no answer within ${openTimeoutMs / 1000} s`);
      return 'calls';
    } finally {
      clearTimeout(timer);
    }
    if (res.status === 200 && res.body) {
      this.mode = 'open';
      this.answer = res.body.pipeThrough(new TextDecoderStream()).getReader();
      return 'open';
    }
    const error = (await res.json().catch(() => ({}))) as { message?: unknown };
    this.close();
    this.mode = 'calls';
    if (res.status === 401) return { kind: 'revoked' };
    // Not this node's job (403), or ended (409): as the same answer to a batch's own request.
    if (res.status === 403 || res.status === 409) {
      return { kind: 'lost', status: res.status, message: typeof error.message === 'string' ? error.message : `status ${res.status}` };
    }
    if (UNSUPPORTED.has(res.status)) this.opts.onUnsupported(`answered ${res.status}`);
    // Anything else (busy, a transient failure): this job's batches go one request each, which retry as calls do.
    return 'calls';
  }

  /** The answer's next line; null once it has ended or broken. */
  private async nextLine(): Promise<string | null> {
    for (;;) {
      const nl = this.buffered.indexOf('\n');
      if (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        if (line.trim()) return line;
        continue;
      }
      try {
        const { value, done } = await this.answer!.read();
        if (done) return this.buffered.trim() ? this.take() : null;
        this.buffered += value;
      } catch {
        return null;
      }
    }
  }

  private take(): string {
    const rest = this.buffered;
    this.buffered = '';
    return rest;
  }

  /**
   * The request broke before this batch was answered: whether the API took it is unknown, so it goes again as its own
   * request (as a call that timed out is retried), and the job's later batches go one request each.
   */
  private broken(events: NodeJobEvent[]): Promise<SendResult> {
    this.close();
    this.mode = 'calls';
    return this.opts.fallback(events);
  }
}
