/**
 * Passkeys on the real platform, with Chromium's virtual authenticator (CDP WebAuthn): add one on the Security page,
 * rename it, sign out, and sign in with it alone (no e-mail, no password); then the password alone leads to the
 * second step, which the passkey completes. The relying party is `localhost` (browsers refuse an IP address), so
 * this test uses the stack at http://localhost:<port>.
 */
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { signUpByApi } from '../support/platform';

/** A platform authenticator with user verification and resident keys: what a laptop's fingerprint reader is. */
async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

test('add a passkey, sign in with it alone, and use it as the second step after the password', async ({ page, request, baseURL }) => {
  test.setTimeout(120_000);
  const who = await signUpByApi(request);
  const origin = baseURL!.replace('127.0.0.1', 'localhost');
  const authenticator = await addVirtualAuthenticator(page);

  await page.goto(`${origin}/app/auth`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);

  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByText('You have no passkeys yet.')).toBeVisible();
  await page.getByLabel('Passkey name (optional)').fill('Test laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  const row = page.getByTestId('passkey-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Test laptop');
  await expect(row).toContainText('never used');
  // The authenticator holds one discoverable credential for this site and this account.
  const [credential] = await authenticator.credentials();
  expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
  expect(Buffer.from(credential!.userHandle!, 'base64').toString()).toBe(who.user.id);

  await row.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('New name').fill('Work laptop');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('Work laptop');

  // Signed out, the passkey alone signs in.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/app\/auth$/);
  await page.getByRole('button', { name: 'Continue with a passkey' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);
  await expect(page.locator('.app-welcome')).toContainText(who.username);

  // It is a second factor too: the password alone now leads to the second step, which the passkey completes.
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Use your passkey');
  expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByTestId('passkey-row')).toContainText(/last used/);
  const [used] = await authenticator.credentials();
  expect(used!.signCount).toBeGreaterThanOrEqual(2);
});
