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
  const fallbacks: NodeJobEvent[][] = [];
  const unsupported: string[] = [];
  const ch = new EventChannel({
    url,
    authorization: () => 'glb_node_secret',
    fetch: (r) => fetch(r),
    fallback: async (events) => {
      fallbacks.push(events);
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

describe('a job’s events over one request', () => {
  it('each batch is a line of one request, answered by a line before the next goes; a stop comes back; the body ends after done', async () => {
    const seen: unknown[] = [];
    let ended = false;
    const api = await server(async (req, res, lines) => {
      open(res);
      for await (const line of lines) {
        seen.push(JSON.parse(line));
        res.write(`${JSON.stringify({ stop: seen.length === 2 })}\n`);
      }
      ended = true;
      res.end();
    });
    const { ch, fallbacks } = channel(api.url);
    expect(await ch.post([token('a')])).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([token('b'), token('c')])).toEqual({ kind: 'ok', stop: true });
    expect(await ch.post([done])).toEqual({ kind: 'ok', stop: false });
    await new Promise((r) => setTimeout(r, 100));
    expect(ended).toBe(true);
    expect(seen).toEqual([{ events: [token('a')] }, { events: [token('b'), token('c')] }, { events: [done] }]);
    expect(api.requests).toEqual(['POST /api/nodes/jobs/j1/events/stream Bearer glb_node_secret application/x-ndjson']);
    expect(fallbacks).toEqual([]);
    await api.close();
  });

  it('a reply that streams for longer than the wait for the headers is not cut by it', async () => {
    const api = await server(async (_req, res, lines) => {
      open(res);
      for await (const _ of lines) res.write('{"stop":false}\n');
      res.end();
    });
    const { ch, fallbacks, unsupported } = channel(api.url, 200);
    expect(await ch.post([token('a')])).toEqual({ kind: 'ok', stop: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(await ch.post([token('b')])).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([done])).toEqual({ kind: 'ok', stop: false });
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
      expect(await ch.post([token('a')])).toEqual(expected);
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
      expect(await ch.post([token('a')])).toEqual({ kind: 'lost', status, message: 'Not yours' });
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
    expect(await ch.post([token('a')])).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([[token('a')]]);
    expect(unsupported).toEqual(['no answer within 0.3 s']);
    expect(await ch.post([token('b')])).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([[token('a')], [token('b')]]);
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
      expect(await ch.post([token('a')])).toEqual({ kind: 'ok', stop: false });
      expect(await ch.post([token('b')])).toEqual({ kind: 'ok', stop: false });
      expect(fallbacks).toEqual([[token('a')], [token('b')]]);
      expect(unsupported).toEqual(told);
      await api.close();
    }
  });

  it('a request cut before a batch is answered: that batch goes again by its own request, and the rest of the job too', async () => {
    const api = await server(async (req, res, lines) => {
      open(res);
      let n = 0;
      for await (const _ of lines) {
        if (++n === 2) {
          req.socket.destroy();
          return;
        }
        res.write('{"stop":false}\n');
      }
    });
    const { ch, fallbacks } = channel(api.url);
    expect(await ch.post([token('a')])).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([token('b')])).toEqual({ kind: 'ok', stop: false });
    expect(await ch.post([token('c')])).toEqual({ kind: 'ok', stop: false });
    expect(fallbacks).toEqual([[token('b')], [token('c')]]);
    await api.close();
  });
});
