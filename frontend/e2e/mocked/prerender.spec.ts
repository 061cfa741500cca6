import { PAGES, SITE } from '../../src/content/pages';
import type { PageKey } from '../../src/content/types';
import { expect, heading, test } from '../support/fixtures';
import { APP_AUTH, ROUTES } from '../support/routes';

/**
 * The prerendered build (frontend/build/prerender.ts) as `vite preview` serves it: each public page's HTML already
 * holds its markup, head tags and no-script fallback; the browser hydrates it instead of rendering it again.
 */

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const textOf = (html: string) =>
  html
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
const pageKey = (path: string): PageKey => (path.startsWith('/blog/') ? 'blog-post' : Object.values(PAGES).find((p) => p.path === path)!.key);

test('every public page is served prerendered: h1, title, canonical URL and its own no-script fallback are in the HTML', async ({ request }) => {
  for (const route of ROUTES.filter((r) => !r.noindex)) {
    const response = await request.get(route.path);
    expect(response.status(), route.path).toBe(200);
    const html = await response.text();
    expect(html, route.path).toContain(`<div id="root" data-prerendered="${route.path}">`);
    const h1 = textOf(/<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '');
    if (typeof route.h1 === 'string') expect(h1, route.path).toBe(route.h1);
    else expect(h1, route.path).toMatch(route.h1);
    expect(html, route.path).toContain(`<title>${escapeHtml(route.title)}</title>`);
    expect(html, route.path).toContain(`<link rel="canonical" href="${new URL(route.path, SITE.url)}" />`);
    expect(html, route.path).toContain(`<meta property="og:url" content="${new URL(route.path, SITE.url)}" />`);
    expect(html, route.path).not.toContain('name="robots"');
    // Exactly one no-script block, the page's own (not the home page's in the shell).
    expect(html.match(/<noscript>/g), route.path).toHaveLength(1);
    expect(html, route.path).toContain(`<noscript>${PAGES[pageKey(route.path)].noscript.trim()}</noscript>`);
    // Its CSS is inlined: nothing render-blocking.
    expect(html, route.path).not.toMatch(/<link rel="stylesheet"(?![^>]*disabled)[^>]*>/);
  }
});

test('the web app and other client routes get the app shell; unknown paths the 404 page with status 404', async ({ request }) => {
  for (const path of [APP_AUTH, '/app/dashboard', '/blog/no-such-post']) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    const html = await response.text();
    expect(html, path).toContain('<div id="root"></div>');
    expect(html, path).not.toContain('data-prerendered');
  }
  const missing = await request.get('/this/page/does-not-exist');
  expect(missing.status()).toBe(404);
  const html = await missing.text();
  expect(html).toContain('<div id="root" data-prerendered="404">');
  expect(html).toContain('<h1 id="not-found-title">Page Not Found</h1>');
  expect(html).toContain('<meta name="robots" content="noindex, follow" />');
  expect(html).toContain(`<noscript>${PAGES['404'].noscript.trim()}</noscript>`);
});

test('a prerendered page is hydrated, not rendered again, and then comes alive', async ({ page }) => {
  // Records whether React ever removes the prerendered page frame (what a fresh render would do).
  await page.addInitScript(() => {
    const w = window as Window & { replaced?: boolean };
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.removedNodes) if (n instanceof Element && (n.matches('.site') || n.querySelector('.site'))) w.replaced = true;
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto('/downloads');
  await expect(await heading(page)).toHaveText('Download Glob Network');
  // The release answer replaces the prerendered loading state once hydrated.
  await expect(page.locator('.release-status')).not.toHaveText('Loading Release Info...');
  await page.goto('/');
  await heading(page);
  await expect(page.getByTestId('stat-active-users')).not.toHaveText('...');
  // Client navigation works from a hydrated page.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Blog' }).click();
  await expect(await heading(page)).toHaveText('Glob Network Blog');
  expect(await page.evaluate(() => (window as Window & { replaced?: boolean }).replaced ?? false)).toBe(false);
});

test('a click made before the page is hydrated is kept and replayed, not lost', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The app's code arrives late (a slow network): it is held until the click is made, however long the page takes to
  // show on a busy machine, so the prerendered page is on screen and clicked before the app runs.
  let entry = '';
  let release!: () => void;
  const clicked = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
    entry = route.request().url();
    await clicked;
    await route.continue();
  });
  await page.goto('/', { waitUntil: 'commit' });
  await heading(page);
  // On screen, but the app has not started: this click would be lost without build/early-clicks.js.
  expect(await page.evaluate(() => '__globApp' in window)).toBe(false);
  await page.getByRole('button', { name: 'Open menu' }).click();
  release();
  const menu = page.getByRole('navigation', { name: 'Mobile' });
  await expect(menu).toBeVisible({ timeout: 15_000 });
  await expect(menu.getByRole('link', { name: 'AI News' })).toBeVisible();
  expect(entry).not.toBe('');
});

test('a page that is not the one prerendered in the file it got is rendered afresh', async ({ page }) => {
  // The shell for an unknown post: no prerendered markup to keep; the route renders its own message.
  await page.goto('/blog/no-such-post');
  await expect(await heading(page)).toHaveText('Post Not Found');
  await expect(page).toHaveTitle('Post Not Found — Glob Network');
});

test('without JavaScript a page still shows its content, header and footer', async ({ browser, baseURL }) => {
  // (Chromium's script switch leaves <noscript> unparsed, so its fallback is checked in the HTML above.)
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/downloads');
  await expect(page.getByRole('heading', { level: 1, name: 'Download Glob Network' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Choose Your Platform' })).toBeVisible();
  await expect(page.getByRole('banner').getByRole('link', { name: 'Documentation' })).toHaveAttribute('href', '/documentation');
  await expect(page.getByRole('contentinfo')).toContainText(`© ${new Date().getFullYear()} Glob Network`);
  await context.close();
});
