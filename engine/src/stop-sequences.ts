/**
 * Cuts generated text at the first of the request's stop sequences. Text that could still become a stop
 * sequence is held back until the next piece decides, so the requester never sees part of one.
 */
export class StopSequences {
  private held = '';
  /** True once a stop sequence was written: nothing more is emitted. */
  matched = false;
  /** Characters emitted so far (the answer's length once it is cut). */
  shown = 0;
  private readonly emit: (text: string) => void;

  constructor(
    private readonly stops: string[],
    emit: (text: string) => void,
  ) {
    this.emit = (text) => {
      this.shown += text.length;
      emit(text);
    };
  }

  /** Takes the next piece; true when it completed a stop sequence (the generation should stop now). */
  push(text: string): boolean {
    if (this.matched) return true;
    const buf = this.held + text;
    let cut = -1;
    for (const stop of this.stops) {
      const at = buf.indexOf(stop);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.matched = true;
      this.held = '';
      if (cut > 0) this.emit(buf.slice(0, cut));
      return true;
    }
    let keep = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, buf.length); n > keep; n--) {
        if (buf.endsWith(stop.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    this.held = buf.slice(buf.length - keep);
    if (buf.length > keep) this.emit(buf.slice(0, buf.length - keep));
    return false;
  }

  /** The generation ended without a stop sequence: what was held back is part of the answer. */
  flush(): void {
    if (this.held && !this.matched) this.emit(this.held);
    this.held = '';
  }
}
