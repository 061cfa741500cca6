import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';

/** Console noise that is expected and not the site's fault. */
const EXPECTED = [
  // The release host is the downloads page's first source; the backend's CSP (connect-src 'self') blocks it
  // and the mocks answer it 404, so the page goes on to /api/releases/latest. Nothing else may fail.
  (text: string, url: string) => text.includes('releases.globnetwork.io') || url.includes('releases.globnetwork.io'),
  // With no release published (a fresh platform, or before release.spec publishes one), the page's next two sources
  // answer 404 too, and the page says so with its built-in release: the page doing its job.
  (text: string, url: string) => /\/(api\/releases\/latest|latest\.json)$/.test(url) && text.includes('404'),
];

export interface ConsoleProblem {
  type: string;
  text: string;
  url: string;
}

export const test = base.extend<{ consoleProblems: ConsoleProblem[] }>({
  consoleProblems: [
    async ({ page }, use) => {
      const problems: ConsoleProblem[] = [];
      // Pages the server answered with status 404 (the 404 page of an unknown path): the browser logs the status of
      // such a document as an error. That is the server doing its job; any other failed resource is still a problem.
      const notFoundPages = new Set<string>();
      page.on('response', (res) => {
        if (res.status() === 404 && res.request().resourceType() === 'document') notFoundPages.add(res.url());
      });
      page.on('console', (msg) => {
        if (msg.type() !== 'error') return;
        const url = msg.location().url ?? '';
        if (EXPECTED.some((ok) => ok(msg.text(), url))) return;
        problems.push({ type: 'console.error', text: msg.text(), url });
      });
      page.on('pageerror', (error) => problems.push({ type: 'pageerror', text: error.message, url: '' }));
      await use(problems);
      const notFoundPage = (p: ConsoleProblem) => p.type === 'console.error' && notFoundPages.has(p.url) && p.text.includes('status of 404');
      expect(
        problems.filter((p) => !notFoundPage(p)),
        'no console errors',
      ).toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** axe-core: no serious or critical violation (WCAG 2.1 A/AA rules). */
export async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 4)
          .join(', ')}`,
    );
  expect(blocking, 'axe serious/critical violations').toEqual([]);
}

/** The widths every axe check runs at: desktop and phone. */
export const AXE_VIEWPORTS = [
  { width: 1440, height: 900, label: 'desktop' },
  { width: 390, height: 844, label: 'phone' },
] as const;

/**
 * expectAccessible in the dark and then the light theme, each as the OS's preference (no choice stored, which
 * would override it). Ends in light, Playwright's default scheme.
 */
export async function expectAccessibleInBothThemes(page: Page) {
  expect(await page.locator('html').getAttribute('data-theme'), 'no stored theme choice').toBeNull();
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    await test.step(`axe, ${colorScheme} theme`, () => expectAccessible(page));
  }
}

/** Waits until the page's own h1 is shown (the router renders after the entry loads). */
export async function heading(page: Page) {
  const h1 = page.locator('main h1').first();
  await expect(h1).toBeVisible({ timeout: 15_000 });
  return h1;
}
