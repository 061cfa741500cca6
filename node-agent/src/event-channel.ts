/**
 * A job's events over one request (streamNodeJobEvents): each batch is a line of the request's body, placed among the
 * job's token events by its `from`, so lines go one after another without waiting; the API answers only the first
 * that finds the reply stopped, a failure, and the last line. A reply thus costs the API one authenticated request and
 * no answer per frame. Where that request cannot open (an API without it, a proxy that holds request bodies until
 * they end), the batches go one request each (sendNodeJobEvents), as the API documents; where it breaks, the lines
 * not known taken go again that way, and the API skips what it took.
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
  fallback: (events: NodeJobEvent[], from: number) => Promise<SendResult>;
  /** The API cannot stream request bodies: later jobs should not try. */
  onUnsupported: (why: string) => void;
  /** Aborts the request (the agent is stopping). */
  signal: AbortSignal;
  openTimeoutMs?: number;
}

/** A line sent and not yet known taken: sent again by its own request if the stream breaks. */
interface Line {
  events: NodeJobEvent[];
  from: number;
}

const tokenCount = (events: NodeJobEvent[]): number => events.filter((e) => e.type === 'token').length;

export class EventChannel {
  private mode: 'new' | 'open' | 'calls' = 'new';
  private body: ReadableStreamDefaultController<Uint8Array> | null = null;
  private answer: ReadableStreamDefaultReader<string> | null = null;
  private reading: Promise<void> | null = null;
  private readonly unconfirmed: Line[] = [];
  private stopped = false;
  /** An Error line: the job is no longer this node's, or the node was revoked. */
  private failed: SendResult | null = null;
  /** The answer ended before the last line was answered (cut, or no answer at all): the stream is broken. */
  private broke = false;
  private lastSent = false;
  /** Acks read since the last line was sent: the answer to it is among them. */
  private acksAfterLast = 0;
  private wakeRoom: (() => void) | null = null;
  private readonly abort = new AbortController();
  private readonly encoder = new TextEncoder();

  constructor(private readonly opts: EventChannelOptions) {}

  /**
   * One batch, as the sender posts it: `from` is how many of the job's token events went before it. A batch that does
   * not end the reply resolves once it is on its way (with the stop heard so far); the last once it is answered.
   */
  async post(events: NodeJobEvent[], from: number): Promise<SendResult> {
    if (this.failed) return this.failed;
    if (this.mode === 'calls') {
      this.unconfirmed.push({ events, from });
      return this.sendAgain();
    }
    const last = events.some((e) => e.type !== 'token');
    const line = this.encoder.encode(`${JSON.stringify({ events, from })}\n`);
    if (this.mode === 'new') {
      const opened = await this.open(line);
      if (opened !== 'open') return opened === 'calls' ? this.opts.fallback(events, from) : opened;
      this.reading = this.readAnswers();
    } else {
      try {
        this.body!.enqueue(line);
      } catch {
        this.broke = true;
      }
    }
    this.unconfirmed.push({ events, from });
    if (!last) {
      await this.room();
      return this.outcome();
    }
    this.lastSent = true;
    this.acksAfterLast = 0;
    this.endBody();
    await this.reading;
    if (this.failed) return this.failed;
    if (!this.broke) {
      this.mode = 'calls';
      this.unconfirmed.length = 0;
      return { kind: 'ok', stop: this.stopped };
    }
    return this.outcome();
  }

  /** What the stream has said so far: a failure, a break (the unconfirmed lines then go again by calls), or on. */
  private outcome(): Promise<SendResult> | SendResult {
    if (this.failed) return this.failed;
    if (!this.broke) return { kind: 'ok', stop: this.stopped };
    this.close();
    this.mode = 'calls';
    return this.sendAgain();
  }

  /**
   * The lines not known taken, each by its own request, in order (the API skips the events it took by `from`): whether
   * the API took a line cut off with the stream is unknown, as for a call that timed out.
   */
  private async sendAgain(): Promise<SendResult> {
    while (this.unconfirmed.length > 0) {
      const line = this.unconfirmed[0]!;
      const result = await this.opts.fallback(line.events, line.from);
      if (result.kind !== 'ok') {
        this.unconfirmed.length = 0;
        this.failed = result;
        return result;
      }
      this.unconfirmed.shift();
      this.stopped ||= result.stop;
    }
    return { kind: 'ok', stop: this.stopped };
  }

  /** Waits while the request's body holds a line not yet taken by the connection (its socket is full). */
  private async room(): Promise<void> {
    while (this.mode === 'open' && this.body && (this.body.desiredSize ?? 1) <= 0 && !this.broke && !this.failed) {
      await new Promise<void>((r) => (this.wakeRoom = r));
    }
  }

  private wake(): void {
    const wake = this.wakeRoom;
    this.wakeRoom = null;
    wake?.();
  }

  /** Reads the answer's lines as they come (acks and errors) until it ends; then whether it ended as it should. */
  private async readAnswers(answer: ReadableStreamDefaultReader<string> | null = this.answer): Promise<void> {
    let buffered = '';
    let clean = false;
    try {
      for (;;) {
        const { value, done } = await answer!.read();
        if (done) {
          clean = true;
          break;
        }
        buffered += value;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          this.answered(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
        }
      }
    } catch {
      // Cut: what was answered before stands.
    }
    if (clean) this.answered(buffered);
    // Only an answer that ends after the last line's ack (or an Error) is whole; anything else is a break.
    if (!this.failed && !(clean && this.lastSent && this.acksAfterLast > 0)) this.broke = true;
    if (this.failed || this.broke) this.close();
    this.wake();
  }

  private answered(line: string): void {
    if (!line.trim()) return;
    let value: { stop?: unknown; taken?: unknown; statusCode?: unknown; message?: unknown };
    try {
      value = JSON.parse(line) as typeof value;
    } catch {
      return;
    }
    if (typeof value.stop === 'boolean') {
      this.stopped ||= value.stop;
      if (typeof value.taken === 'number') this.confirm(value.taken);
      if (this.lastSent) this.acksAfterLast++;
      return;
    }
    const status = typeof value.statusCode === 'number' ? value.statusCode : 500;
    this.failed =
      status === 401
        ? { kind: 'revoked' }
        : { kind: 'lost', status, message: typeof value.message === 'string' ? value.message : `status ${status}` };
  }

  /** The API has taken the job's first `taken` token events: the lines within them need never go again. */
  private confirm(taken: number): void {
    while (this.unconfirmed.length > 0) {
      const line = this.unconfirmed[0]!;
      if (line.from + tokenCount(line.events) > taken || line.events.some((e) => e.type !== 'token')) break;
      this.unconfirmed.shift();
    }
  }

  /** The request's body ends (its last line is in it): the API answers it and ends the answer. */
  private endBody(): void {
    try {
      this.body?.close();
    } catch {
      // Already closed.
    }
    this.body = null;
  }

  /** Ends the request at once (the job ended, or its sending did). */
  close(): void {
    if (this.mode === 'open') this.mode = 'calls';
    this.endBody();
    this.abort.abort();
    this.wake();
  }
  /** Opens the request with its first line: 'open' once its answer's headers say 200, else what to do with the batch. */
  private async open(first: Uint8Array): Promise<'open' | 'calls' | SendResult> {
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.body = c;
        c.enqueue(first);
      },
      // The connection took what the body held: a sender waiting for room goes on.
      pull: () => this.wake(),
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
}
