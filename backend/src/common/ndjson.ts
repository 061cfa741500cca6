/**
 * Newline-delimited JSON over one HTTP request: its body read as lines, its answer written as lines. Hand-written
 * because readline has no cap on a line's length, and a body read from a stranger must never grow without bound.
 */
import { PayloadTooLargeException } from '@nestjs/common';
import type { Response } from 'express';
import { errorAnswer } from '../contract/error.filter';

/**
 * The body's lines (blank lines skipped), each at most `maxLineBytes`; past that, a PayloadTooLargeException with
 * `tooLarge` as its message, and nothing more is read.
 */
export async function* ndjsonLines(body: AsyncIterable<Buffer | string>, maxLineBytes: number, tooLarge: string): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of body) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      if (held + nl > maxLineBytes) throw new PayloadTooLargeException(tooLarge);
      const line = (parts.length ? Buffer.concat([...parts, buf.subarray(0, nl)]) : buf.subarray(0, nl)).toString('utf8').trim();
      parts = [];
      held = 0;
      buf = buf.subarray(nl + 1);
      if (line) yield line;
    }
    held += buf.length;
    if (held > maxLineBytes) throw new PayloadTooLargeException(tooLarge);
    if (buf.length) parts.push(buf);
  }
  const last = Buffer.concat(parts).toString('utf8').trim();
  if (last) yield last;
}

/** An answer of JSON lines: 200 and its headers sent at once (no compression, no proxy buffering), then a line per object. */
export class NdjsonAnswer {
  constructor(private readonly res: Response) {}

  open(): void {
    this.res.status(200).set({ 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    this.res.flushHeaders();
  }

  line(value: object): void {
    if (!this.res.writableEnded) this.res.write(`${JSON.stringify(value)}\n`);
  }

  /** A failure as its line, in the Error shape the same failure has as a whole answer. */
  fail(err: unknown): void {
    this.line(errorAnswer(this.res.req.path, err).body);
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}
