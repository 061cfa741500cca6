/** Runs against the mocks and against the real backend alike. */
import { expect, heading, test } from './support/fixtures';
import { APP_AUTH, ROUTES } from './support/routes';

test("/app/auth is the web app's sign-in screen, without the site header and footer, and links back", async ({ page }) => {
  await page.goto(APP_AUTH);
  await expect(await heading(page)).toHaveText('Sign in to your account');
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
  await expect(page.locator('header.site-header')).toHaveCount(0);
  await expect(page.locator('footer.site-footer')).toHaveCount(0);
  await page.getByRole('link', { name: 'Downloads' }).click();
  await expect(await heading(page)).toHaveText('Download Glob Network');
});

test('unknown paths show the 404 page with Go Home, Go Back and popular links', async ({ page }) => {
  await page.goto('/downloads');
  await heading(page);
  await page.waitForLoadState('networkidle');
  await page.goto('/nowhere-at-all');
  await expect(await heading(page)).toHaveText('Page Not Found');
  const main = page.locator('main');
  for (const name of ['Downloads', 'Documentation', 'About', 'Contact']) await expect(main.getByRole('link', { name, exact: true })).toBeVisible();
  await main.getByRole('button', { name: 'Go Back' }).click();
  await expect(await heading(page)).toHaveText('Download Glob Network');
  await page.goBack();
  await page.goForward();
  await page.goto('/nowhere-at-all');
  await main.getByRole('link', { name: 'Go Home' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('a marketing page never downloads the web app code', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  for (const path of ['/', '/downloads', '/blog', '/contact']) {
    await page.goto(path);
    await heading(page);
    await page.waitForLoadState('networkidle');
    // hover the Login link: no preloading of /app either
    await page
      .getByRole('link', { name: 'Login' })
      .first()
      .hover()
      .catch(() => undefined);
  }
  await page.waitForTimeout(300);
  // The web app's route chunks (code-split per route: auth, the signed-in shell and its screens).
  const APP_CHUNK = /\/assets\/(auth|_shell|dashboard|assistant|wallet)-[\w-]+\.js$/;
  expect(scripts.filter((s) => APP_CHUNK.test(s))).toEqual([]);
  await page.goto(APP_AUTH);
  await heading(page);
  expect(scripts.filter((s) => /\/assets\/auth-[\w-]+\.js$/.test(s)).length).toBeGreaterThanOrEqual(1);
  // The sign-in screen alone: none of the signed-in screens' code.
  expect(scripts.filter((s) => /\/assets\/(_shell|dashboard|assistant|wallet)-[\w-]+\.js$/.test(s))).toEqual([]);
});

test('robots.txt, sitemap.xml, the preview image and the manifest are served', async ({ request }) => {
  const robots = await request.get('/robots.txt');
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toContain('Sitemap: https://globnetwork.io/sitemap.xml');
  const sitemap = await request.get('/sitemap.xml');
  expect(sitemap.status()).toBe(200);
  const xml = await sitemap.text();
  for (const route of ROUTES.filter((r) => !r.noindex)) expect(xml).toContain(`<loc>https://globnetwork.io${route.path}</loc>`);
  const og = await request.get('/media/og-image.png');
  expect(og.headers()['content-type']).toBe('image/png');
  const png = await og.body();
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
});
