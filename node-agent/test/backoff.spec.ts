import { Backoff, Connection, isTransientStatus, retryAfterMs } from '../src/api-client';

const answer = (status: number) => ({ response: new Response(status === 204 ? null : '{}', { status }) });

describe('reconnecting with backoff', () => {
  it('waits 1 s, doubling up to 30 s; a success starts over', () => {
    const b = new Backoff();
    expect(Array.from({ length: 8 }, () => b.next())).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    b.reset();
    expect(b.next()).toBe(1000);
  });

  it('a network error, a timeout, 5xx and 429 are the API being away; 4xx are answers', () => {
    for (const s of [500, 502, 503, 504, 429, 408]) expect(isTransientStatus(s)).toBe(true);
    for (const s of [200, 204, 400, 401, 403, 409, 413]) expect(isTransientStatus(s)).toBe(false);
  });

  it('retries until the API answers, saying so once per attempt, then that it is back', async () => {
    const lines: string[] = [];
    const conn = new Connection(
      (l) => lines.push(l),
      () => new Backoff(1, 4),
    );
    let n = 0;
    const res = await conn.call(async () => {
      n++;
      if (n === 1) throw new TypeError('fetch failed');
      if (n === 2) return answer(503);
      if (n === 3) return answer(429);
      return answer(401);
    });
    expect(res.response.status).toBe(401);
    expect(lines).toEqual([
      'API unreachable, retrying in 0 s',
      'API unavailable (503), retrying in 0 s',
      'API busy (429), retrying in 0 s',
      'API reachable again',
    ]);
    expect(conn.reachable).toBe(true);
  });

  it('logs the delay in seconds ("API unreachable, retrying in 4 s")', async () => {
    const lines: string[] = [];
    const waits = [4000];
    const conn = new Connection(
      (l) => lines.push(l),
      () => ({ next: () => waits.shift() ?? 0, reset: () => undefined }) as unknown as Backoff,
    );
    const ctrl = new AbortController();
    const call = conn.call(() => Promise.reject(new TypeError('fetch failed')), { signal: ctrl.signal });
    await new Promise((r) => setTimeout(r, 20));
    ctrl.abort();
    await expect(call).rejects.toThrow();
    expect(lines).toEqual(['API unreachable, retrying in 4 s']);
  });

  it('a single attempt (heartbeat) answers null when the API is away, and says so once per outage', async () => {
    const lines: string[] = [];
    const conn = new Connection((l) => lines.push(l));
    const down = () => Promise.reject(new TypeError('fetch failed'));
    expect(await conn.call(down, { retry: false })).toBeNull();
    expect(await conn.call(down, { retry: false })).toBeNull();
    expect(conn.reachable).toBe(false);
    expect((await conn.call(async () => answer(200), { retry: false }))?.response.status).toBe(200);
    expect(lines).toEqual(['API unreachable', 'API reachable again']);
  });

  it('a call that hangs times out and counts as unreachable', async () => {
    const conn = new Connection(() => undefined);
    const hang = (signal: AbortSignal) =>
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    expect(await conn.call(hang, { retry: false, timeoutMs: 20 })).toBeNull();
  });

  it('stopping aborts the wait between attempts at once', async () => {
    const conn = new Connection(
      () => undefined,
      () => new Backoff(60_000, 60_000),
    );
    const ctrl = new AbortController();
    const started = Date.now();
    const call = conn.call(() => Promise.reject(new TypeError('fetch failed')), { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 10);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a 429 or 503 with Retry-After waits as long as it says (seconds or a date), at most an hour', async () => {
    const at = (v: string) => retryAfterMs(new Response(null, { status: 429, headers: { 'retry-after': v } }), Date.parse('2026-01-01T00:00:00Z'));
    expect(at('7')).toBe(7000);
    expect(at('Thu, 01 Jan 2026 00:00:30 GMT')).toBe(30_000);
    expect(at('999999')).toBe(3_600_000);
    expect(at('soon')).toBeNull();
    expect(retryAfterMs(new Response(null, { status: 429 }))).toBeNull();

    const lines: string[] = [];
    const conn = new Connection(
      (l) => lines.push(l),
      () => new Backoff(1, 4),
    );
    let n = 0;
    const res = await conn.call(async () => ({
      response: ++n === 1 ? new Response(null, { status: 429, headers: { 'retry-after': '1' } }) : new Response('{}', { status: 200 }),
    }));
    expect(res.response.status).toBe(200);
    expect(lines).toEqual(['API busy (429), retrying in 1 s', 'API reachable again']);
  });
});
