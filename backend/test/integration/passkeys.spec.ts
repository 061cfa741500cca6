import { generate } from 'otplib';
import { expectSpecResponse } from '../support/contract';
import { startStack, TestStack } from '../support/app';
import { startSmtpCatcher } from '@glob/testing';
import { register } from '../support/users';
import { assert, createCredential, type SoftCredential } from '../support/webauthn';

const PASSWORD = 'a quiet mountain stream';
const ORIGIN = 'http://localhost:5173';
const RP_ID = 'localhost';

let ipCounter = 0;
/** Each request group speaks from its own client IP, so per-IP limits only bite where a test means them to. */
const nextIp = () => `10.43.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
let userCounter = 0;
const nextEmail = (name: string) => `${name}-${++userCounter}@example.com`;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('passkeys (WebAuthn through a software authenticator)', () => {
  let stack: TestStack;
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    stack = await startStack({ worker: true, env: { WEBAUTHN_RP_ID: RP_ID, WEBAUTHN_ORIGIN: ORIGIN, SMTP_URL: smtp.url } });
  });

  afterAll(async () => {
    await stack.close();
    await smtp.close();
  });

  /** Registers a passkey for the signed-in user, as the Security page does. */
  async function addPasskey(token: string, name?: string): Promise<{ credential: SoftCredential; id: string }> {
    const options = await stack.http.post('/api/users/passkeys/registration-options').set(bearer(token)).expect(200);
    const { credential, response } = createCredential(options.body, ORIGIN);
    const res = await stack.http
      .post('/api/users/passkeys')
      .set(bearer(token))
      .send({ response, ...(name ? { name } : {}) })
      .expect(201);
    expectSpecResponse(res, 'registerPasskey');
    return { credential, id: res.body.id as string };
  }

  async function userWithPasskey(name: string) {
    const email = nextEmail(name);
    const session = await register(stack, email, PASSWORD, name);
    return { email, session, ...(await addPasskey(session.access_token, 'Laptop')) };
  }

  function authOptions(body: Record<string, string> = {}, ip = nextIp()) {
    return stack.http.post('/api/users/passkeys/authentication-options').set('X-Forwarded-For', ip).send(body);
  }

  function loginPasskey(body: Record<string, unknown>, ip = nextIp()) {
    return stack.http.post('/api/users/login/passkey').set('X-Forwarded-For', ip).send(body);
  }

  it('registers: options from the configured RP with the account handle and a resident key, then the list, excluded next time', async () => {
    const email = nextEmail('reg');
    const { access_token, user } = await register(stack, email, PASSWORD, 'reg');
    const options = await stack.http.post('/api/users/passkeys/registration-options').set(bearer(access_token)).expect(200);
    expectSpecResponse(options, 'getPasskeyRegistrationOptions');
    expect(options.body.rp).toEqual({ id: RP_ID, name: 'Glob Network' });
    expect(options.body.user).toMatchObject({ id: Buffer.from(user.id).toString('base64url'), name: email });
    expect(options.body.authenticatorSelection).toMatchObject({ residentKey: 'required' });
    expect(options.body.excludeCredentials).toEqual([]);

    const { credential, response } = createCredential(options.body, ORIGIN);
    const added = await stack.http.post('/api/users/passkeys').set(bearer(access_token)).send({ response }).expect(201);
    expect(added.body).toMatchObject({
      name: 'Passkey',
      last_used_at: null,
      device_type: 'singleDevice',
      backed_up: false,
      transports: ['internal'],
    });

    // The challenge was used: the same answer again finds none.
    await stack.http.post('/api/users/passkeys').set(bearer(access_token)).send({ response }).expect(400);

    const list = await stack.http.get('/api/users/passkeys').set(bearer(access_token)).expect(200);
    expectSpecResponse(list, 'listPasskeys');
    expect(list.body.passkeys.map((p: { id: string }) => p.id)).toEqual([added.body.id]);

    const again = await stack.http.post('/api/users/passkeys/registration-options').set(bearer(access_token)).expect(200);
    expect(again.body.excludeCredentials).toEqual([{ id: credential.id, type: 'public-key', transports: ['internal'] }]);
    // The same credential attested again on a fresh challenge: already registered.
    const dup = createCredential(again.body, ORIGIN, credential);
    const conflict = await stack.http.post('/api/users/passkeys').set(bearer(access_token)).send({ response: dup.response }).expect(409);
    expect(conflict.body.message).toBe('This passkey is already registered.');
    expect((await stack.http.get('/api/users/passkeys').set(bearer(access_token))).body.passkeys).toHaveLength(1);
  });

  it('refuses a registration from another origin, without options, or signed out', async () => {
    const { access_token } = await register(stack, nextEmail('phish'), PASSWORD, 'phish');
    const options = await stack.http.post('/api/users/passkeys/registration-options').set(bearer(access_token)).expect(200);
    const { response } = createCredential(options.body, 'https://evil.example');
    const res = await stack.http.post('/api/users/passkeys').set(bearer(access_token)).send({ response }).expect(400);
    expect(res.body.message).toBe('This passkey could not be verified. Please try again.');
    const other = createCredential(options.body, ORIGIN);
    await stack.http.post('/api/users/passkeys').set(bearer(access_token)).send({ response: other.response }).expect(400);
    await stack.http.post('/api/users/passkeys').send({ response: other.response }).expect(401);
    expect((await stack.http.get('/api/users/passkeys').set(bearer(access_token))).body.passkeys).toEqual([]);
  });

  it('signs in without a password (discoverable), once per challenge, and refuses a counter that does not grow', async () => {
    const { credential, session, id } = await userWithPasskey('free');
    const options = await authOptions().expect(200);
    expectSpecResponse(options, 'getPasskeyAuthenticationOptions');
    expect(options.body.rpId).toBe(RP_ID);
    expect(options.body.allowCredentials ?? []).toEqual([]);

    const response = assert(credential, options.body, ORIGIN);
    const signedIn = await loginPasskey({ response }).expect(200);
    expectSpecResponse(signedIn, 'loginPasskey');
    expect(signedIn.body.user.id).toBe(session.user.id);
    const me = await stack.http.get('/api/users/me').set(bearer(signedIn.body.access_token)).expect(200);
    expect(me.body.user.id).toBe(session.user.id);
    const [used] = (await stack.http.get('/api/users/passkeys').set(bearer(session.access_token))).body.passkeys;
    expect(used.id).toBe(id);
    expect(used.last_used_at).not.toBeNull();

    // The same answer again: its challenge is used up.
    await loginPasskey({ response }).expect(401);
    // A fresh challenge signed with the counter already seen (a cloned authenticator): refused.
    const cloned = assert(credential, (await authOptions().expect(200)).body, ORIGIN, { counter: credential.counter });
    await loginPasskey({ response: cloned }).expect(401);
    // A phishing origin, even with the right key and a growing counter: refused.
    const phished = assert(credential, (await authOptions().expect(200)).body, 'https://evil.example');
    await loginPasskey({ response: phished }).expect(401);
    // A challenge the server never gave.
    await loginPasskey({ response: assert(credential, { challenge: 'bm90LWEtY2hhbGxlbmdl', rpId: RP_ID }, ORIGIN) }).expect(401);
    // The authenticator's next real use still works.
    await loginPasskey({ response: assert(credential, (await authOptions().expect(200)).body, ORIGIN) }).expect(200);
  });

  it('refuses an unknown credential and a tampered signature', async () => {
    const { credential } = await userWithPasskey('unknown');
    const stranger = createCredential({ challenge: 'eA', rp: { id: RP_ID }, user: { id: credential.userHandle } }, ORIGIN).credential;
    const res = await loginPasskey({ response: assert(stranger, (await authOptions().expect(200)).body, ORIGIN) }).expect(401);
    expect(res.body.message).toBe('This passkey could not be verified. Please try again.');
    const tampered = assert(credential, (await authOptions().expect(200)).body, ORIGIN) as { response: { signature: string } };
    const sig = Buffer.from(tampered.response.signature, 'base64url');
    sig.writeUInt8(sig.readUInt8(sig.length - 1) ^ 0xff, sig.length - 1);
    tampered.response.signature = sig.toString('base64url');
    await loginPasskey({ response: tampered }).expect(401);
  });

  it('is a second factor: the password alone gets a challenge, a code cannot pass it, the passkey does', async () => {
    const { email, credential, session } = await userWithPasskey('second');
    const login = await stack.http.post('/api/users/login').set('X-Forwarded-For', nextIp()).send({ email, password: PASSWORD }).expect(200);
    expectSpecResponse(login, 'login');
    expect(login.body).not.toHaveProperty('access_token');
    expect(login.body.methods).toEqual(['passkey']);
    const token = login.body.challenge_token as string;

    const code = await stack.http
      .post('/api/users/login/2fa')
      .set('X-Forwarded-For', nextIp())
      .send({ challenge_token: token, code: '123456' })
      .expect(401);
    expect(code.body.message).toBe('Invalid authentication code. Please try again.');

    const options = await authOptions({ challenge_token: token }).expect(200);
    expect(options.body.allowCredentials).toEqual([{ id: credential.id, type: 'public-key', transports: ['internal'] }]);
    // Options for the second step do not make a password-free sign-in, and the reverse.
    await loginPasskey({ response: assert(credential, options.body, ORIGIN) }).expect(401);
    const free = (await authOptions().expect(200)).body;
    await loginPasskey({ response: assert(credential, free, ORIGIN), challenge_token: token }).expect(401);

    const again = (await authOptions({ challenge_token: token }).expect(200)).body;
    const passed = await loginPasskey({ response: assert(credential, again, ORIGIN), challenge_token: token }).expect(200);
    expectSpecResponse(passed, 'loginPasskey');
    expect(passed.body.user.id).toBe(session.user.id);
    // The challenge is used up.
    await authOptions({ challenge_token: token }).expect(401);
  });

  it("another user's passkey neither completes my challenge nor can be renamed or removed by me", async () => {
    const me = await userWithPasskey('mine');
    const them = await userWithPasskey('theirs');
    const login = await stack.http
      .post('/api/users/login')
      .set('X-Forwarded-For', nextIp())
      .send({ email: me.email, password: PASSWORD })
      .expect(200);
    const token = login.body.challenge_token as string;
    const options = (await authOptions({ challenge_token: token }).expect(200)).body;
    await loginPasskey({ response: assert(them.credential, options, ORIGIN), challenge_token: token }).expect(401);

    await stack.http.patch(`/api/users/passkeys/${them.id}`).set(bearer(me.session.access_token)).send({ name: 'Mine now' }).expect(404);
    await stack.http.delete(`/api/users/passkeys/${them.id}`).set(bearer(me.session.access_token)).expect(404);
    const theirs = (await stack.http.get('/api/users/passkeys').set(bearer(them.session.access_token))).body.passkeys;
    expect(theirs).toEqual([expect.objectContaining({ id: them.id, name: 'Laptop' })]);
  });

  it('renames and removes; with no second factor left the password alone signs in again, and the passkey no longer does', async () => {
    const { email, credential, session, id } = await userWithPasskey('manage');
    const auth = bearer(session.access_token);
    const renamed = await stack.http.patch(`/api/users/passkeys/${id}`).set(auth).send({ name: 'Work laptop' }).expect(200);
    expectSpecResponse(renamed, 'renamePasskey');
    expect(renamed.body.name).toBe('Work laptop');
    await stack.http.patch(`/api/users/passkeys/${id}`).set(auth).send({ name: '' }).expect(400);

    await stack.http.delete(`/api/users/passkeys/${id}`).set(auth).expect(204);
    await stack.http.delete(`/api/users/passkeys/${id}`).set(auth).expect(404);
    const login = await stack.http.post('/api/users/login').set('X-Forwarded-For', nextIp()).send({ email, password: PASSWORD }).expect(200);
    expect(login.body).toHaveProperty('access_token');
    await loginPasskey({ response: assert(credential, (await authOptions().expect(200)).body, ORIGIN) }).expect(401);
  });

  it('with an authenticator app too, the challenge offers every method', async () => {
    const { email, session } = await userWithPasskey('both');
    const auth = bearer(session.access_token);
    const setup = await stack.http.post('/api/users/2fa/totp/setup').set(auth).expect(200);
    const secret = setup.body.secret as string;
    await stack.http
      .post('/api/users/2fa/totp/confirm')
      .set(auth)
      .set('X-Forwarded-For', nextIp())
      .send({ code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) - 30 }) })
      .expect(200);
    const login = await stack.http.post('/api/users/login').set('X-Forwarded-For', nextIp()).send({ email, password: PASSWORD }).expect(200);
    expect(login.body.methods).toEqual(['totp', 'recovery_code', 'passkey']);
  });

  it('confirms an account deletion as a second factor: options for the deletion’s challenge, then the passkey deletes it', async () => {
    const { email, credential, session } = await userWithPasskey('deleted');
    const ip = nextIp();
    await stack.http.post('/api/users/auth/send-deletion-otp').set('X-Forwarded-For', ip).send({ email }).expect(202);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /deletion code/.test(m.raw));
    const otp = /\b(\d{6})\b/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
    const verified = await stack.http.post('/api/users/auth/verify-deletion-otp').set('X-Forwarded-For', ip).send({ email, otp }).expect(200);
    expect(verified.body.two_factor.methods).toEqual(['passkey']);
    const token = verified.body.two_factor.challenge_token as string;
    const del = (body: object) =>
      stack.http
        .delete('/api/users/auth/delete-account')
        .set('X-Forwarded-For', ip)
        .send({ email, otp, ...body });

    // Options asked without the deletion's challenge (a password-free sign-in's) do not confirm it.
    const free = (await authOptions().expect(200)).body;
    await del({ challenge_token: token, passkey: assert(credential, free, ORIGIN) }).expect(401);
    const options = (await authOptions({ challenge_token: token }).expect(200)).body;
    expect(options.allowCredentials).toEqual([{ id: credential.id, type: 'public-key', transports: ['internal'] }]);
    // The deletion's challenge never signs in.
    await loginPasskey({ response: assert(credential, options, ORIGIN), challenge_token: token }).expect(401);
    const again = (await authOptions({ challenge_token: token }).expect(200)).body;
    const deleted = await del({ challenge_token: token, passkey: assert(credential, again, ORIGIN) }).expect(200);
    expectSpecResponse(deleted, 'deleteAccount');
    const rows = (await stack.db.query(`SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1`, [session.user.id])) as Array<{ n: number }>;
    expect(rows[0]!.n).toBe(0);
    await stack.http.post('/api/users/login').set('X-Forwarded-For', nextIp()).send({ email, password: PASSWORD }).expect(401);
  });
});
