import { expect, heading, test } from '../support/fixtures';
import { ROUTES } from '../support/routes';

test('on the real server every route renders, and every internal link resolves (anchors included)', async ({ page, request }) => {
  // The real server's single-page-app fallback is what must serve every path: one walk through the whole site.
  test.setTimeout(120_000);
  const hrefs = new Set<string>();
  const visited = new Set<string>();
  for (const route of ROUTES) {
    await page.goto(route.path);
    await expect.soft(await heading(page), route.path).toHaveText(route.h1);
    await expect.soft(page, route.path).toHaveTitle(route.title);
    await expect.soft(page.locator('head meta[name="robots"]'), route.path).toHaveCount(route.noindex ? 1 : 0);
    await expect.soft(page.locator('.floating-dots span'), route.path).toHaveCount(route.dots);
    await page.waitForLoadState('networkidle');
    if (route.noindex) continue;
    visited.add(route.path);
    for (const href of await page.locator('a[href^="/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))) {
      hrefs.add(href);
    }
  }
  hrefs.add('/news'); // the mobile menu's link
  expect(hrefs.size).toBeGreaterThan(30);
  // One visit per path; every anchor of that path is checked on it.
  const byPath = new Map<string, Set<string>>();
  for (const href of hrefs) {
    const [path = '/', hash] = href.split('#');
    if (!byPath.has(path)) byPath.set(path, new Set());
    if (hash) byPath.get(path)!.add(hash);
  }
  for (const [path, hashes] of byPath) {
    if (path.startsWith('/api/')) {
      expect((await request.get(path)).status(), path).toBe(200);
      continue;
    }
    if (visited.has(path) && hashes.size === 0) continue;
    await page.goto(path);
    const h1 = await heading(page);
    await expect(h1, path).not.toHaveText(/Page Not Found|Post Not Found/);
    for (const hash of hashes) await expect(page.locator(`[id="${hash}"]`), `${path}#${hash}`).toHaveCount(1);
  }
});
