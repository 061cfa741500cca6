import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventChannel } from '../src/event-channel';
import type { NodeJobEvent, SendResult } from '../src/job-events';

const token = (text: string): NodeJobEvent => ({ type: 'token', text });
const done: NodeJobEvent = { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 2 }, stop_reason: 'stop' };

/** A real HTTP server standing in for the API's streamNodeJobEvents (or a proxy in front of it). */
async function server(handle: (req: IncomingMessage, res: ServerResponse, lines: AsyncIterable<string>) => void | Promise<void>) {
  const requests: string[] = [];
  const srv: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization} ${req.headers['content-type']}`);
    async function* lines() {
      let buf = '';
      for await (const chunk of req) {
        buf += String(chunk);
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          yield buf.slice(0, nl);
          buf = buf.slice(nl + 1);
        }
      }
    }
    // A request the test's end cuts off (closeAllConnections) ends its handler with an error nobody needs.
    void Promise.resolve(handle(req, res, lines())).catch(() => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/nodes/jobs/j1/events/stream`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      }),
  };
}

/** A channel to `url` whose fallback (one request per batch) is recorded. */
function channel(url: string, openTimeoutMs = 5_000) {
  const fallbacks: Seen = [];
  const unsupported: string[] = [];
  const ch = new EventChannel({
    url,
    authorization: () => 'glb_node_secret',
    fetch: (r) => fetch(r),
    fallback: async (events, from) => {
      fallbacks.push({ events, from });
      return { kind: 'ok', stop: false } satisfies SendResult;
    },
    onUnsupported: (why) => unsupported.push(why),
    signal: new AbortController().signal,
    openTimeoutMs,
  });
  return { ch, fallbacks, unsupported };
}

const open = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.flushHeaders();
};

/** The lines a test server answered, parsed. */
type Seen = Array<{ events: NodeJobEvent[]; from: number }>;

describe('a job’s events over one request', () => {
  it('lines go one after another without waiting for answers; a stop comes back; the body ends after done, whose answer ends it', async () => {
    const seen: Seen = [];
    let ended = false;
    let stopNow!: () => void;
    const stopped = new Promise<void>((r) => (stopNow = r));
    const api = await server(async (_req, res, lines) => {
      open(res);
      for await (const line of lines) {
        seen.push(JSON.parse(line));
        // As the API does: only the first line after a stop, and the last, are answered.
        if (seen.length === 2) await stopped;
        if (seen.length === 2) res.write('{"stop":true,"taken":3}\n');
        if (seen.at(-1)!.events.some((e) => e.type !== 'token')) res.write('{"stop":true,"taken":3}\n');
      }
      ended = true;
      res.end();
    });
    const { ch, fallbacks } = channel(api.url);
    // Neither waits for an answer (none comes for the second until the stop).
    expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([token('b'), token('c')], 1)).toEqual({ kind: 'ok', stop: false });
    stopNow();
    await new Promise((r) => setTimeout(r, 100));
    expect(await ch.post([token('d')], 3)).toEqual({ kind: 'ok', stop: true });
    expect(await ch.post([done], 4)).toEqual({ kind: 'ok', stop: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(ended).toBe(true);
    expect(seen).toEqual([
      { events: [token('a')], from: 0 },
      { events: [token('b'), token('c')], from: 1 },
      { events: [token('d')], from: 3 },
      { events: [done], from: 4 },
    ]);
    expect(api.requests).toEqual(['POST /api/nodes/jobs/j1/events/stream Bearer glb_node_secret application/x-ndjson']);
    expect(fallbacks).toEqual([]);
    await api.close();
  });

  it('a reply that streams for longer than the wait for the headers is not cut by it', async () => {
    const api = await server(async (_req, res, lines) => {
      open(res);
      for await (const line of lines) if (line.includes('"done"')) res.write('{"stop":false,"taken":2}\n');
      res.end();
    });
    const { ch, fallbacks, unsupported } = channel(api.url, 200);
    expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(await ch.post([token('b')], 1)).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([done], 2)).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([]);
    expect(unsupported).toEqual([]);
    expect(api.requests).toHaveLength(1);
    await api.close();
  });

  it('an Error line ends the job’s sending: 409 as lost, 401 as revoked', async () => {
    for (const [statusCode, expected] of [
      [409, { kind: 'lost', status: 409, message: 'Job j1 has already ended' }],
      [401, { kind: 'revoked' }],
    ] as const) {
      const api = await server(async (_req, res, lines) => {
        open(res);
        for await (const _ of lines) {
          res.end(`${JSON.stringify({ statusCode, message: 'Job j1 has already ended', error: 'x' })}\n`);
          break;
        }
      });
      const { ch, fallbacks } = channel(api.url);
      await ch.post([token('a')], 0);
      await new Promise((r) => setTimeout(r, 100));
      // Heard by the next line, which goes nowhere.
      expect(await ch.post([token('b')], 1)).toEqual(expected);
      expect(await ch.post([done], 2)).toEqual(expected);
      expect(fallbacks).toEqual([]);
      await api.close();
    }
  });

  it('a job refused before the stream opens (403, 409) is lost, with nothing sent a request each', async () => {
    for (const status of [403, 409]) {
      const api = await server((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: status, message: 'Not yours', error: 'x' }));
      });
      const { ch, fallbacks } = channel(api.url);
      expect(await ch.post([token('a')], 0)).toEqual({ kind: 'lost', status, message: 'Not yours' });
      expect(fallbacks).toEqual([]);
      await api.close();
    }
  });

  it('a proxy that holds the body until it ends: no headers in time, so the batch goes once by its own request, and so do later jobs', async () => {
    let received = '';
    const proxy = await server((req, res) => {
      // What nginx does with proxy_request_buffering on: nothing is passed on (or answered) before the body ends.
      req.on('data', (d) => (received += String(d)));
      req.on('end', () => res.end('{"stop":false}\n'));
    });
    const { ch, fallbacks, unsupported } = channel(proxy.url, 300);
    expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([{ events: [token('a')], from: 0 }]);
    expect(unsupported).toEqual(['no answer within 0.3 s']);
    expect(await ch.post([token('b')], 1)).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([
      { events: [token('a')], from: 0 },
      { events: [token('b')], from: 1 },
    ]);
    expect(proxy.requests).toHaveLength(1);
    await proxy.close();
  });

  it('an API without the operation (404) is told once; a busy one (503) only sends this job’s batches a request each', async () => {
    for (const [status, told] of [
      [404, ['answered 404']],
      [503, []],
    ] as const) {
      const api = await server((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
      const { ch, fallbacks, unsupported } = channel(api.url);
      expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
      expect(await ch.post([token('b')], 1)).toEqual({ kind: 'ok', stop: false });
      expect(fallbacks).toEqual([
        { events: [token('a')], from: 0 },
        { events: [token('b')], from: 1 },
      ]);
      expect(unsupported).toEqual(told);
      await api.close();
    }
  });

  it('a request cut mid-reply: every line since the last ack goes again by its own request (the API skips what it took), then the rest of the job', async () => {
    const seen: Seen = [];
    const api = await server(async (req, res, lines) => {
      open(res);
      for await (const line of lines) {
        seen.push(JSON.parse(line));
        // A stop's ack says what was taken: the lines within it never go again.
        if (seen.length === 1) res.write('{"stop":true,"taken":1}\n');
        if (seen.length === 3) {
          req.socket.destroy();
          return;
        }
      }
    });
    const { ch, fallbacks } = channel(api.url);
    expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
    await new Promise((r) => setTimeout(r, 100));
    expect(await ch.post([token('b')], 1)).toEqual({ kind: 'ok', stop: true });
    await ch.post([token('c')], 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(await ch.post([token('d')], 3)).toEqual({ kind: 'ok', stop: true });
    expect(await ch.post([done], 4)).toEqual({ kind: 'ok', stop: true });
    expect(seen.map((l) => l.from)).toEqual([0, 1, 2]);
    expect(fallbacks).toEqual([
      { events: [token('b')], from: 1 },
      { events: [token('c')], from: 2 },
      { events: [token('d')], from: 3 },
      { events: [done], from: 4 },
    ]);
    await api.close();
  });

  it('an answer that ends before the last line is answered is a break: the last line goes again by its own request', async () => {
    const api = await server(async (_req, res, lines) => {
      open(res);
      for await (const line of lines) if (line.includes('"done"')) break;
      res.end();
    });
    const { ch, fallbacks } = channel(api.url);
    expect(await ch.post([token('a')], 0)).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([done], 1)).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([
      { events: [token('a')], from: 0 },
      { events: [done], from: 1 },
    ]);
    await api.close();
  });
});
