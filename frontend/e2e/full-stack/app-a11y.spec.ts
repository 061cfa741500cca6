/**
 * axe on every screen of the web app, in every state the journeys pass through, on the real platform, at desktop
 * (1440 px) and phone (390 px) widths, in the dark and the light theme: no serious or critical violation (WCAG 2.1
 * A/AA rules). And the theme switch: a choice survives a reload, applied by index.html's script under the API's CSP.
 */
import { fillRegisterForm, navigate, transactions, type Person } from '../support/app';
import { AXE_VIEWPORTS, expect, expectAccessible, expectAccessibleInBothThemes, test } from '../support/fixtures';
import { codeFor, mailMark, uniqueEmail } from '../support/platform';

/** The light palette's --bg (@glob/ui/tokens.css), as getComputedStyle reports it. */
const LIGHT_BG = 'rgb(246, 248, 251)';

for (const { width, height, label } of AXE_VIEWPORTS) {
  test.describe(`${label} (${width} px)`, () => {
    test.use({ viewport: { width, height } });

    test('sign-in, sign-up and its code step, dashboard, assistant, wallet and the send dialog, account deletion', async ({ page }) => {
      test.setTimeout(180_000);
      const h1 = page.getByRole('heading', { level: 1 });
      const axe = (name: string) => test.step(`axe: ${name}`, () => expectAccessibleInBothThemes(page));
      const who: Person = { username: `axe_${label}`, email: uniqueEmail(`axe-${label}`), password: 'Accessible-Rich-Apps-2' };

      await page.goto('/app/auth');
      await expect(h1).toHaveText('Sign in to your account');
      await axe('/app/auth login');
      await page.getByRole('button', { name: 'Register', exact: true }).click();
      await expect(h1).toHaveText('Create your account');
      // With the form's own error messages showing.
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.getByText('Username is required')).toBeVisible();
      await axe('/app/auth register, with errors');

      await fillRegisterForm(page, who);
      const since = await mailMark();
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(h1).toHaveText('Verify your email');
      await axe('/app/auth code step');
      await page.getByLabel('Verification code').fill(await codeFor(who.email, 'signup', since));
      await page.getByRole('button', { name: 'Verify Code' }).click();
      await expect(h1).toHaveText('Dashboard');
      await expect(page.getByText('Loading dashboard...')).toHaveCount(0);
      await expect(page.getByRole('heading', { name: 'Feature Access' })).toBeVisible();
      await axe('dashboard');

      await navigate(page, 'AI Assistant');
      await expect(h1).toHaveText('AI Assistant');
      await axe('assistant, empty');
      await page.getByLabel('Model').selectOption('glob-tiny-chat');
      const input = page.getByRole('textbox', { name: 'Message' });
      await input.fill('Hello there');
      await input.press('Enter');
      const reply = page.getByRole('log', { name: 'Messages' }).locator('.assistant-msg.is-assistant').last();
      await expect(reply).toHaveAttribute('data-status', 'sent', { timeout: 30_000 });
      await expect(page.locator('.conv-item')).toHaveCount(1);
      await axe('assistant with messages and a conversation');
      // One scroll area: the page is no taller than the screen and the message box is on it, without scrolling.
      const inputBox = (await input.boundingBox())!;
      expect(inputBox.y + inputBox.height).toBeLessThanOrEqual(height);
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(height + 1);

      await navigate(page, 'Token Wallet');
      await expect(h1).toHaveText('Token Wallet');
      await expect(transactions(page).first()).toBeVisible();
      await expect(page.locator('[data-package]')).toHaveCount(4);
      // Every transaction's amount is on screen, not past the right edge of a phone.
      const amount = (await transactions(page).first().locator('.tx-amount').boundingBox())!;
      expect(amount.x + amount.width).toBeLessThanOrEqual(width);
      await axe('wallet');
      await page.getByRole('button', { name: 'Send Tokens' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send Tokens' });
      await expect(dialog.getByLabel('Recipient address')).toBeFocused();
      await axe('wallet, send dialog');
      await dialog.getByRole('button', { name: 'Review' }).click();
      await expect(dialog.getByText('Recipient address is required')).toBeVisible();
      await axe('wallet, send dialog with errors');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      if (width < 600) {
        await page.getByRole('button', { name: 'Menu' }).click();
        await expect(page.getByRole('navigation', { name: 'App' })).toBeVisible();
        await axe('app shell, menu open');
      }
      await page.getByRole('button', { name: 'Logout' }).click();
      await expect(h1).toHaveText('Sign in to your account');

      await page.goto('/account-deletion');
      await expect(h1).toHaveText('Delete Your Account');
      await axe('/account-deletion email step');
      await page.getByLabel('Email address').fill(who.email);
      const mark = await mailMark();
      await page.getByRole('button', { name: 'Send verification code' }).click();
      await expect(page.getByRole('heading', { name: 'Enter the verification code' })).toBeVisible();
      await axe('/account-deletion code step');
      await page.getByLabel('Verification code').fill(await codeFor(who.email, 'deletion', mark));
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect(page.getByRole('heading', { name: 'Confirm account deletion' })).toBeVisible();
      await axe('/account-deletion confirm step');
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await expect(page.getByRole('heading', { name: 'Your account has been deleted' })).toBeVisible();
      await axe('/account-deletion success');
    });

    test('the OAuth callback screen: Authenticating..., Success!, Authentication Failed', async ({ page }) => {
      const h1 = page.getByRole('heading', { level: 1 });
      // Signing in for the desktop app keeps 'Success!' on screen, so it can be checked at leisure.
      await page.goto('/app/auth');
      await page.evaluate(() => localStorage.setItem('open_in_desktop', 'true'));
      // Hold the callback's API answer until 'Authenticating...' has been checked.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route('**/api/users/oauth/callback/google', async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole('button', { name: 'Google' }).click();
      await expect(h1).toHaveText('Authenticating...');
      await expectAccessibleInBothThemes(page);
      release();
      await expect(h1).toHaveText('Success!');
      await expect(page.getByRole('status')).toHaveText('Authentication successful! You can now login to the desktop app with your email.');
      await expectAccessibleInBothThemes(page);
      // Signed out again, so that /app/auth stays on the sign-in screen.
      await page.evaluate(() => localStorage.clear());

      // A provider that answers with an error: shown, then back to /app/auth after 3 s (once per theme, as one
      // axe run is what fits in those 3 s).
      for (const colorScheme of ['dark', 'light'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.goto('/app/oauth/callback/google?error=access_denied');
        await expect(h1).toHaveText('Authentication Failed');
        await expect(page.getByRole('alert')).toHaveText('access_denied');
        await test.step(`axe, ${colorScheme} theme`, () => expectAccessible(page));
        await expect(page).toHaveURL(/\/app\/auth$/, { timeout: 10_000 });
      }
    });

    test('the theme switch: the choice survives a reload, on the site and in the web app, and toggling back follows the OS', async ({ page }) => {
      const html = page.locator('html');
      const toggle = page.getByRole('banner').getByRole('button', { name: 'Dark theme' });
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto('/');
      await expect(toggle).toBeVisible();
      await expect(toggle).toHaveAttribute('aria-pressed', 'true');
      await expect(html).not.toHaveAttribute('data-theme');

      await toggle.click();
      await expect(toggle).toHaveAttribute('aria-pressed', 'false');
      await expect(html).toHaveAttribute('data-theme', 'light');
      expect(await background()).toBe(LIGHT_BG);

      // Only index.html's inline script sets data-theme on load (the theme module does not): this shows it ran,
      // in the prerendered page and in the app shell, with the OS still asking for dark.
      await page.reload();
      await expect(html).toHaveAttribute('data-theme', 'light');
      expect(await background()).toBe(LIGHT_BG);
      await expect(toggle).toHaveAttribute('aria-pressed', 'false');
      await page.goto('/app/auth');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your account');
      await expect(html).toHaveAttribute('data-theme', 'light');
      expect(await background()).toBe(LIGHT_BG);

      // Back to dark, which the OS asks for: the choice is forgotten and the page follows the OS again.
      await page.goto('/');
      await toggle.click();
      await expect(toggle).toHaveAttribute('aria-pressed', 'true');
      await expect(html).not.toHaveAttribute('data-theme');
      expect(await page.evaluate(() => localStorage.getItem('theme'))).toBeNull();
      await page.emulateMedia({ colorScheme: 'light' });
      await expect(toggle).toHaveAttribute('aria-pressed', 'false');
      expect(await background()).toBe(LIGHT_BG);
    });
  });
}
