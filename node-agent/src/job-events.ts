/**
 * A job's events on their way to the API: in order, one batch posted at a time, and whatever accumulated meanwhile goes
 * in the next (at most 512 events and 256 KiB per call, the API's limits; an event past that alone, such as a done
 * event with a long reply's logprobs, goes in a call of its own). Each batch says where it starts among the job's
 * token events (`from`), so one sent again is never taken twice.
 */
import constants from '@glob/contract/constants.json';
import type { Schemas } from './contract';

export type NodeJobEvent = Schemas['NodeJobEvent'];

/** The API's caps on one events call, from the spec (NodeJobEvents). */
export const MAX_EVENTS_PER_CALL = constants.nodeJobEvents.maxEvents;
export const MAX_BYTES_PER_CALL = constants.nodeJobEvents.maxTextBytes;
/** Token text per event: well below the spec's 65,536 characters, and a call's size limit even when escaped. */
const MAX_TOKEN_CHARS = 16_384;
/** `{"events":[` … `]}` */
const ENVELOPE_BYTES = 13;

/** What one call answered: taken (and whether the requester stopped), the job is gone, or the node is revoked. */
export type SendResult = { kind: 'ok'; stop: boolean } | { kind: 'lost'; status: number; message: string } | { kind: 'revoked' };

export type SenderState = 'open' | 'lost' | 'revoked' | 'closed';

export interface SenderHooks {
  /** The requester stopped the reply (called once). */
  onStop?: () => void;
  /** The job is no longer this node's (403/409/413): nothing more is sent. */
  onLost?: (status: number, message: string) => void;
  onRevoked?: () => void;
}

const eventBytes = (e: NodeJobEvent): number => Buffer.byteLength(JSON.stringify(e)) + 1;

/** Splits text into token events the API accepts (no NUL characters, bounded length, surrogate pairs kept whole). */
export function tokenEvents(text: string): NodeJobEvent[] {
  const clean = text.replaceAll('\u0000', '');
  const events: NodeJobEvent[] = [];
  for (let i = 0; i < clean.length;) {
    let end = Math.min(clean.length, i + MAX_TOKEN_CHARS);
    const last = clean.charCodeAt(end - 1);
    if (end < clean.length && last >= 0xd800 && last <= 0xdbff) end--;
    events.push({ type: 'token', text: clean.slice(i, end) });
    i = end;
  }
  return events;
}

/** The next call's events: as many queued events as the limits allow (always at least one). */
export function takeBatch(queue: NodeJobEvent[]): NodeJobEvent[] {
  let bytes = ENVELOPE_BYTES;
  let n = 0;
  while (n < queue.length && n < MAX_EVENTS_PER_CALL) {
    const b = eventBytes(queue[n]!);
    if (n > 0 && bytes + b > MAX_BYTES_PER_CALL) break;
    bytes += b;
    n++;
  }
  return queue.splice(0, n);
}

export class EventSender {
  private readonly queue: NodeJobEvent[] = [];
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private _state: SenderState = 'open';
  /** The job's token events posted so far: the next batch's `from`. */
  private posted = 0;

  constructor(
    private readonly post: (events: NodeJobEvent[], from: number) => Promise<SendResult>,
    private readonly hooks: SenderHooks = {},
  ) {}

  get state(): SenderState {
    return this._state;
  }

  pushText(text: string): void {
    for (const e of tokenEvents(text)) this.push(e);
  }

  push(event: NodeJobEvent): void {
    if (this._state !== 'open') return;
    this.queue.push(event);
    this.kick();
  }

  /** Resolves once everything queued was sent (or sending ended); the state says how it ended. */
  async drain(): Promise<SenderState> {
    while (this.inFlight) await this.inFlight;
    return this._state;
  }

  /** Sends nothing more (the node is stopping); resolves once the call in flight, if any, has settled. */
  async close(): Promise<void> {
    if (this._state === 'open') this._state = 'closed';
    this.queue.length = 0;
    await this.drain();
  }

  private kick(): void {
    if (this.inFlight) return;
    this.inFlight = this.pump().finally(() => {
      this.inFlight = null;
      // Pushed after the loop looked at the queue for the last time.
      if (this.queue.length > 0 && this._state === 'open') this.kick();
    });
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0 && this._state === 'open') {
      const batch = takeBatch(this.queue);
      const from = this.posted;
      this.posted += batch.filter((e) => e.type === 'token').length;
      let result: SendResult;
      try {
        result = await this.post(batch, from);
      } catch {
        // Only a stopping agent aborts a call.
        this.end('closed');
        return;
      }
      if (result.kind === 'ok') {
        if (result.stop && !this.stopped) {
          this.stopped = true;
          this.hooks.onStop?.();
        }
      } else if (result.kind === 'lost') {
        if (this.end('lost')) this.hooks.onLost?.(result.status, result.message);
      } else if (this.end('revoked')) this.hooks.onRevoked?.();
    }
  }

  private end(state: Exclude<SenderState, 'open'>): boolean {
    this.queue.length = 0;
    if (this._state !== 'open') return false;
    this._state = state;
    return true;
  }
}
