import { expect, heading, test } from '../support/fixtures';
import { APP_AUTH } from '../support/routes';

/** The API serving the prerendered build (backend/src/bootstrap.ts with WEB_DIST). */
test.describe('the API serves the prerendered build', () => {
  test('/downloads gets its own prerendered file, /app/auth the app shell, unknown paths the 404 page with 404', async ({ request }) => {
    const downloads = await request.get('/downloads');
    expect(downloads.status()).toBe(200);
    expect(downloads.headers()['cache-control']).toBe('no-cache');
    const html = await downloads.text();
    expect(html).toContain('<div id="root" data-prerendered="/downloads">');
    expect(html).toContain('<h1>Download Glob Network</h1>');
    expect(html).toContain('<link rel="canonical" href="https://globnetwork.io/downloads" />');
    // With a trailing slash: the same page, not a redirect.
    const slash = await request.get('/downloads/', { maxRedirects: 0 });
    expect(slash.status()).toBe(200);
    expect(await slash.text()).toContain('data-prerendered="/downloads"');

    const auth = await request.get(APP_AUTH);
    expect(auth.status()).toBe(200);
    const shell = await auth.text();
    expect(shell).toContain('<div id="root"></div>');
    expect(shell).not.toContain('data-prerendered');

    const missing = await request.get('/nowhere-at-all');
    expect(missing.status()).toBe(404);
    expect(await missing.text()).toContain('data-prerendered="404"');
    // A missing script is a plain 404, never a page.
    const chunk = await request.get('/assets/no-such-chunk.js');
    expect(chunk.status()).toBe(404);
    expect(chunk.headers()['content-type']).not.toContain('text/html');
  });

  test('a prerendered page hydrates under the API (its CSP included) and the web app still renders', async ({ page }) => {
    await page.goto('/downloads');
    await expect(await heading(page)).toHaveText('Download Glob Network');
    await expect(page.locator('.release-status')).not.toHaveText('Loading Release Info...');
    await page.goto(APP_AUTH);
    await heading(page);
    await expect(page.locator('header.site-header')).toHaveCount(0);
  });
});
