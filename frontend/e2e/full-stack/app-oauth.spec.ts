/**
 * Second journey: social sign-in with Google, where "Google" is the local OpenID Connect server the
 * stack started (oauth2-mock-server: real authorize, token with PKCE, userinfo). The backend's redirect URI is the web
 * app's own /app/oauth/callback/google on the stack's origin.
 */
import { randomBytes } from 'node:crypto';
import { statValue } from '../support/app';
import { query } from '../support/db';
import { expect, test } from '../support/fixtures';
import { setOAuthProfile, uniqueEmail } from '../support/platform';

test('Google button → the provider signs in → callback page says Success! → dashboard', async ({ page, baseURL }) => {
  const email = uniqueEmail('hopper');
  await setOAuthProfile({ sub: `google-${randomBytes(6).toString('hex')}`, email, email_verified: true, name: 'Grace Hopper' });

  await page.goto('/app/auth');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your account');
  const authUrl = page.waitForResponse((r) => r.url().endsWith('/api/users/oauth/auth-url/google'));
  const callback = page.waitForResponse((r) => r.url().endsWith('/api/users/oauth/callback/google') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Google' }).click();
  expect((await authUrl).status()).toBe(200);

  // Back from the provider on the web app's callback route, with the provider's code and the server's state.
  await page.waitForURL(/\/app\/oauth\/callback\/google\?/);
  const back = new URL(page.url());
  expect(`${back.origin}${back.pathname}`).toBe(`${baseURL}/app/oauth/callback/google`);
  expect(back.searchParams.get('code')).toBeTruthy();
  expect(back.searchParams.get('state')).toBeTruthy();
  expect((await callback).status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Success!');
  await expect(page.getByRole('status')).toHaveText('You are signed in. Taking you to your dashboard...');

  // After 1.5 s, the dashboard of the account the provider vouched for (created now, with its welcome bonus).
  await expect(page).toHaveURL(/\/app\/dashboard$/, { timeout: 10_000 });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
  // The account is named after the provider's profile.
  await expect(page.locator('.app-welcome')).toHaveText('Welcome back, Grace Hopper');
  await expect(page.getByText('Welcome back, Grace Hopper!')).toBeVisible();
  await expect(statValue(page, 'Token Balance')).toHaveText('1,000');
  const rows = await query<{ provider: string }>(
    'SELECT i.provider FROM identities i JOIN users u ON u.id = i.user_id WHERE lower(u.email) = lower($1)',
    [email],
  );
  expect(rows).toEqual([{ provider: 'google' }]);
});
