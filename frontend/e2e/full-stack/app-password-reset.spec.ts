/**
 * 'Forgot password?' on the real platform: the code is e-mailed through the stack's SMTP server, the new password
 * signs the user in, the old one no longer works, and every other session of the account has ended.
 */
import { signInThroughUi, type Person } from '../support/app';
import { expect, test } from '../support/fixtures';
import { codeFor, mailMark, signUpByApi, uniqueEmail } from '../support/platform';

test('forgot password → e-mailed code → new password → signed in; the old password and other sessions end', async ({
  page,
  request,
  consoleProblems,
}) => {
  const grace: Person = { username: 'grace', email: uniqueEmail('grace'), password: 'Compiler-Pioneer-1952' };
  const other = await signUpByApi(request, { email: grace.email, username: grace.username, password: grace.password });
  const newPassword = 'Nanoseconds-Are-30cm';

  await page.goto('/app/auth');
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reset your password');
  await page.getByLabel('Email').fill(grace.email);
  const since = await mailMark();
  await page.getByRole('button', { name: 'Send Code' }).click();
  await page.getByLabel('Verification code').fill(await codeFor(grace.email, 'password_reset', since));
  await page.getByRole('button', { name: 'Verify Code' }).click();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose a new password');
  await page.getByLabel('New Password').fill(newPassword);
  await page.getByLabel('Confirm Password').fill(newPassword);
  await page.getByRole('button', { name: 'Set New Password' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);
  await expect(page.getByText(`Welcome back, ${grace.username}!`)).toBeVisible();

  // The session opened before the reset has ended, at once.
  const me = await request.get('/api/users/me', { headers: { authorization: `Bearer ${other.accessToken}` } });
  expect(me.status()).toBe(401);

  // Signed out, the old password is refused and the new one signs in.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/app\/auth$/);
  await page.getByLabel('Email').fill(grace.email);
  await page.getByLabel('Password').fill(grace.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  // The browser logs the refused sign-in's 401: expected here, and only here.
  const refused = consoleProblems.filter((p) => p.url.endsWith('/api/users/login') && p.text.includes('401'));
  expect(refused).toHaveLength(1);
  consoleProblems.splice(consoleProblems.indexOf(refused[0]!), 1);
  await signInThroughUi(page, { email: grace.email, password: newPassword });
});
