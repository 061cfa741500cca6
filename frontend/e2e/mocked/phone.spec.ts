import { expect, heading, test } from '../support/fixtures';
import { signIn } from '../support/mocked';

/**
 * The web app on a phone (390 × 844, as the accessibility checks use): no app page is wider than the screen (nothing
 * to scroll sideways but what scrolls inside its own box, such as a wide table), and the assistant leaves most of the
 * screen to the conversation, the conversation list and the settings being one tap away.
 */
const PHONE = { width: 390, height: 844 };

const PAGES = [
  ['/app/dashboard', 'Dashboard'],
  ['/app/assistant', 'AI Assistant'],
  ['/app/wallet', 'Token Wallet'],
  ['/app/nodes', 'Your nodes'],
  ['/app/api-keys', 'API keys'],
  ['/app/security', 'Security'],
] as const;

test.use({ viewport: PHONE });
test.beforeEach(async ({ page }) => signIn(page));

for (const [path, title] of PAGES) {
  test(`${path} is no wider than a 390 px phone`, async ({ page }) => {
    await page.goto(path);
    await expect(await heading(page)).toHaveText(title);
    // Let the page's data arrive (tables, lists) before measuring.
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });
}

test('the assistant on a phone gives the conversation most of the screen', async ({ page }) => {
  await page.goto('/app/assistant');
  await expect(await heading(page)).toHaveText('AI Assistant');
  const log = page.getByRole('log', { name: 'Messages' });
  await expect(log).toBeVisible();
  const box = (await log.boundingBox())!;
  // The messages get at least 40 % of the screen's height, and the message box is on the screen without scrolling.
  expect(box.height).toBeGreaterThanOrEqual(PHONE.height * 0.4);
  const input = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!;
  expect(input.y + input.height).toBeLessThanOrEqual(PHONE.height);
  // The model field keeps its name for screen readers, though its label is not shown.
  await expect(page.getByRole('combobox', { name: 'Model' })).toBeVisible();

  // The conversation list opens with its menu button, and closes again.
  const conversations = page.locator('.conv-item');
  await expect(conversations.first()).toBeHidden();
  await page.getByRole('button', { name: 'Expand conversation list' }).click();
  await expect(conversations.first()).toBeVisible();
  await page.getByRole('button', { name: 'Collapse conversation list' }).click();
  await expect(conversations.first()).toBeHidden();
});
