import { SITE } from '../../src/content/pages';
import { AXE_VIEWPORTS, expect, expectAccessibleInBothThemes, heading, test } from '../support/fixtures';
import { ROUTES } from '../support/routes';

/**
 * One test per route on the mocks (the full stack walks them all in full-stack/walk.spec.ts). The axe
 * audit runs on every template (on two of the eight blog posts, which share one), in both themes at both widths.
 */
const audited = (path: string) =>
  !/^\/blog\/[^/]+$/.test(path) ||
  ROUTES.filter((r) => r.path.startsWith('/blog/'))
    .slice(0, 2)
    .some((r) => r.path === path);

for (const route of ROUTES) {
  test(`${route.path} renders with its title, tags and no console errors${audited(route.path) ? ', and passes axe' : ''}`, async ({ page }) => {
    // Four axe runs (two themes at two widths) on a long page outlast the default timeout on a busy 2-core machine.
    if (audited(route.path)) test.slow();
    await page.goto(route.path);
    await expect(await heading(page)).toHaveText(route.h1);
    await expect(page).toHaveTitle(route.title);
    const head = page.locator('head');
    await expect(head.locator('meta[name="description"]')).toHaveAttribute('content', /.{50,}/);
    await expect(head.locator('link[rel="canonical"]')).toHaveAttribute('href', new RegExp(`^${SITE.url}/`));
    await expect(head.locator('meta[property="og:image"]')).toHaveAttribute('content', `${SITE.url}/media/og-image.png`);
    await expect(head.locator('meta[name="twitter:card"]')).toHaveAttribute('content', 'summary_large_image');
    if (route.noindex) await expect(head.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/);
    else await expect(head.locator('meta[name="robots"]')).toHaveCount(0);
    await expect(page.locator('.floating-dots span')).toHaveCount(route.dots);
    await expect(page.locator('header.site-header')).toBeVisible();
    await expect(page.locator('footer.site-footer')).toContainText(`© ${new Date().getFullYear()} Glob Network`);
    if (!audited(route.path)) return;
    for (const { width, height } of AXE_VIEWPORTS) {
      await page.setViewportSize({ width, height });
      await expectAccessibleInBothThemes(page);
    }
  });
}
