import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../src/config/config';
import { StreamHub } from '../../src/modules/inference/stream-hub';
import { type StreamEvent, TokenStream } from '../../src/modules/inference/streams';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DONE: StreamEvent = { type: 'done', success: true, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, stop_reason: 'stop' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything a reader gets: ids and token texts, until the final event. */
async function readAll(hub: StreamHub, key: string, after = 0, idleMs = 30_000): Promise<{ ids: number[]; texts: string[] }> {
  const ids: number[] = [];
  const texts: string[] = [];
  for await (const e of hub.read(key, { after, idleMs })) {
    ids.push(e.id);
    if (e.event.type === 'token') texts.push(e.event.text);
  }
  return { ids, texts };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('StreamHub on real Redis: live readers by subscription, the stream read for what came before', () => {
  const prefix = `globtest:stream-hub:${randomUUID()}`;
  const config = { redis: { url: REDIS_URL, prefix } } as AppConfig;
  let redis: Redis;
  let hub: StreamHub;
  let n = 0;
  const stream = () => new TokenStream(redis, TokenStream.key(prefix, `s${++n}`));
  /** XRANGE calls Redis has run so far. */
  const xranges = async () => Number(/cmdstat_xrange:calls=(\d+)/.exec((await redis.info('commandstats')) as string)?.[1] ?? 0);

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    hub = new StreamHub(config, redis);
  });
  afterAll(async () => {
    await hub.onApplicationShutdown();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('readers joining before, during and after a stream each get every event after their cursor once, in order', async () => {
    const s = stream();
    const early = readAll(hub, s.key);
    await sleep(50);
    const writing = (async () => {
      for (let i = 1; i <= 300; i++) {
        await s.append({ type: 'token', text: `${i};` });
        if (i % 50 === 0) await sleep(5);
      }
      await s.append(DONE);
    })();
    await sleep(20);
    // Mid-stream: one from the start (a late reader), one resuming after event 100 (a reconnect with Last-Event-ID).
    const [late, resumed] = [readAll(hub, s.key), readAll(hub, s.key, 100)];
    await writing;
    const after = readAll(hub, s.key, 250);
    const texts = range(1, 300).map((i) => `${i};`);
    expect(await early).toEqual({ ids: range(1, 301), texts });
    expect(await late).toEqual({ ids: range(1, 301), texts });
    expect(await resumed).toEqual({ ids: range(101, 301), texts: texts.slice(100) });
    expect(await after).toEqual({ ids: range(251, 301), texts: texts.slice(250) });
    // Every reader gone: its channel is no longer subscribed.
    await sleep(50);
    expect(await redis.pubsub('NUMSUB', s.key)).toEqual([s.key, 0]);
    expect(hub.size).toBe(0);
  });

  it('an event that came before the ones between it and the reader (a message never heard) waits for a read of the stream', async () => {
    const s = stream();
    const reader = readAll(hub, s.key);
    await sleep(50);
    await s.append({ type: 'token', text: 'a' });
    // Appended without its message, as when the subscriber's connection was down: the next message has a gap before it.
    await redis.xadd(s.key, '0-*', 'e', JSON.stringify({ type: 'token', text: 'b' }));
    await redis.xadd(s.key, '0-*', 'e', JSON.stringify({ type: 'token', text: 'c' }));
    await s.append({ type: 'token', text: 'd' });
    await s.append(DONE);
    expect(await reader).toEqual({ ids: [1, 2, 3, 4, 5], texts: ['a', 'b', 'c', 'd'] });
  });

  it('the final event alone unheard: a quiet reader reads the stream and ends', async () => {
    const s = stream();
    const reader = readAll(hub, s.key, 0, 300);
    await sleep(50);
    await s.append({ type: 'token', text: 'x' });
    await redis.xadd(s.key, '0-*', 'e', JSON.stringify(DONE));
    expect(await reader).toEqual({ ids: [1, 2], texts: ['x'] });
  });

  it('the subscriber connection cut mid-stream: it comes back and its readers get what was published meanwhile', async () => {
    const s = stream();
    const readers = [readAll(hub, s.key), readAll(hub, s.key, 0, 60_000)];
    await sleep(50);
    for (let i = 1; i <= 20; i++) await s.append({ type: 'token', text: `${i};` });
    // The hub's subscriber is the connection subscribed to this stream's channel.
    const clients = (await redis.client('LIST')) as string;
    const subscriber = clients.split('\n').find((l) => / sub=1 /.test(l) && l.includes(`name=${prefix.replace(/[^A-Za-z0-9:_-]/g, '_')}`));
    expect(subscriber).toBeDefined();
    await redis.client('KILL', 'ID', /id=(\d+)/.exec(subscriber!)![1]!);
    for (let i = 21; i <= 40; i++) await s.append({ type: 'token', text: `${i};` });
    await sleep(300);
    for (let i = 41; i <= 60; i++) await s.append({ type: 'token', text: `${i};` });
    await s.append(DONE);
    const expected = { ids: range(1, 61), texts: range(1, 60).map((i) => `${i};`) };
    for (const r of readers) expect(await r).toEqual(expected);
  });

  it('a reader joining while the subscriber connection is still being set up: no failed ready check, every event reaches it', async () => {
    const fresh = new StreamHub(config, redis);
    const errors: string[] = [];
    try {
      const [a, b] = [stream(), stream()];
      const first = readAll(fresh, a.key, 0, 5_000);
      // The hub's connection, made by the first join: a second join as it connects (before ioredis's handshake ends)
      // sends SUBSCRIBE at once, which Redis runs (and answers) ahead of the ready check.
      const sub = (fresh as unknown as { subscriber: Redis }).subscriber;
      sub.on('error', (err: Error) => errors.push(err.message));
      let second!: ReturnType<typeof readAll>;
      await new Promise<void>((r) =>
        sub.once('connect', () => {
          second = readAll(fresh, b.key, 0, 5_000);
          r();
        }),
      );
      await sleep(200);
      for (const s of [a, b]) {
        await s.append({ type: 'token', text: 'x' });
        await s.append(DONE);
      }
      expect(await first).toEqual({ ids: [1, 2], texts: ['x'] });
      expect(await second).toEqual({ ids: [1, 2], texts: ['x'] });
      expect(errors).toEqual([]);
    } finally {
      await fresh.onApplicationShutdown();
    }
  });

  it('a thousand streams open at once cost a message each per event, not a read of every stream', async () => {
    const streams = Array.from({ length: 1000 }, () => stream());
    const readers = streams.map((s) => readAll(hub, s.key));
    for (let i = 0; i < 100 && hub.size < 1000; i++) await sleep(20);
    expect(hub.size).toBe(1000);
    // Each reader's join reads its stream once (empty here); counted from when those reads are done.
    let before = await xranges();
    for (let last = -1; before !== last; before = await xranges()) {
      last = before;
      await sleep(100);
    }
    // Ten streams of the thousand get events: the others stay quiet, and nothing reads them.
    for (let round = 1; round <= 5; round++) for (const s of streams.slice(0, 10)) await s.append({ type: 'token', text: `${round}` });
    await sleep(100);
    const after = await xranges();
    // Other suites' readers may read meanwhile (one Redis for the whole run): far fewer than a read per stream is enough.
    expect(after - before).toBeLessThan(100);
    await Promise.all(streams.map((s) => s.append(DONE)));
    const got = await Promise.all(readers);
    expect(got.slice(0, 10).every((r) => r.texts.join('') === '12345')).toBe(true);
    expect(got.slice(10).every((r) => r.ids.length === 1 && r.texts.length === 0)).toBe(true);
  }, 60_000);
});
