import { expectSpecResponse } from '../support/contract';
import { register, verifiedToken } from '../support/users';
import { startStack, TestStack } from '../support/app';

const PASSWORD = 'a quiet mountain stream';
const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

let userCounter = 0;
const nextEmail = (name: string) => `${name}-${++userCounter}@example.com`;

interface Session {
  id: string;
  device: string;
  user_agent: string;
  ip: string | null;
  created_at: string;
  last_used_at: string;
  current: boolean;
}

interface Pair {
  access_token: string;
  refresh_token: string;
}

describe('signed-in sessions: list, end one, end all others', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    await stack.close();
  });

  const bearer = (pair: Pair) => ({ Authorization: `Bearer ${pair.access_token}` });

  async function login(email: string, userAgent: string, ip: string): Promise<Pair> {
    const res = await stack.http.post('/api/users/login').set('X-Forwarded-For', ip).set('User-Agent', userAgent).send({ email, password: PASSWORD });
    expect(res.status).toBe(200);
    return res.body as Pair;
  }

  function refresh(pair: Pair, userAgent: string, ip: string) {
    return stack.http.post('/api/users/refresh').set('X-Forwarded-For', ip).set('User-Agent', userAgent).send({ refresh_token: pair.refresh_token });
  }

  async function list(pair: Pair): Promise<Session[]> {
    const res = await stack.http.get('/api/users/sessions').set(bearer(pair)).expect(200);
    expectSpecResponse(res, 'listSessions');
    return res.body.sessions as Session[];
  }

  /** The id of a sign-in, as the caller's own list marks it. */
  async function idOf(pair: Pair): Promise<string> {
    return (await list(pair)).find((s) => s.current)!.id;
  }

  it('lists each sign-in with its device, address and times, the caller’s own marked', async () => {
    const email = nextEmail('list');
    await register(stack, email);
    const chrome = await login(email, CHROME_LINUX, '203.0.113.24');
    const safari = await login(email, SAFARI_IOS, '198.51.100.7');

    const seenByChrome = await list(chrome);
    expect(seenByChrome).toHaveLength(3);
    const byDevice = (sessions: Session[], device: string) => sessions.find((s) => s.device === device)!;
    expect(byDevice(seenByChrome, 'Chrome on Linux')).toMatchObject({ user_agent: CHROME_LINUX, ip: '203.0.113.24', current: true });
    expect(byDevice(seenByChrome, 'Safari on iOS')).toMatchObject({ user_agent: SAFARI_IOS, ip: '198.51.100.7', current: false });
    expect(seenByChrome.filter((s) => s.current)).toHaveLength(1);
    for (const s of seenByChrome) {
      expect(Date.parse(s.created_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(Date.parse(s.last_used_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
    }
    // Most recently used first.
    expect(seenByChrome[0]!.device).toBe('Safari on iOS');

    const seenBySafari = await list(safari);
    expect(byDevice(seenBySafari, 'Safari on iOS').current).toBe(true);
    expect(byDevice(seenBySafari, 'Chrome on Linux').current).toBe(false);

    // A refreshed access token belongs to the same session.
    const refreshed = (await refresh(chrome, CHROME_LINUX, '203.0.113.24').expect(200)).body as Pair;
    expect(await idOf(refreshed)).toBe(byDevice(seenByChrome, 'Chrome on Linux').id);
    expect(await list(refreshed)).toHaveLength(3);
  });

  it('records the client of sign-up and of a password reset', async () => {
    const email = nextEmail('paths');
    const ip = '192.0.2.10';
    const verification_token = await verifiedToken(stack, email, ip);
    const signup = await stack.http
      .post('/api/users/register')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', FIREFOX_WINDOWS)
      .send({ email, password: PASSWORD, username: 'paths', verification_token })
      .expect(201);
    expect(await list(signup.body)).toEqual([expect.objectContaining({ device: 'Firefox on Windows', ip, current: true })]);

    const resetIp = '192.0.2.11';
    const resetToken = await verifiedToken(stack, email, resetIp, 'password_reset');
    const reset = await stack.http
      .post('/api/users/reset-password')
      .set('X-Forwarded-For', resetIp)
      .set('User-Agent', SAFARI_IOS)
      .send({ email, password: 'another quiet mountain stream', verification_token: resetToken })
      .expect(200);
    // A reset ends every other session: only the reset's own is left.
    expect(await list(reset.body)).toEqual([expect.objectContaining({ device: 'Safari on iOS', ip: resetIp, current: true })]);
  });

  it('ending a session refuses its refresh token and its access token at once; the other keeps working', async () => {
    const email = nextEmail('end');
    await register(stack, email);
    const keep = await login(email, CHROME_LINUX, '203.0.113.30');
    const end = await login(email, SAFARI_IOS, '198.51.100.30');
    const endId = await idOf(end);

    // The access token works before, so the 401 below is the revocation's doing.
    await stack.http.get('/api/users/me').set(bearer(end)).expect(200);
    const ended = await stack.http.delete(`/api/users/sessions/${endId}`).set(bearer(keep)).expect(204);
    expectSpecResponse(ended, 'revokeSession');

    const deniedAccess = await stack.http.get('/api/users/me').set(bearer(end)).expect(401);
    expectSpecResponse(deniedAccess, 'getMe');
    const deniedRefresh = await refresh(end, SAFARI_IOS, '198.51.100.30').expect(401);
    expectSpecResponse(deniedRefresh, 'refresh');

    await stack.http.get('/api/users/me').set(bearer(keep)).expect(200);
    const renewed = (await refresh(keep, CHROME_LINUX, '203.0.113.30').expect(200)).body as Pair;
    await stack.http.get('/api/users/me').set(bearer(renewed)).expect(200);
    expect((await list(renewed)).map((s) => s.id)).not.toContain(endId);

    // Already ended: nothing to end.
    const again = await stack.http.delete(`/api/users/sessions/${endId}`).set(bearer(renewed)).expect(404);
    expectSpecResponse(again, 'revokeSession');
  });

  it('ending the current session signs the caller out', async () => {
    const email = nextEmail('self');
    await register(stack, email);
    const me = await login(email, CHROME_LINUX, '203.0.113.40');
    await stack.http
      .delete(`/api/users/sessions/${await idOf(me)}`)
      .set(bearer(me))
      .expect(204);
    await stack.http.get('/api/users/sessions').set(bearer(me)).expect(401);
    await refresh(me, CHROME_LINUX, '203.0.113.40').expect(401);
  });

  it('signing out of all other sessions leaves only the caller’s', async () => {
    const email = nextEmail('others');
    await register(stack, email);
    const a = await login(email, CHROME_LINUX, '203.0.113.50');
    const b = await login(email, SAFARI_IOS, '198.51.100.50');
    const c = await login(email, FIREFOX_WINDOWS, '192.0.2.50');
    expect(await list(b)).toHaveLength(4);

    const res = await stack.http.post('/api/users/sessions/revoke-others').set(bearer(b)).expect(204);
    expectSpecResponse(res, 'revokeOtherSessions');

    expect(await list(b)).toEqual([expect.objectContaining({ device: 'Safari on iOS', current: true })]);
    for (const [pair, ua] of [
      [a, CHROME_LINUX],
      [c, FIREFOX_WINDOWS],
    ] as const) {
      await stack.http.get('/api/users/me').set(bearer(pair)).expect(401);
      await refresh(pair, ua, '192.0.2.99').expect(401);
    }
    await refresh(b, SAFARI_IOS, '198.51.100.50').expect(200);
    // Nothing left to end still answers 204.
    await stack.http.post('/api/users/sessions/revoke-others').set(bearer(b)).expect(204);
  });

  it('another user’s session or an unknown id answers 404 and ends nothing', async () => {
    const owner = nextEmail('owner');
    await register(stack, owner);
    const ownerPair = await login(owner, CHROME_LINUX, '203.0.113.60');
    const ownerSession = await idOf(ownerPair);
    const intruder = await register(stack, nextEmail('intruder'));

    const denied = await stack.http.delete(`/api/users/sessions/${ownerSession}`).set(bearer(intruder)).expect(404);
    expectSpecResponse(denied, 'revokeSession');
    expect(denied.body).toMatchObject({ statusCode: 404, message: 'Session not found' });
    await stack.http.delete('/api/users/sessions/0b9f4a2e-6c1d-4f7e-9a51-3d2c8e7b1f60').set(bearer(intruder)).expect(404);
    await stack.http.delete('/api/users/sessions/not-a-uuid').set(bearer(intruder)).expect(400);
    // The intruder's own list never shows the owner's sessions.
    expect((await list(intruder)).map((s) => s.id)).not.toContain(ownerSession);

    await stack.http.get('/api/users/me').set(bearer(ownerPair)).expect(200);
    await refresh(ownerPair, CHROME_LINUX, '203.0.113.60').expect(200);
    await stack.http.get('/api/users/sessions').expect(401);
  });

  it('a refresh moves last_used_at on and records where from; created_at stays', async () => {
    const email = nextEmail('touch');
    await register(stack, email);
    const pair = await login(email, CHROME_LINUX, '203.0.113.70');
    const id = await idOf(pair);
    // Put the sign-in an hour in the past, so the refresh's move is unmistakable.
    await stack.db.query(`UPDATE sessions SET created_at = now() - interval '2 hours', last_used_at = now() - interval '1 hour' WHERE id = $1`, [id]);
    const [before] = (await stack.db.query(`SELECT created_at, last_used_at FROM sessions WHERE id = $1`, [id])) as Array<{
      created_at: Date;
      last_used_at: Date;
    }>;

    const renewed = (await refresh(pair, CHROME_LINUX, '203.0.113.71').expect(200)).body as Pair;
    const after = (await list(renewed)).find((s) => s.id === id)!;
    expect(after.created_at).toBe(before!.created_at.toISOString());
    expect(Date.parse(after.last_used_at)).toBeGreaterThan(before!.last_used_at.getTime() + 3_000_000);
    expect(Date.parse(after.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(after).toMatchObject({ ip: '203.0.113.71', device: 'Chrome on Linux', current: true });
  });

  it('a request with the access token moves last_used_at too, at most once a minute', async () => {
    const email = nextEmail('use');
    await register(stack, email);
    const pair = await login(email, CHROME_LINUX, '203.0.113.80');
    const id = await idOf(pair);
    const lastUsed = async () =>
      ((await stack.db.query(`SELECT last_used_at FROM sessions WHERE id = $1`, [id])) as Array<{ last_used_at: Date }>)[0]!.last_used_at.getTime();

    await stack.db.query(`UPDATE sessions SET last_used_at = now() - interval '1 hour' WHERE id = $1`, [id]);
    await stack.http.get('/api/users/me').set('Authorization', `Bearer ${pair.access_token}`).expect(200);
    expect(await lastUsed()).toBeGreaterThan(Date.now() - 60_000);

    // Used 30 s ago: not written again yet.
    await stack.db.query(`UPDATE sessions SET last_used_at = now() - interval '30 seconds' WHERE id = $1`, [id]);
    const recent = await lastUsed();
    await stack.http.get('/api/users/me').set('Authorization', `Bearer ${pair.access_token}`).expect(200);
    expect(await lastUsed()).toBe(recent);
  });
});
