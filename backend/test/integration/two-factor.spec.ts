import type Redis from 'ioredis';
import { generate } from 'otplib';
import { REDIS } from '../../src/redis/redis.module';
import { expectSpecResponse } from '../support/contract';
import { startOAuthServer, startSmtpCatcher } from '@glob/testing';
import { register, verifiedToken } from '../support/users';
import { startStack, TestStack } from '../support/app';

type Smtp = Awaited<ReturnType<typeof startSmtpCatcher>>;
type OAuth = Awaited<ReturnType<typeof startOAuthServer>>;

const PASSWORD = 'a quiet mountain stream';
/** Wrong codes allowed per IP in this stack (per account: the default, 5). */
const IP_LIMIT = 8;

let ipCounter = 0;
/** Each request group speaks from its own client IP, so per-IP limits only bite where a test means them to. */
const nextIp = () => `10.42.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
let userCounter = 0;
const nextEmail = (name: string) => `${name}-${++userCounter}@example.com`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What an authenticator app shows for the 30-second step `steps` away from now. Computed away from a step's edge,
 * so the server (which allows one step of drift either way) judges it against the same current step.
 */
async function totp(secret: string, steps = 0): Promise<string> {
  const into = (Date.now() / 1000) % 30;
  if (into > 27) await sleep((30 - into) * 1000 + 100);
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

/** A mail's text with quoted-printable soft line breaks joined. */
const textOf = (raw: string) => raw.replace(/=\r?\n/g, '');

/** Everything the API and worker processes of this test write (Nest logs), to check no secret is ever in them. */
const logged: string[] = [];
const writes = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

describe('two-factor sign-in (TOTP and recovery codes)', () => {
  let stack: TestStack;
  let smtp: Smtp;
  let oauth: OAuth;
  /** Every secret, code and challenge the tests saw, for the log check at the end. */
  const secrets: string[] = [];

  beforeAll(async () => {
    // Everything is kept for the check; only warnings and errors are passed on, as LOG_LEVEL=warn would.
    const capture = (write: typeof process.stdout.write) =>
      ((chunk: string | Uint8Array, ...rest: never[]) => {
        const text = String(chunk);
        logged.push(text);
        return /"level":"(warn|error|fatal)"/.test(text) ? write(chunk, ...rest) : true;
      }) as typeof process.stdout.write;
    process.stdout.write = capture(writes.out);
    process.stderr.write = capture(writes.err);
    smtp = await startSmtpCatcher();
    oauth = await startOAuthServer();
    stack = await startStack({
      worker: true,
      env: {
        SMTP_URL: smtp.url,
        ...oauth.env,
        PUBLIC_WEB_URL: 'http://localhost:5173',
        TWO_FACTOR_IP_RATE_LIMIT: String(IP_LIMIT),
        LOG_LEVEL: 'verbose',
      },
    });
  });

  afterAll(async () => {
    await stack.close();
    await oauth.close();
    await smtp.close();
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  });

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  function login(email: string, password = PASSWORD, ip = nextIp()) {
    return stack.http.post('/api/users/login').set('X-Forwarded-For', ip).send({ email, password });
  }

  function secondStep(body: Record<string, string>, ip = nextIp()) {
    return stack.http.post('/api/users/login/2fa').set('X-Forwarded-For', ip).send(body);
  }

  /** A password challenge for the account (the right password, two-factor sign-in on). */
  async function challenge(email: string, password = PASSWORD): Promise<string> {
    const res = await login(email, password).expect(200);
    expectSpecResponse(res, 'login');
    expect(res.body).not.toHaveProperty('access_token');
    secrets.push(res.body.challenge_token);
    return res.body.challenge_token as string;
  }

  /** Sets up and confirms an authenticator (with the previous step's code, leaving the current and next for sign-ins). */
  async function enrol(accessToken: string) {
    const setup = await stack.http.post('/api/users/2fa/totp/setup').set(bearer(accessToken)).expect(200);
    expectSpecResponse(setup, 'startTotpSetup');
    const secret = setup.body.secret as string;
    const confirmed = await stack.http
      .post('/api/users/2fa/totp/confirm')
      .set(bearer(accessToken))
      .set('X-Forwarded-For', nextIp())
      .send({ code: await totp(secret, -1) })
      .expect(200);
    expectSpecResponse(confirmed, 'confirmTotpSetup');
    const recoveryCodes = confirmed.body.recovery_codes as string[];
    secrets.push(secret, ...recoveryCodes);
    return { secret, recoveryCodes, uri: setup.body.otpauth_uri as string };
  }

  /** A password account with two-factor sign-in on. */
  async function userWithTotp(name: string) {
    const email = nextEmail(name);
    const session = await register(stack, email, PASSWORD, name);
    return { email, session, ...(await enrol(session.access_token)) };
  }

  it('enrols: a QR URI and the secret, pending until a first code, then 10 recovery codes shown once and stored hashed', async () => {
    const email = nextEmail('enrol');
    const { access_token, user } = await register(stack, email, PASSWORD, 'enrol');
    const auth = bearer(access_token);
    const off = await stack.http.get('/api/users/2fa').set(auth).expect(200);
    expectSpecResponse(off, 'getTwoFactorStatus');
    expect(off.body).toEqual({ totp_enabled: false, enabled_at: null, pending_setup: false, recovery_codes_left: 0 });

    // A new setup replaces one that was not confirmed: the first secret's codes no longer turn it on.
    const first = await stack.http.post('/api/users/2fa/totp/setup').set(auth).expect(200);
    const setup = await stack.http.post('/api/users/2fa/totp/setup').set(auth).expect(200);
    expectSpecResponse(setup, 'startTotpSetup');
    const secret = setup.body.secret as string;
    secrets.push(first.body.secret, secret);
    expect(secret).not.toBe(first.body.secret);
    expect(setup.body).toMatchObject({ issuer: 'Glob Network', account_name: email, digits: 6, period: 30, algorithm: 'SHA1' });
    const uri = new URL(setup.body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/Glob Network:${email}`);
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Glob Network');
    expect((await stack.http.get('/api/users/2fa').set(auth).expect(200)).body).toMatchObject({ totp_enabled: false, pending_setup: true });

    // Nothing changes at sign-in while the setup is pending.
    expect((await login(email).expect(200)).body).toHaveProperty('access_token');

    // The secret is stored encrypted under the server's key.
    const [row] = (await stack.db.query(`SELECT totp_secret, enabled_at FROM user_two_factor WHERE user_id = $1`, [user.id])) as Array<{
      totp_secret: string;
      enabled_at: Date | null;
    }>;
    expect(row!.enabled_at).toBeNull();
    expect(row!.totp_secret).not.toContain(secret);
    expect(row!.totp_secret).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(row!.totp_secret.slice(3), 'base64').toString('latin1')).not.toContain(secret);

    const ip = nextIp();
    const stale = await stack.http
      .post('/api/users/2fa/totp/confirm')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: await totp(first.body.secret) })
      .expect(400);
    expectSpecResponse(stale, 'confirmTotpSetup');
    expect(stale.body.message).toBe('Invalid authentication code. Please try again.');

    const confirmed = await stack.http
      .post('/api/users/2fa/totp/confirm')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: await totp(secret) })
      .expect(200);
    expectSpecResponse(confirmed, 'confirmTotpSetup');
    const codes = confirmed.body.recovery_codes as string[];
    secrets.push(...codes);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    const on = await stack.http.get('/api/users/2fa').set(auth).expect(200);
    expectSpecResponse(on, 'getTwoFactorStatus');
    expect(on.body).toMatchObject({ totp_enabled: true, pending_setup: false, recovery_codes_left: 10 });
    expect(Date.parse(on.body.enabled_at)).toBeGreaterThan(Date.now() - 60_000);

    const stored = (await stack.db.query(`SELECT code_hash FROM recovery_codes WHERE user_id = $1`, [user.id])) as Array<{ code_hash: string }>;
    expect(stored).toHaveLength(10);
    for (const { code_hash } of stored) {
      expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
      for (const code of codes) expect(code_hash).not.toContain(code.replace('-', ''));
    }

    // Once on, neither another setup nor another confirmation is possible.
    const again = await stack.http.post('/api/users/2fa/totp/setup').set(auth).expect(409);
    expectSpecResponse(again, 'startTotpSetup');
    const reconfirm = await stack.http
      .post('/api/users/2fa/totp/confirm')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: await totp(secret, 1) })
      .expect(409);
    expect(reconfirm.body.message).toBe('Two-factor sign-in is already on.');

    const mail = await smtp.waitFor((m) => m.to.includes(email) && /Two-factor sign-in is on/.test(m.raw));
    for (const secretText of [secret, ...codes]) expect(textOf(mail.raw)).not.toContain(secretText);
  });

  it('signs in with the password only as far as a challenge; a code gives the session; the same code is refused after', async () => {
    const { email, secret, session } = await userWithTotp('signin');
    const token = await challenge(email);
    const login200 = await login(email);
    expect(login200.body).toMatchObject({ two_factor_required: true, methods: ['totp', 'recovery_code'], expires_in: 300 });
    secrets.push(login200.body.challenge_token);

    // A wrong password still answers 401, as for any account.
    await login(email, 'not the password at all').expect(401);

    const code = await totp(secret);
    secrets.push(code);
    const wrong = await secondStep({ challenge_token: token, code: code === '000000' ? '000001' : '000000' }).expect(401);
    expectSpecResponse(wrong, 'loginTwoFactor');
    expect(wrong.body.message).toBe('Invalid authentication code. Please try again.');

    // The wrong code left the challenge usable.
    const signedIn = await secondStep({ challenge_token: token, code }).expect(200);
    expectSpecResponse(signedIn, 'loginTwoFactor');
    expect(signedIn.body.user.id).toBe(session.user.id);
    await stack.http.get('/api/users/me').set(bearer(signedIn.body.access_token)).expect(200);
    await stack.http.post('/api/users/refresh').send({ refresh_token: signedIn.body.refresh_token }).expect(200);

    // The challenge is used up, and the code is accepted only once, on any challenge.
    const used = await secondStep({ challenge_token: token, code: await totp(secret, 1) }).expect(401);
    expect(used.body.message).toBe('This sign-in has expired. Please sign in again.');
    const replay = await secondStep({ challenge_token: login200.body.challenge_token, code }).expect(401);
    expectSpecResponse(replay, 'loginTwoFactor');
    expect(replay.body.message).toBe('This code has already been used. Please wait for the next one.');
    // The previous step's code is older than the one used: refused too.
    expect((await secondStep({ challenge_token: login200.body.challenge_token, code: await totp(secret, -1) }).expect(401)).body.message).toMatch(
      /already been used|Invalid authentication code/,
    );
    // The next step's code (one step of drift) works.
    await secondStep({ challenge_token: login200.body.challenge_token, code: await totp(secret, 1) }).expect(200);

    const unknown = await secondStep({ challenge_token: 'tfc_not-issued', code: await totp(secret) }).expect(401);
    expect(unknown.body.message).toBe('This sign-in has expired. Please sign in again.');
    const both = await secondStep({ challenge_token: token, code: '123456', recovery_code: 'abcde-fghjk' }).expect(400);
    expectSpecResponse(both, 'loginTwoFactor');
  });

  it('signs in once with each recovery code, counts them down, e-mails the owner, and makes new ones on request', async () => {
    const { email, session, recoveryCodes } = await userWithTotp('recovery');
    const auth = bearer(session.access_token);
    const [firstCode, secondCode, thirdCode] = recoveryCodes;

    // Typed in capitals without the hyphen, it still works.
    const typed = firstCode!.toUpperCase().replace('-', '');
    const first = await secondStep({ challenge_token: await challenge(email), recovery_code: typed }).expect(200);
    expectSpecResponse(first, 'loginTwoFactor');
    expect((await stack.http.get('/api/users/2fa').set(auth).expect(200)).body.recovery_codes_left).toBe(9);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /A recovery code was used/.test(m.raw));
    expect(textOf(mail.raw)).toContain('9 recovery codes are left');
    for (const code of recoveryCodes) expect(textOf(mail.raw)).not.toContain(code);

    const again = await secondStep({ challenge_token: await challenge(email), recovery_code: firstCode! }).expect(401);
    expectSpecResponse(again, 'loginTwoFactor');
    expect(again.body.message).toBe('Invalid or already used recovery code.');

    // New codes, proved with a recovery code: every earlier one stops working.
    const renewed = await stack.http
      .post('/api/users/2fa/recovery-codes')
      .set(auth)
      .set('X-Forwarded-For', nextIp())
      .send({ recovery_code: secondCode })
      .expect(200);
    expectSpecResponse(renewed, 'regenerateRecoveryCodes');
    const fresh = renewed.body.recovery_codes as string[];
    secrets.push(...fresh);
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(thirdCode);
    expect((await stack.http.get('/api/users/2fa').set(auth).expect(200)).body.recovery_codes_left).toBe(10);
    await secondStep({ challenge_token: await challenge(email), recovery_code: thirdCode! }).expect(401);
    await secondStep({ challenge_token: await challenge(email), recovery_code: fresh[0]! }).expect(200);
  });

  it('a challenge takes 5 wrong codes, then its sign-in starts again (password included)', async () => {
    const { email, secret } = await userWithTotp('per-challenge');
    const token = await challenge(email);
    const wrong = (await totp(secret)) === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) {
      const res = await secondStep({ challenge_token: token, code: wrong }, nextIp());
      // Spacing starts after the account's 5th wrong code: the 5th waited 0 s, and this test waits out none.
      expect(res.status).toBe(401);
    }
    const used = await secondStep({ challenge_token: token, code: await totp(secret) }, nextIp()).expect(401);
    expectSpecResponse(used, 'loginTwoFactor');
    expect(used.body.message).toBe('This sign-in has expired. Please sign in again.');
  });

  it('wrong codes slow the account’s tries (429, Retry-After doubling) but never keep its owner’s right code out', async () => {
    const { email, secret } = await userWithTotp('slowed');
    const wrong = (await totp(secret)) === '555555' ? '666666' : '555555';
    // Someone holding the password guesses from many IPs, 5 wrong codes per challenge (so no challenge runs out).
    const attacker = await challenge(email);
    for (let i = 0; i < 5; i++) expect((await secondStep({ challenge_token: attacker, code: wrong }, nextIp())).status).toBe(401);
    // Past the account's 5, its next tries are spaced: the attacker's second try on a challenge comes too soon.
    const second = await challenge(email);
    expect((await secondStep({ challenge_token: second, code: wrong }, nextIp())).status).toBe(401); // a challenge's first try
    const limited = await secondStep({ challenge_token: second, code: wrong }, nextIp()).expect(429);
    expectSpecResponse(limited, 'loginTwoFactor');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(limited.body.message).toBe(`Too many wrong codes. Please try again in ${retryAfter} seconds.`);
    // The owner signs in afresh: a new challenge's first try is never delayed, and the right code passes at once.
    const owner = await challenge(email);
    const signedIn = await secondStep({ challenge_token: owner, code: await totp(secret) }, nextIp()).expect(200);
    expect(signedIn.body.access_token).toEqual(expect.any(String));
    // The right code started the account afresh: no spacing left for the next sign-in.
    const after = await challenge(email);
    expect((await secondStep({ challenge_token: after, code: wrong }, nextIp())).status).toBe(401);
    expect((await secondStep({ challenge_token: after, code: wrong }, nextIp())).status).toBe(401);
  });

  it('spaces the account’s tries exponentially as wrong codes go on (1 s, 2 s, 4 s …), at most 5 minutes', async () => {
    const { email, secret, session } = await userWithTotp('spaced');
    const wrong = (await totp(secret)) === '777777' ? '888888' : '777777';
    const key = `${stack.config.redis.prefix}:2fa-wrong:${session.user.id}`;
    const redis = stack.app.get<Redis>(REDIS);
    // 9 wrong codes recorded just now: 4 over the free 5, so the next try is due 16 s after the last.
    await redis.hset(key, 'wrong', '9', 'at', String(Date.now()));
    const token = await challenge(email);
    expect((await secondStep({ challenge_token: token, code: wrong }, nextIp())).status).toBe(401); // first try of a challenge
    const slowed = await secondStep({ challenge_token: token, code: wrong }, nextIp()).expect(429);
    // 10 wrong codes now (5 over): 32 s from the last.
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(30);
    expect(Number(slowed.headers['retry-after'])).toBeLessThanOrEqual(32);
    await redis.hset(key, 'wrong', '40', 'at', String(Date.now()));
    const capped = await secondStep({ challenge_token: token, code: wrong }, nextIp()).expect(429);
    expect(Number(capped.headers['retry-after'])).toBeLessThanOrEqual(300);
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(295);
  });

  it('limits wrong codes per IP across accounts; the same account from elsewhere still signs in', async () => {
    const a = await userWithTotp('ip-a');
    const b = await userWithTotp('ip-b');
    const ip = nextIp();
    const tokenA = await challenge(a.email);
    const tokenB = await challenge(b.email);
    const half = IP_LIMIT / 2;
    for (const [token, secret] of [
      [tokenA, a.secret],
      [tokenB, b.secret],
    ] as const) {
      const wrong = (await totp(secret)) === '333333' ? '444444' : '333333';
      for (let i = 0; i < half; i++) expect((await secondStep({ challenge_token: token, code: wrong }, ip)).status).toBe(401);
    }
    const limited = await secondStep({ challenge_token: tokenB, code: await totp(b.secret) }, ip).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // B has 4 wrong codes of its 5: the right code from another IP passes, and gives its try back.
    await secondStep({ challenge_token: tokenB, code: await totp(b.secret) }, nextIp()).expect(200);
  });

  it('asks an OAuth sign-in for the second step too: an account made by the provider, and a password account it links to', async () => {
    async function oauthSignIn(provider: string) {
      const url = await stack.http.get(`/api/users/oauth/auth-url/${provider}`).expect(200);
      const { code, state } = await oauth.authorize(url.body.authorization_url);
      return stack.http.post(`/api/users/oauth/callback/${provider}`).send({ code, state, browser_nonce: url.body.browser_nonce });
    }

    const socialEmail = nextEmail('social');
    oauth.state.profile = { sub: 'google-2fa-1', email: socialEmail, email_verified: true, name: 'Social' };
    const created = await oauthSignIn('google');
    expect(created.status).toBe(200);
    expect(created.body.is_new_user).toBe(true);
    const { secret } = await enrol(created.body.access_token);
    const challenged = await oauthSignIn('google');
    expect(challenged.status).toBe(200);
    expectSpecResponse(challenged, 'oauthCallback');
    expect(challenged.body).toMatchObject({ two_factor_required: true, methods: ['totp', 'recovery_code'] });
    expect(challenged.body).not.toHaveProperty('access_token');
    secrets.push(challenged.body.challenge_token);
    const session = await secondStep({ challenge_token: challenged.body.challenge_token, code: await totp(secret) }).expect(200);
    expect(session.body.user.id).toBe(created.body.user.id);

    const withPassword = await userWithTotp('linked');
    oauth.state.profile = { sub: 'github-2fa-2', email: withPassword.email, email_verified: true, name: 'Linked' };
    const linked = await oauthSignIn('github');
    expect(linked.status).toBe(200);
    expectSpecResponse(linked, 'oauthCallback');
    expect(linked.body).not.toHaveProperty('access_token');
    secrets.push(linked.body.challenge_token);
    const viaLink = await secondStep({ challenge_token: linked.body.challenge_token, recovery_code: withPassword.recoveryCodes[0]! }).expect(200);
    expect(viaLink.body.user.id).toBe(withPassword.session.user.id);
  });

  it('gives no tokens without the second step on any other path: a password reset waits for the code, sign-up answers 409', async () => {
    const { email, secret, session } = await userWithTotp('reset');
    const ip = nextIp();
    const token = await verifiedToken(stack, email, ip, 'password_reset');
    const newPassword = 'a completely new passphrase';
    const reset = await stack.http
      .post('/api/users/reset-password')
      .set('X-Forwarded-For', ip)
      .send({ email, password: newPassword, verification_token: token });
    expect(reset.status).toBe(200);
    expectSpecResponse(reset, 'resetPassword');
    expect(reset.body).toMatchObject({ two_factor_required: true });
    expect(reset.body).not.toHaveProperty('access_token');
    secrets.push(reset.body.challenge_token);

    // Nothing changed yet: the old password is still the password, the old session still works.
    await login(email, newPassword).expect(401);
    expect((await login(email).expect(200)).body).toMatchObject({ two_factor_required: true });
    await stack.http.get('/api/users/me').set(bearer(session.access_token)).expect(200);
    // The verification token was used up by the reset.
    await stack.http
      .post('/api/users/reset-password')
      .set('X-Forwarded-For', ip)
      .send({ email, password: newPassword, verification_token: token })
      .expect(400);

    const done = await secondStep({ challenge_token: reset.body.challenge_token, code: await totp(secret) }).expect(200);
    expectSpecResponse(done, 'loginTwoFactor');
    await stack.http.get('/api/users/me').set(bearer(done.body.access_token)).expect(200);
    await stack.http.get('/api/users/me').set(bearer(session.access_token)).expect(401);
    await stack.http.post('/api/users/refresh').send({ refresh_token: session.refresh_token }).expect(401);
    await login(email).expect(401);
    expect((await login(email, newPassword).expect(200)).body).toMatchObject({ two_factor_required: true });

    // Signing up with the address, by either operation, never signs in.
    for (const path of ['/api/users/register', '/api/users/register-with-otp']) {
      const signupIp = nextIp();
      const verification_token = await verifiedToken(stack, email, signupIp);
      const res = await stack.http
        .post(path)
        .set('X-Forwarded-For', signupIp)
        .send({ email, password: PASSWORD, username: 'again', verification_token });
      expect(res.status).toBe(409);
      expect(res.body).not.toHaveProperty('access_token');
    }
  });

  it('turns off with a current code (not a wrong one), e-mails the owner, and the password alone signs in again', async () => {
    const { email, secret, session } = await userWithTotp('disable');
    const auth = bearer(session.access_token);
    const ip = nextIp();
    const wrong = await stack.http
      .post('/api/users/2fa/totp/disable')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: (await totp(secret)) === '555555' ? '666666' : '555555' })
      .expect(400);
    expectSpecResponse(wrong, 'disableTotp');
    expect(wrong.body.message).toBe('Invalid authentication code. Please try again.');
    expect((await login(email).expect(200)).body).toHaveProperty('two_factor_required', true);

    const off = await stack.http
      .post('/api/users/2fa/totp/disable')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: await totp(secret) })
      .expect(200);
    expectSpecResponse(off, 'disableTotp');
    expect(off.body).toEqual({ totp_enabled: false, enabled_at: null, pending_setup: false, recovery_codes_left: 0 });
    await smtp.waitFor((m) => m.to.includes(email) && /Two-factor sign-in is off/.test(m.raw));

    const signedIn = await login(email).expect(200);
    expectSpecResponse(signedIn, 'login');
    expect(signedIn.body).toHaveProperty('access_token');
    const rows = (await stack.db.query(
      `SELECT (SELECT count(*) FROM user_two_factor WHERE user_id = $1)::int AS factors, (SELECT count(*) FROM recovery_codes WHERE user_id = $1)::int AS codes`,
      [session.user.id],
    )) as Array<{ factors: number; codes: number }>;
    expect(rows[0]).toEqual({ factors: 0, codes: 0 });

    const twice = await stack.http
      .post('/api/users/2fa/totp/disable')
      .set(auth)
      .set('X-Forwarded-For', ip)
      .send({ code: await totp(secret, 1) })
      .expect(409);
    expectSpecResponse(twice, 'disableTotp');
  });

  /** Step 1 and 2 of account deletion: the e-mailed code, and verify-deletion-otp's answer. */
  async function deletionCode(email: string, ip: string) {
    await stack.http.post('/api/users/auth/send-deletion-otp').set('X-Forwarded-For', ip).send({ email }).expect(202);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /deletion code/.test(m.raw));
    const otp = /\b(\d{6})\b/.exec(textOf(mail.raw))![1]!;
    const verified = await stack.http.post('/api/users/auth/verify-deletion-otp').set('X-Forwarded-For', ip).send({ email, otp }).expect(200);
    expectSpecResponse(verified, 'verifyDeletionOtp');
    return { otp, verified: verified.body };
  }

  async function factorsLeft(userId: string) {
    const rows = (await stack.db.query(
      `SELECT (SELECT count(*) FROM user_two_factor WHERE user_id = $1)::int AS factors, (SELECT count(*) FROM recovery_codes WHERE user_id = $1)::int AS codes`,
      [userId],
    )) as Array<{ factors: number; codes: number }>;
    return rows[0];
  }

  it('deletes an account with two-factor sign-in on only with its second factor too: the e-mailed code alone is refused', async () => {
    const { email, secret, session } = await userWithTotp('deleted');
    const ip = nextIp();
    const { otp, verified } = await deletionCode(email, ip);
    expect(verified.two_factor).toMatchObject({ two_factor_required: true, methods: ['totp', 'recovery_code'] });
    const token = verified.two_factor.challenge_token as string;
    secrets.push(token);
    const del = (body: object) =>
      stack.http
        .delete('/api/users/auth/delete-account')
        .set('X-Forwarded-For', ip)
        .send({ email, otp, ...body });

    const alone = await del({}).expect(401);
    expectSpecResponse(alone, 'deleteAccount');
    expect(alone.body.message).toBe('This account has two-factor sign-in: confirm with your authenticator app, a recovery code or a passkey.');
    const wrong = (await totp(secret)) === '121212' ? '343434' : '121212';
    expect((await del({ challenge_token: token, code: wrong }).expect(401)).body.message).toBe('Invalid authentication code. Please try again.');
    // A sign-in's challenge cannot delete the account, nor the deletion's sign in.
    const signIn = await challenge(email);
    expect((await del({ challenge_token: signIn, code: await totp(secret) }).expect(401)).body.message).toBe(
      'This confirmation has expired. Please verify your e-mail code again.',
    );
    expect((await secondStep({ challenge_token: token, code: await totp(secret) }).expect(401)).body.message).toBe(
      'This sign-in has expired. Please sign in again.',
    );
    expect(await factorsLeft(session.user.id)).toEqual({ factors: 1, codes: 10 });

    // The e-mailed code survived the refusals: with a current code, the account goes, its factors with it.
    await del({ challenge_token: token, code: await totp(secret, 1) }).expect(200);
    expect((await login(email).expect(401)).body.message).toBe('Invalid email or password');
    expect(await factorsLeft(session.user.id)).toEqual({ factors: 0, codes: 0 });
  });

  it('deletes an account with two-factor sign-in on with a recovery code (used up) instead of a current code', async () => {
    const { email, recoveryCodes, session } = await userWithTotp('deleted-recovery');
    const ip = nextIp();
    const { otp, verified } = await deletionCode(email, ip);
    secrets.push(verified.two_factor.challenge_token);
    await stack.http
      .delete('/api/users/auth/delete-account')
      .set('X-Forwarded-For', ip)
      .send({ email, otp, challenge_token: verified.two_factor.challenge_token, recovery_code: recoveryCodes[0] })
      .expect(200);
    expect((await login(email).expect(401)).body.message).toBe('Invalid email or password');
    expect(await factorsLeft(session.user.id)).toEqual({ factors: 0, codes: 0 });
  });

  it('an account without a second factor is deleted by its e-mailed code alone, as before', async () => {
    const email = nextEmail('plain-deleted');
    await register(stack, email, PASSWORD, 'plain');
    const ip = nextIp();
    const { otp, verified } = await deletionCode(email, ip);
    expect(verified).not.toHaveProperty('two_factor');
    await stack.http.delete('/api/users/auth/delete-account').set('X-Forwarded-For', ip).send({ email, otp }).expect(200);
  });

  it('never writes a secret, a recovery code or a challenge to the logs', async () => {
    // Let the worker's last mail logs arrive.
    await sleep(200);
    const text = logged.join('');
    // The capture saw the app's own logs (the mail worker's, at least: it names the jobs it sent, never their addresses).
    expect(text).toMatch(/Sent mail job \d+/);
    expect(secrets.length).toBeGreaterThan(30);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
