/** Steps through the web app's screens (/app) as a person would, for the full-stack journeys. */
import { expect, type Locator, type Page } from '@playwright/test';
import { codeFor, mailMark } from './platform';

export interface Person {
  username: string;
  email: string;
  password: string;
}

/** The register form of /app/auth, filled in (terms accepted). */
export async function fillRegisterForm(page: Page, who: Person) {
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByLabel('Confirm Password').fill(who.password);
  await page.getByRole('checkbox', { name: /I accept the Terms of Service/ }).check();
}

/** /app/auth → Register → the form → 'Verify your email' with the e-mailed code → the dashboard. */
export async function registerThroughUi(page: Page, who: Person) {
  await page.goto('/app/auth');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your account');
  // Clicked again if the screen came back to signing in: once in a CI run the page re-rendered right after the click
  // (a load still settling on a busy machine) and the form stayed on "Sign in".
  await expect(async () => {
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create your account', { timeout: 3_000 });
  }).toPass({ timeout: 15_000 });
  await fillRegisterForm(page, who);
  const since = await mailMark();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verify your email');
  await page.getByLabel('Verification code').fill(await codeFor(who.email, 'signup', since));
  await page.getByRole('button', { name: 'Verify Code' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
}

/** /app/auth → 'Sign In' with e-mail and password → the dashboard. */
export async function signInThroughUi(page: Page, who: Pick<Person, 'email' | 'password'>) {
  await page.goto('/app/auth');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your account');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/app\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
}

/** A figure card of the dashboard or the wallet, by its title. */
export function statCard(page: Page, title: string): Locator {
  return page.locator('.stat-card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
}

/** The number on a figure card (without its unit). */
export function statValue(page: Page, title: string): Locator {
  return statCard(page, title).locator('.stat-card-number');
}

/** The top bar's balance ('N GLOB'), shown on every screen of the app. */
export function topBarBalance(page: Page): Locator {
  return page.locator('.app-topbar-balance strong');
}

/** The rows of the wallet's Recent Transactions table. */
export function transactions(page: Page): Locator {
  return page.getByRole('region', { name: 'Transactions table, scrollable' }).locator('tbody tr');
}

/** Goes to a screen through the sidebar's link. On a phone the sidebar is a menu, opened first. */
export async function navigate(page: Page, link: 'Dashboard' | 'AI Assistant' | 'Token Wallet' | 'Your nodes' | 'API keys') {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: link }).click();
}

export interface GrowthRecord {
  /** The reply's text length at each change of the bubble, with whether it still showed 'Generating...'. */
  samples: Array<{ length: number; streaming: boolean }>;
}

/**
 * Records, from inside the page, the length of the newest assistant bubble's text at every DOM change (a
 * MutationObserver sees each render, however fast the tokens arrive). Returns a reader of what was recorded.
 */
export async function recordReplyGrowth(page: Page): Promise<() => Promise<GrowthRecord>> {
  await page.evaluate(() => {
    const w = window as unknown as { __growth?: GrowthRecord; __growthObserver?: MutationObserver };
    w.__growthObserver?.disconnect();
    const record: GrowthRecord = { samples: [] };
    w.__growth = record;
    const log = document.querySelector('[role="log"]');
    if (!log) throw new Error('no message log on the page');
    const baseline = log.querySelectorAll('.assistant-msg.is-assistant').length;
    const observer = new MutationObserver(() => {
      const bubbles = log.querySelectorAll('.assistant-msg.is-assistant');
      if (bubbles.length <= baseline) return;
      const last = bubbles[bubbles.length - 1]!;
      const length = last.querySelector('.assistant-msg-content')?.textContent?.length ?? 0;
      const streaming = last.getAttribute('data-status') === 'streaming';
      const previous = record.samples.at(-1);
      if (!previous || previous.length !== length || previous.streaming !== streaming) record.samples.push({ length, streaming });
    });
    observer.observe(log, { subtree: true, childList: true, characterData: true, attributes: true });
    w.__growthObserver = observer;
  });
  return () =>
    page.evaluate(() => {
      const w = window as unknown as { __growth?: GrowthRecord; __growthObserver?: MutationObserver };
      w.__growthObserver?.disconnect();
      return w.__growth!;
    });
}
