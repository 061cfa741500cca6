/**
 * Two-factor sign-in on the real platform: set up an authenticator app on the Security page with a code computed
 * here from the key the page shows (otplib, as an authenticator app would), sign out, and find that the password
 * alone no longer signs in: the second step does, with the app's code or once with a recovery code.
 */
import { generate } from 'otplib';
import { signInThroughUi } from '../support/app';
import { expect, test } from '../support/fixtures';
import { codeFor as mailCode, mailMark, signUpByApi } from '../support/platform';

/** The code an authenticator app with this key shows, `ahead` 30-second steps from now (a code's step is accepted once). */
const codeFor = (secret: string, ahead = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + ahead * 30 });

/** Waits for a fresh 30-second step, so the steps that follow (enrol, then replay its code) all fall within it. */
async function startOfStep() {
  const into = (Date.now() / 1000) % 30;
  if (into > 2) await new Promise((r) => setTimeout(r, (30 - into) * 1000 + 200));
}

test('set up an authenticator, then sign in with the password and its code, or once with a recovery code', async ({
  page,
  request,
  consoleProblems,
}) => {
  test.setTimeout(120_000);
  const who = await signUpByApi(request);
  await signInThroughUi(page, who);

  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await startOfStep();
  const enrolCode = await codeFor(secret);
  await page.getByRole('textbox', { name: 'Authentication code' }).fill(enrolCode);
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByTestId('recovery-codes').getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.first().textContent())!.trim();
  await page.getByRole('button', { name: 'I have saved these codes' }).click();
  await expect(page.getByText(/Two-factor sign-in is on/)).toContainText('10 recovery codes left.');

  // The password alone: the second step, and no session yet.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/app\/auth$/);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Enter your authentication code');
  expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
  // The code used to turn it on is used up (still within its step); the app's next code (its clock a step ahead,
  // within the drift allowed) is not.
  await page.getByRole('textbox', { name: 'Authentication code' }).fill(enrolCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('This code has already been used. Please wait for the next one.');
  await page.getByRole('textbox', { name: 'Authentication code' }).fill(await codeFor(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);

  // The session the sign-up opened through the API is listed beside this one, and ending it stops its refresh token at once.
  await page.getByRole('link', { name: 'Security' }).click();
  const sessions = page.getByTestId('session-row');
  await expect(sessions).toHaveCount(2);
  await expect(sessions.filter({ hasText: 'This session' })).toHaveCount(1);
  await sessions.filter({ hasNotText: 'This session' }).getByRole('button', { name: 'End session' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'End session' }).click();
  await expect(sessions).toHaveCount(1);
  const refreshed = await request.post('/api/users/refresh', { data: { refresh_token: who.refreshToken } });
  expect(refreshed.status()).toBe(401);

  // A recovery code signs in once.
  await page.getByRole('button', { name: 'Logout' }).click();
  for (const attempt of ['works', 'used up'] as const) {
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recovery);
    await page.getByRole('button', { name: 'Verify' }).click();
    if (attempt === 'works') {
      await expect(page).toHaveURL(/\/app\/dashboard$/);
      await page.getByRole('button', { name: 'Logout' }).click();
      await expect(page).toHaveURL(/\/app\/auth$/);
    } else {
      await expect(page.getByRole('alert')).toHaveText('Invalid or already used recovery code.');
      expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
    }
  }
  // The two refusals above, and nothing else, are the browser's logged failures: the used code and the used recovery code.
  const refused = consoleProblems.filter((p) => p.url.endsWith('/api/users/login/2fa') && p.text.includes('401'));
  expect(refused).toHaveLength(2);
  for (const problem of refused) consoleProblems.splice(consoleProblems.indexOf(problem), 1);
});

test('deleting an account with two-factor sign-in asks for its authenticator code after the e-mailed one', async ({ page, request }) => {
  test.setTimeout(90_000);
  const who = await signUpByApi(request);
  const auth = { authorization: `Bearer ${who.accessToken}` };
  const setup = await request.post('/api/users/2fa/totp/setup', { headers: auth });
  const { secret } = (await setup.json()) as { secret: string };
  await startOfStep();
  expect((await request.post('/api/users/2fa/totp/confirm', { headers: auth, data: { code: await codeFor(secret) } })).status()).toBe(200);

  await page.goto('/account-deletion');
  await page.getByLabel('Email address').fill(who.email);
  const since = await mailMark();
  await page.getByRole('button', { name: 'Send verification code' }).click();
  await page.getByLabel('Verification code').fill(await mailCode(who.email, 'deletion', since));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { name: 'Confirm account deletion' })).toBeVisible();
  await expect(page.getByText('This account has two-factor sign-in: confirm its deletion as you sign in.')).toBeVisible();
  const remove = page.getByRole('button', { name: 'Delete my account' });
  await expect(remove).toBeDisabled();
  // The next step's code: the enrolment used this one.
  await page.getByLabel('Authentication code').fill(await codeFor(secret, 1));
  await remove.click();
  await expect(page.getByRole('heading', { name: 'Your account has been deleted' })).toBeVisible();
  const login = await request.post('/api/users/login', { data: { email: who.email, password: who.password } });
  expect(login.status()).toBe(401);
});
