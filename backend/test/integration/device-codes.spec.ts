import { spec } from '../support/contract';
import { newUser } from '../support/users';
import { startStack, TestStack } from '../support/app';

const HOST = { hostname: 'attic-box', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 2 ** 30, gpu: null, vram_bytes: null };
const TINY = 'glob-tiny-chat';

/**
 * Pairing a machine without a token to copy (RFC 8628's device flow) over the public API: the machine asks for codes,
 * the owner confirms the short one signed in, the machine's poll gets a join token once and registers with it.
 */
describe('pairing a machine by device code', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({ env: { DEVICE_CODE_LOOKUP_RATE_LIMIT: '6', PUBLIC_WEB_URL: 'https://glob.example' } });
  });
  afterAll(() => stack?.close());

  const ask = async (name = 'attic-box') => {
    const res = spec(await stack.http.post('/api/nodes/device-codes').send({ name, host: HOST }), 'createDeviceCode');
    expect(res.status).toBe(201);
    return res.body as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
  };
  const poll = async (deviceCode: string) =>
    spec(await stack.http.post('/api/nodes/device-codes/token').send({ device_code: deviceCode }), 'exchangeDeviceCode');
  /** As if the interval had passed since the last poll. */
  const waitInterval = () => stack.db.query(`UPDATE node_device_codes SET polled_at = now() - interval '10 seconds'`);

  it('the owner confirms the code the machine shows; the machine’s next poll gets a join token, once, and pairs with it', async () => {
    const owner = await newUser(stack, 'device-owner');
    const codes = await ask();
    expect(codes.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(codes.verification_uri_complete).toBe(`https://glob.example/app/pair?code=${codes.user_code}`);
    expect(codes.interval).toBe(5);
    // The codes are stored only as hashes.
    const [stored] = (await stack.db.query(`SELECT device_code_hash, user_code_hash FROM node_device_codes`)) as Array<Record<string, string>>;
    expect(JSON.stringify(stored)).not.toContain(codes.device_code);
    expect(JSON.stringify(stored)).not.toContain(codes.user_code.replace('-', ''));

    const pending = await poll(codes.device_code);
    expect([pending.status, pending.body.error]).toEqual([400, 'authorization_pending']);
    const tooSoon = await poll(codes.device_code);
    expect([tooSoon.status, tooSoon.body.error]).toEqual([400, 'slow_down']);

    // The owner sees which machine asks (the code typed in any case, without its dash), then confirms.
    const seen = spec(
      await stack.http.get(`/api/nodes/device-codes/${codes.user_code.replace('-', '').toLowerCase()}`).set(owner.auth),
      'getPendingDevice',
    );
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ user_code: codes.user_code, name: 'attic-box', host: HOST });
    const confirmed = spec(await stack.http.post(`/api/nodes/device-codes/${codes.user_code}`).set(owner.auth), 'approvePendingDevice');
    expect(confirmed.status).toBe(200);

    await waitInterval();
    const granted = await poll(codes.device_code);
    expect(granted.status).toBe(200);
    const registered = spec(
      await stack.http.post('/api/nodes/register').send({
        join_token: granted.body.join_token,
        name: 'attic-box',
        host: HOST,
        models: [TINY],
        benchmark: { model_id: TINY, tokens_per_second: 100 },
      }),
      'registerNode',
    );
    expect(registered.status).toBe(201);
    const nodes = await stack.http.get('/api/nodes').set(owner.auth).expect(200);
    expect(nodes.body.nodes.map((n: { id: string }) => n.id)).toContain(registered.body.node_id);

    // Used: a replayed poll gets nothing more, and the code is no longer shown to anyone.
    await waitInterval();
    const again = await poll(codes.device_code);
    expect([again.status, again.body.error]).toEqual([400, 'expired_token']);
    await stack.http.get(`/api/nodes/device-codes/${codes.user_code}`).set(owner.auth).expect(404);
  });

  it('a code confirmed by one account cannot be taken by another; unknown and expired codes are 404; a made-up device code expires', async () => {
    const first = await newUser(stack, 'device-first');
    const second = await newUser(stack, 'device-second');
    const codes = await ask('race-box');
    await stack.http.post(`/api/nodes/device-codes/${codes.user_code}`).set(first.auth).expect(200);
    const late = spec(await stack.http.post(`/api/nodes/device-codes/${codes.user_code}`).set(second.auth), 'approvePendingDevice');
    expect(late.status).toBe(404);
    expect(late.body.message).toBe('This code is unknown or has expired. Start pairing again on the machine.');

    const old = await ask('old-box');
    await stack.db.query(`UPDATE node_device_codes SET expires_at = now() - interval '1 second' WHERE name = 'old-box'`);
    await stack.http.get(`/api/nodes/device-codes/${old.user_code}`).set(second.auth).expect(404);
    const expired = await poll(old.device_code);
    expect([expired.status, expired.body.error]).toEqual([400, 'expired_token']);
    const madeUp = await poll('glb_dev_not-a-real-one');
    expect([madeUp.status, madeUp.body.error]).toEqual([400, 'expired_token']);
    // Signed out, nobody sees or confirms a machine.
    await stack.http.get(`/api/nodes/device-codes/${codes.user_code}`).expect(401);
  });

  it('limits lookups per account, so other machines’ codes cannot be guessed', async () => {
    const guesser = await newUser(stack, 'device-guesser');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await stack.http.get(`/api/nodes/device-codes/BCDF-GHJ${'KLMNPQR'[i]}`).set(guesser.auth)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 404, 429]);
  });
});
