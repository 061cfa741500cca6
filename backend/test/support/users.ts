import { CodesService } from '../../src/modules/accounts/codes.service';
import type { TestStack } from './app';
import { expectSpecResponse } from './contract';

let n = 0;

/**
 * Proves an address as sign-up does (a code, then verify-otp over HTTP) and returns the verification token.
 * The code is taken from the code store instead of an e-mail; the e-mail path has its own tests.
 */
export async function verifiedToken(stack: TestStack, email: string, ip: string, purpose: 'signup' | 'password_reset' = 'signup'): Promise<string> {
  const code = await stack.app.get(CodesService).issue(email.toLowerCase(), purpose);
  const res = await stack.http.post('/api/users/verify-otp').set('X-Forwarded-For', ip).send({ email, otp: code, purpose });
  if (res.status !== 200) throw new Error(`verify-otp ${res.status}: ${res.text}`);
  return res.body.verification_token as string;
}

/** A client IP of its own for each created user, so per-IP sign-up limits only bite where a test means them to. */
const userIp = () => `10.200.${Math.floor(++n / 250) % 250}.${n % 250}`;

/** Signs an address up (code → verify-otp → register) and returns the session's body. */
export async function register(stack: TestStack, email: string, password = 'a quiet mountain stream', username = email.split('@')[0]!) {
  const ip = userIp();
  const verification_token = await verifiedToken(stack, email, ip);
  const res = await stack.http.post('/api/users/register').set('X-Forwarded-For', ip).send({ email, password, username, verification_token });
  if (res.status !== 201) throw new Error(`register ${res.status}: ${res.text}`);
  return res.body as { access_token: string; refresh_token: string; user: { id: string; email: string; token_balance: number } };
}

/** A signed-up user with its token; each gets the configured welcome bonus. */
export async function newUser(stack: TestStack, name = 'user') {
  const email = `${name}-${Date.now().toString(36)}-${n + 1}@example.com`;
  const body = await register(stack, email, 'a quiet mountain stream', name);
  const id = body.user.id;
  const auth = { Authorization: `Bearer ${body.access_token}` };
  const wallet = await stack.http.get(`/api/wallet/${id}`).set(auth);
  return { id, email, auth, token: body.access_token, refreshToken: body.refresh_token, address: wallet.body.address as string };
}

/** A user with 1000 GLOB bought, and an API key of theirs (shown once: its secret here). */
export async function apiCustomer(stack: TestStack, name: string) {
  const user = await newUser(stack, name);
  await stack.http.post(`/api/wallet/${user.id}/purchase`).set(user.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
  const res = await stack.http
    .post('/api/api-keys')
    .set(user.auth)
    .send({ name: `${name} key` });
  expectSpecResponse(res, 'createApiKey');
  return { user, key: res.body.key as string, keyId: res.body.api_key.id as string };
}

/** A user's balance in milli-GLOB. */
export async function balanceUnits(stack: TestStack, u: { id: string; auth: Record<string, string> }): Promise<number> {
  return Math.round((await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body.balance * 1000);
}

/** A user's balance and what replies hold of it, in milli-GLOB. */
export async function walletUnits(stack: TestStack, u: { id: string; auth: Record<string, string> }): Promise<{ balance: number; held: number }> {
  const b = (await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body as { balance: number; pending_balance: number };
  return { balance: Math.round(b.balance * 1000), held: Math.round(b.pending_balance * 1000) };
}
