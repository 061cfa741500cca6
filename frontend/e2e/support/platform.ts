/**
 * The full-stack tests' side of e2e/support/stack.mjs: the e-mails its SMTP server caught (sign-up and deletion
 * codes), the next profile its local OAuth server (standing in for Google) reports, and account set-up through the API.
 */
import { randomBytes } from 'node:crypto';
import { expect, type APIRequestContext } from '@playwright/test';

const control = () => `http://127.0.0.1:${process.env.E2E_CONTROL_PORT}`;

export interface CaughtMail {
  seq: number;
  to: string[];
  subject: string;
  /** The 6-digit code of a sign-up or deletion e-mail, else null. */
  code: string | null;
  raw: string;
}

/** The sequence number of the last e-mail caught so far: pass it as `since` to wait only for newer ones. */
export async function mailMark(): Promise<number> {
  const res = await fetch(`${control()}/mail?to=nobody@invalid`);
  return ((await res.json()) as { last: number }).last;
}

export type CodeKind = 'signup' | 'deletion' | 'password_reset';
const SUBJECTS: Record<CodeKind, RegExp> = {
  signup: /verification code$/,
  deletion: /account deletion code$/,
  password_reset: /password reset code$/,
};

/** Waits for the first e-mail newer than `since` to `email` carrying a code of that kind, and returns the code. */
export async function codeFor(email: string, kind: CodeKind, since: number, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${control()}/mail?to=${encodeURIComponent(email)}&since=${since}`);
    const { mails } = (await res.json()) as { mails: CaughtMail[] };
    const hit = mails.find((m) => SUBJECTS[kind].test(m.subject) && m.code);
    if (hit) return hit.code!;
    if (Date.now() > deadline) throw new Error(`No ${kind} code e-mailed to ${email} (saw: ${mails.map((m) => m.subject).join('; ') || 'nothing'})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface OAuthProfile {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/** Who the local OAuth server ("Google") signs in next. */
export async function setOAuthProfile(profile: Partial<OAuthProfile>): Promise<OAuthProfile> {
  const res = await fetch(`${control()}/oauth/profile`, { method: 'POST', body: JSON.stringify(profile) });
  return ((await res.json()) as { profile: OAuthProfile }).profile;
}

/** A fresh address for this run (the database is the run's own, but tests in parallel must not share one). */
export function uniqueEmail(prefix: string): string {
  return `${prefix}.${randomBytes(4).toString('hex')}@example.com`;
}

export interface SignedUp {
  email: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  user: { id: string; email: string; username: string | null; token_balance: number };
}

/** Signs up through the API exactly as the web app does: send-otp → e-mailed code → verify-otp → register-with-otp. */
export async function signUpByApi(
  request: APIRequestContext,
  opts: { email?: string; username?: string; password?: string } = {},
): Promise<SignedUp> {
  const email = opts.email ?? uniqueEmail('api');
  const username = opts.username ?? `user_${randomBytes(3).toString('hex')}`;
  const password = opts.password ?? `Sturdy-${randomBytes(6).toString('hex')}`;
  const since = await mailMark();
  const sent = await request.post('/api/users/send-otp', { data: { email, purpose: 'signup' } });
  expect(sent.status(), await sent.text()).toBe(202);
  const otp = await codeFor(email, 'signup', since);
  const verified = await request.post('/api/users/verify-otp', { data: { email, otp, purpose: 'signup' } });
  expect(verified.status(), await verified.text()).toBe(200);
  const { verification_token } = (await verified.json()) as { verification_token: string };
  const registered = await request.post('/api/users/register-with-otp', { data: { email, password, username, verification_token } });
  expect(registered.status(), await registered.text()).toBe(201);
  const body = (await registered.json()) as { access_token: string; refresh_token: string; user: SignedUp['user'] };
  return { email, username, password, accessToken: body.access_token, refreshToken: body.refresh_token, user: body.user };
}

/** GET with the account's bearer token; fails the test unless 200. */
export async function apiGet<T>(request: APIRequestContext, path: string, accessToken: string): Promise<T> {
  const res = await request.get(path, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()) as T;
}

export interface WalletView {
  address: string;
  balance: number;
}

export const wallet = (request: APIRequestContext, who: SignedUp) => apiGet<WalletView>(request, `/api/wallet/${who.user.id}`, who.accessToken);
