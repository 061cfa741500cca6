import type { Response } from 'express';

/** Starts a `text/event-stream` answer: no caching or proxy buffering, so each event reaches the client as it is written. */
export function openEventStream(res: Response): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
}
