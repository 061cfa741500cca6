/**
 * A frame: what a generator (worker or node) made in up to this many ms goes on as one event, so a lone token waits at
 * most this long, and at many tokens a second each event, Redis entry and SSE write carries a frame's worth of them.
 */
export const FRAME_MS = 20;

/**
 * The frame ticks every batcher of a process with the same interval shares: one timer per tick ends the frames of all
 * its streams at once, so what they send leaves together (one pipelined write to Redis for a worker's streams, one
 * burst of lines that the API reads, scripts and relays in one turn for a node's).
 */
class FrameClock {
  private readonly waiting = new Set<TokenBatcher>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs: number) {}

  /** `b` is flushed at the next tick: the next multiple of the interval on the clock. */
  join(b: TokenBatcher): void {
    this.waiting.add(b);
    if (this.timer) return;
    this.timer = setTimeout(() => this.tick(), this.intervalMs - (Date.now() % this.intervalMs));
  }

  leave(b: TokenBatcher): void {
    this.waiting.delete(b);
    if (this.waiting.size || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    this.timer = undefined;
    const due = [...this.waiting];
    this.waiting.clear();
    for (const b of due) b.flush();
  }
}

const clocks = new Map<number, FrameClock>();
const clockOf = (intervalMs: number): FrameClock => {
  let clock = clocks.get(intervalMs);
  if (!clock) clocks.set(intervalMs, (clock = new FrameClock(intervalMs)));
  return clock;
};

/**
 * Coalesces generated text into token events: a piece after a quiet interval goes out at once, later ones at the
 * process's shared frame ticks (a fast model on a fast machine makes 1,000+ tokens/s; one Redis entry, SSE frame and
 * client update per token costs more than the generation itself). `flush()` before the final event.
 */
export class TokenBatcher {
  private pending = '';
  private last = -Infinity;
  private waiting = false;
  private readonly clock: FrameClock;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = FRAME_MS,
  ) {
    this.clock = clockOf(intervalMs);
  }

  push(text: string): void {
    this.pending += text;
    if (this.waiting) return;
    if (Date.now() - this.last >= this.intervalMs) this.flush();
    else {
      this.waiting = true;
      this.clock.join(this);
    }
  }

  flush(): void {
    if (this.waiting) this.clock.leave(this);
    this.waiting = false;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.last = Date.now();
    this.send(text);
  }
}
