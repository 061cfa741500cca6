import { expectSpecResponse } from '../support/contract';
import { startOAuthServer } from '@glob/testing';
import { startStack, TestStack } from '../support/app';
import { register } from '../support/users';

describe('OAuth sign-in against a local OAuth 2 / OIDC server', () => {
  let stack: TestStack;
  let oauth: Awaited<ReturnType<typeof startOAuthServer>>;
  beforeAll(async () => {
    oauth = await startOAuthServer();
    stack = await startStack({ env: { ...oauth.env, PUBLIC_WEB_URL: 'http://localhost:5173' } });
  });
  afterAll(async () => {
    await stack.close();
    await oauth.close();
  });

  async function signIn(provider: string) {
    const url = await stack.http.get(`/api/users/oauth/auth-url/${provider}`).expect(200);
    expectSpecResponse(url, 'getOauthAuthUrl');
    const { code, state } = await oauth.authorize(url.body.authorization_url);
    expect(state).toBe(url.body.state);
    return stack.http.post(`/api/users/oauth/callback/${provider}`).send({ code, state, browser_nonce: url.body.browser_nonce });
  }

  it('builds an authorization URL with state, PKCE S256 and our redirect URI', async () => {
    const res = await stack.http.get('/api/users/oauth/auth-url/google').expect(200);
    const url = new URL(res.body.authorization_url);
    expect(url.searchParams.get('state')).toBe(res.body.state);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:5173/app/oauth/callback/google');
    expect(url.searchParams.get('client_id')).toBe('google-client');
    expect(url.searchParams.get('scope')).toBe('openid email profile');
  });

  it.each(['google', 'github', 'microsoft'])('signs in with %s: creates the account once, then signs it in again', async (provider) => {
    oauth.state.profile = { sub: `${provider}-42`, email: `${provider}.user@example.com`, email_verified: true, name: `${provider} user` };
    const first = await signIn(provider);
    expect(first.status).toBe(200);
    expectSpecResponse(first, 'oauthCallback');
    expect(first.body.is_new_user).toBe(true);
    expect(first.body.user.email).toBe(`${provider}.user@example.com`);
    await stack.http.get('/api/users/me').set('Authorization', `Bearer ${first.body.access_token}`).expect(200);

    const second = await signIn(provider);
    expect(second.status).toBe(200);
    expect(second.body.is_new_user).toBe(false);
    expect(second.body.user.id).toBe(first.body.user.id);
  });

  it('links a provider to the existing account with the same verified e-mail', async () => {
    const reg = { body: await register(stack, 'linked@example.com', 'a perfectly fine passphrase') };
    oauth.state.profile = { sub: 'gh-linked', email: 'Linked@Example.com', email_verified: true, name: 'Linked' };
    const res = await signIn('github');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_new_user: false, user: { id: reg.body.user.id } });
    const identities = (await stack.db.query(`SELECT provider, provider_user_id FROM identities WHERE user_id = $1`, [
      reg.body.user.id,
    ])) as unknown[];
    expect(identities).toEqual([{ provider: 'github', provider_user_id: 'gh-linked' }]);
    // The password still works too: one person, one account.
    await stack.http.post('/api/users/login').send({ email: 'linked@example.com', password: 'a perfectly fine passphrase' }).expect(200);
  });

  it('refuses a provider account without a verified e-mail (422)', async () => {
    oauth.state.profile = { sub: 'unverified', email: 'unverified@example.com', email_verified: false, name: 'U' };
    const res = await signIn('google');
    expect(res.status).toBe(422);
    expectSpecResponse(res, 'oauthCallback');
  });

  it('refuses a state it did not issue, a reused state, and a state of another provider (400)', async () => {
    oauth.state.profile = { sub: 'state-user', email: 'state@example.com', email_verified: true, name: 'S' };
    const bogus = await stack.http.post('/api/users/oauth/callback/google').send({ code: 'abc', state: 'not-issued' }).expect(400);
    expectSpecResponse(bogus, 'oauthCallback');
    expect(bogus.body.message).toBe('Invalid or expired OAuth state. Please try signing in again.');

    const url = await stack.http.get('/api/users/oauth/auth-url/google').expect(200);
    const { code, state } = await oauth.authorize(url.body.authorization_url);
    const browser_nonce = url.body.browser_nonce;
    await stack.http.post('/api/users/oauth/callback/google').send({ code, state, browser_nonce }).expect(200);
    await stack.http.post('/api/users/oauth/callback/google').send({ code, state, browser_nonce }).expect(400);

    const other = await stack.http.get('/api/users/oauth/auth-url/github').expect(200);
    const redirect = await oauth.authorize(other.body.authorization_url);
    await stack.http
      .post('/api/users/oauth/callback/google')
      .send({ ...redirect, browser_nonce: other.body.browser_nonce })
      .expect(400);
  });

  it("refuses a callback from another browser than the one that started the sign-in (login CSRF), and uses the attacker's state up", async () => {
    oauth.state.profile = { sub: 'attacker-1', email: 'attacker@example.com', email_verified: true, name: 'Attacker' };
    // The attacker starts a sign-in in their own browser and gets a code and state for their own account...
    const attacker = await stack.http.get('/api/users/oauth/auth-url/google').expect(200);
    const redirect = await oauth.authorize(attacker.body.authorization_url);
    // ...and makes the victim's browser post them. The victim's browser holds no nonce, or its own from another sign-in.
    const victim = await stack.http.get('/api/users/oauth/auth-url/google').expect(200);
    for (const browser_nonce of [undefined, victim.body.browser_nonce]) {
      const res = await stack.http.post('/api/users/oauth/callback/google').send({ ...redirect, ...(browser_nonce ? { browser_nonce } : {}) });
      expect(res.status).toBe(400);
      expectSpecResponse(res, 'oauthCallback');
      expect(res.body).not.toHaveProperty('access_token');
      if (browser_nonce === undefined)
        expect(res.body.message).toBe('This sign-in was started in another browser. Please sign in again from this one.');
    }
    // The refused attempt consumed the state: not even the attacker's own browser can finish it now.
    await stack.http
      .post('/api/users/oauth/callback/google')
      .send({ ...redirect, browser_nonce: attacker.body.browser_nonce })
      .expect(400);
    const users = (await stack.db.query(`SELECT 1 FROM users WHERE email = 'attacker@example.com'`)) as unknown[];
    expect(users).toHaveLength(0);
  });

  it('never links to an unverified account: a squatter of the address loses it to the Google sign-in', async () => {
    // Public sign-up can no longer create an account for an address nobody proved...
    const squat = await stack.http
      .post('/api/users/register')
      .set('X-Forwarded-For', '10.9.9.9')
      .send({ email: 'victim@example.com', password: 'the attackers own passphrase', username: 'attacker' })
      .expect(400);
    expect(squat.body.message).toBe('Email verification required');
    oauth.state.profile = { sub: 'victim-google', email: 'victim@example.com', email_verified: true, name: 'Victim' };
    const fresh = await signIn('google');
    expect(fresh.status).toBe(200);
    expect(fresh.body.is_new_user).toBe(true);
    await stack.http.post('/api/users/login').send({ email: 'victim@example.com', password: 'the attackers own passphrase' }).expect(401);

    // ...but unverified accounts made before that rule may exist: one holding an address with a password and a session.
    const legacy = await register(stack, 'legacy-victim@example.com', 'the attackers own passphrase');
    await stack.db.query(`UPDATE users SET email_verified_at = NULL WHERE id = $1`, [legacy.user.id]);
    const auth = { Authorization: `Bearer ${legacy.access_token}` };
    await stack.http.post('/api/chat/conversations').set(auth).send({ title: 'Squatter notes', model_id: 'llama-3.3-70b-instruct' }).expect(201);

    oauth.state.profile = { sub: 'legacy-victim-google', email: 'legacy-victim@example.com', email_verified: true, name: 'Victim' };
    const claimed = await signIn('google');
    expect(claimed.status).toBe(200);
    expect(claimed.body.user.id).toBe(legacy.user.id);
    // The squatter's password, session and conversations are gone; the account is the victim's now.
    await stack.http.post('/api/users/login').send({ email: 'legacy-victim@example.com', password: 'the attackers own passphrase' }).expect(401);
    await stack.http.get('/api/users/me').set(auth).expect(401);
    await stack.http.post('/api/users/refresh').send({ refresh_token: legacy.refresh_token }).expect(401);
    const victimAuth = { Authorization: `Bearer ${claimed.body.access_token}` };
    const list = await stack.http.get('/api/chat/conversations').set(victimAuth).expect(200);
    expect(list.body.conversations).toEqual([]);
    const [row] = (await stack.db.query(`SELECT password_hash, email_verified_at FROM users WHERE id = $1`, [legacy.user.id])) as Array<{
      password_hash: string | null;
      email_verified_at: Date | null;
    }>;
    expect(row).toMatchObject({ password_hash: null });
    expect(row!.email_verified_at).not.toBeNull();
  });

  it('answers 502 "OAuth login failed" when the provider refuses the code', async () => {
    oauth.state.failToken = true;
    try {
      const res = await signIn('microsoft');
      expect(res.status).toBe(502);
      expectSpecResponse(res, 'oauthCallback');
      expect(res.body.message).toBe('OAuth login failed');
    } finally {
      oauth.state.failToken = false;
    }
  });
});

describe('OAuth provider not configured', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { OAUTH_GOOGLE_CLIENT_ID: 'only-google', OAUTH_GOOGLE_CLIENT_SECRET: 's' } });
  });
  afterAll(() => stack.close());

  it('answers 404 "OAuth provider {provider} is not available" for a provider without a client id', async () => {
    const res = await stack.http.get('/api/users/oauth/auth-url/github').expect(404);
    expectSpecResponse(res, 'getOauthAuthUrl');
    expect(res.body.message).toBe('OAuth provider github is not available');
    const cb = await stack.http.post('/api/users/oauth/callback/microsoft').send({ code: 'x', state: 'y', browser_nonce: 'z' }).expect(404);
    expect(cb.body.message).toBe('OAuth provider microsoft is not available');
    await stack.http.get('/api/users/oauth/auth-url/google').expect(200);
    // A provider outside the spec's list never reaches the service.
    await stack.http.get('/api/users/oauth/auth-url/facebook').expect(400);
  });

  it('lists only the configured providers, which is all the sign-in page offers', async () => {
    const res = await stack.http.get('/api/users/oauth/providers').expect(200);
    expectSpecResponse(res, 'listOauthProviders');
    expect(res.body).toEqual({ providers: ['google'] });
  });
});
