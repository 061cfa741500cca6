import type { components } from '@glob/contract';
import { NODES_TEXTS, PAIR_TEXTS } from '../../src/features/nodes/texts';
import { expect, expectAccessibleInBothThemes, heading, test } from '../support/fixtures';
import { example, signIn } from '../support/mocked';

/**
 * "Pair a new node" (/app/pair?code=…) on the mocked build: the page a machine's app opens so that its owner confirms
 * it without copying a token (RFC 8628's device flow). MSW answers the spec's example machine for the code.
 */
const DEVICE = example<components['schemas']['PendingDevice']>('/api/nodes/device-codes/{userCode}', 'get', 200);
const PHONE = { width: 390, height: 844 };

test.describe('signed in', () => {
  test.beforeEach(async ({ page }) => signIn(page));

  test('shows the machine for the code, accessibly, and confirming it says it pairs by itself', async ({ page }) => {
    await page.goto(`/app/pair?code=${DEVICE.user_code}`);
    await expect(await heading(page)).toHaveText(NODES_TEXTS.pairTitle);
    await expect(page).toHaveTitle('Pair a new node — Glob Network');
    await expect(page.getByLabel(PAIR_TEXTS.codeLabel)).toHaveValue(DEVICE.user_code);
    const machine = page.getByRole('region', { name: PAIR_TEXTS.machineTitle });
    await expect(machine).toContainText(DEVICE.name);
    await expect(machine).toContainText('linux/x64');
    await expect(machine).toContainText('203.0.113.7');
    await expectAccessibleInBothThemes(page);

    await machine.getByRole('button', { name: PAIR_TEXTS.confirm }).click();
    const done = page.getByRole('heading', { level: 2, name: PAIR_TEXTS.doneTitle });
    await expect(done).toBeFocused();
    await expect(page.getByText(PAIR_TEXTS.done(DEVICE.name))).toBeVisible();
    await expectAccessibleInBothThemes(page);
    await page.getByRole('link', { name: PAIR_TEXTS.toNodes }).click();
    await expect(page).toHaveURL(/\/app\/nodes$/);
    await expect(await heading(page)).toHaveText(NODES_TEXTS.title);
  });

  test.describe('on a phone', () => {
    test.use({ viewport: PHONE });

    test('is no wider than a 390 px phone', async ({ page }) => {
      await page.goto(`/app/pair?code=${DEVICE.user_code}`);
      await expect(await heading(page)).toHaveText(NODES_TEXTS.pairTitle);
      await expect(page.getByRole('region', { name: PAIR_TEXTS.machineTitle })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    });
  });
});

test('signed out, the pair page asks to sign in first and keeps its address to come back to', async ({ page }) => {
  await page.goto(`/app/pair?code=${DEVICE.user_code}`);
  await expect(page).toHaveURL(new RegExp(`/app/auth\\?redirect=${encodeURIComponent(`/app/pair?code=${DEVICE.user_code}`)}$`));
  await expect(await heading(page)).toHaveText('Sign in to your account');
  expect(await page.evaluate(() => localStorage.getItem('open_in_desktop'))).toBe('true');
});
