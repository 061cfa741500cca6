import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createRedis } from '../../src/redis/redis.module';
import { STREAM_MAX_EVENTS, STREAM_TEXT_MAX_BYTES, TokenStream } from '../../src/modules/inference/streams';

const DONE = { type: 'done', success: true, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, stop_reason: 'stop' } as const;

describe('TokenStream on real Redis', () => {
  const prefix = `globtest:token-stream:${randomUUID()}`;
  let redis: Redis;
  let n = 0;
  const stream = () => new TokenStream(redis, TokenStream.key(prefix, `s${++n}`));

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('appends on the shared auto-pipelining client in the same turn as other commands (its script defined with the client)', async () => {
    const shared = createRedis({ redis: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix } });
    try {
      // As the app's client: commands only once it is ready (it queues none while offline).
      await new Promise((ready) => shared.once('ready', ready));
      const s = new TokenStream(shared, TokenStream.key(prefix, `s${++n}`));
      // A command opens this turn's pipeline before the first append: a script defined only now would be missing from it.
      const [, ...ids] = await Promise.all([shared.get(`${prefix}:nothing`), ...['a', 'b', 'c'].map((text) => s.append({ type: 'token', text }))]);
      expect(ids).toEqual(['0-1', '0-2', '0-3']);
      expect(await s.text()).toBe('abc');
    } finally {
      shared.disconnect();
    }
  });

  it('trims a stream that grows past STREAM_MAX_EVENTS, keeping the newest events and their ids', async () => {
    const s = stream();
    const total = STREAM_MAX_EVENTS + 500;
    await Promise.all(Array.from({ length: total }, (_, i) => s.append({ type: 'token', text: `${i + 1},` })));
    const length = await redis.xlen(s.key);
    // MAXLEN ~ trims by whole macro nodes: a little more than the cap may remain, never the whole stream.
    expect(length).toBeGreaterThanOrEqual(STREAM_MAX_EVENTS);
    expect(length).toBeLessThan(total);
    // The oldest events went, the newest stay: a writer continuing after a restart still numbers after the last.
    expect((await redis.xrange(s.key, '-', '+', 'COUNT', 1))[0]![0]).not.toBe('0-1');
    expect(await new TokenStream(redis, s.key).lastSeq()).toBe(total);
  }, 30_000);

  it('numbers events itself: writers on separate connections (separate API processes) appending at once leave no gap and no duplicate', async () => {
    const key = stream().key;
    const others = [new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')];
    try {
      const writers = others.map((r) => new TokenStream(r, key));
      await Promise.all(writers.flatMap((w, k) => Array.from({ length: 200 }, (_, i) => w.append({ type: 'token', text: `${k}:${i};` }))));
      const ids = (await redis.xrange(key, '-', '+')).map(([id]) => id);
      expect(ids).toEqual(Array.from({ length: 400 }, (_, i) => `0-${i + 1}`));
      expect(await writers[0]!.lastSeq()).toBe(400);
    } finally {
      await Promise.all(others.map((r) => r.quit()));
    }
  });

  it('returns at most maxBytes of token text, cut on a character boundary', async () => {
    const s = stream();
    // 10 UTF-8 bytes per piece: 1 + 2 + 3 + 4.
    const piece = 'aé€😀';
    for (let i = 0; i < 300; i++) void s.append({ type: 'token', text: piece });
    await s.append(DONE);
    // 1,005 bytes ends inside the 101st piece's '€' (bytes 1,004–1,006): only 'aé' of that piece fits.
    const text = await s.text(1005);
    expect(text).toBe(piece.repeat(100) + 'aé');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1005);
    // A limit on a piece's edge keeps whole pieces; a limit past the end returns all of it.
    expect(await s.text(1000)).toBe(piece.repeat(100));
    expect(await s.text(10_000)).toBe(piece.repeat(300));
  });

  it('stops at STREAM_TEXT_MAX_BYTES by default', async () => {
    const s = stream();
    // Many modest tokens, as replies are made of (one huge entry would only test Redis's reply parser).
    const chunk = 'x'.repeat(4 * 1024);
    const chunks = Math.ceil(STREAM_TEXT_MAX_BYTES / chunk.length) + 16;
    for (let i = 0; i < chunks; i++) void s.append({ type: 'token', text: chunk });
    await s.append(DONE);
    const text = await s.text();
    expect(Buffer.byteLength(text)).toBe(STREAM_TEXT_MAX_BYTES);
    expect(text).toBe('x'.repeat(STREAM_TEXT_MAX_BYTES));
  }, 30_000);

  it('reads a long stream page by page and joins every token once, in order', async () => {
    const s = stream();
    const pieces: string[] = [];
    for (let i = 1; i <= 1000; i++) {
      pieces.push(`${i};`);
      void s.append({ type: 'token', text: `${i};` });
      // Events other than tokens add nothing, wherever they stand.
      if (i % 97 === 0) void s.append(DONE);
    }
    await s.append(DONE);
    const xrange = jest.spyOn(redis, 'xrange');
    try {
      expect(await s.text()).toBe(pieces.join(''));
      // Never one unbounded read: every call asks for a page, and 1,000+ events take several.
      expect(xrange.mock.calls.length).toBeGreaterThanOrEqual(4);
      for (const args of xrange.mock.calls) expect(args.slice(3)).toEqual(['COUNT', 256]);
    } finally {
      xrange.mockRestore();
    }
  });
});
