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
