/**
 * A frame: what a generator (worker or node) made in up to this many ms goes on as one event, so a lone token waits at
 * most this long, and at many tokens a second each event, Redis entry and SSE write carries a frame's worth of them.
 */
export const FRAME_MS = 20;

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
    private readonly intervalMs = FRAME_MS,
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
