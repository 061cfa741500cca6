import { expect, expectAccessible, heading, test } from '../support/fixtures';

/** Behaviour of the page chrome and the content pages: the same build on both sides, so checked once, here. */
test.describe('header', () => {
  test('is sticky, turns opaque after 10 px and highlights the active link', async ({ page }) => {
    await page.goto('/documentation');
    await heading(page);
    const header = page.locator('header.site-header');
    await expect(header).not.toHaveClass(/is-opaque/);
    await page.mouse.wheel(0, 600);
    await expect(header).toHaveClass(/is-opaque/);
    expect(await header.evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
    expect((await header.boundingBox())?.y).toBe(0);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documentation' })).toHaveClass(/active/);
  });

  test('mobile menu: toggles, offers AI News and closes when a link is tapped', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/');
    await heading(page);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
    const toggle = page.getByRole('button', { name: 'Open menu' });
    await toggle.click();
    const menu = page.getByRole('navigation', { name: 'Mobile' });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/app/auth');
    await expect(menu.getByRole('link', { name: 'Download App' })).toHaveAttribute('href', '/downloads');
    await menu.getByRole('link', { name: 'AI News' }).click();
    await expect(await heading(page)).toHaveText('AI News');
    await expect(menu).toBeHidden();
    await expectAccessible(page);
  });

  test('keyboard: skip link and visible focus', async ({ page }) => {
    await page.goto('/');
    await heading(page);
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    expect(await focused.evaluate((el) => getComputedStyle(el).boxShadow)).not.toBe('none');
  });
});

test('the documentation sidebar jumps to every anchor', async ({ page }) => {
  await page.goto('/documentation');
  await heading(page);
  const sidebar = page.getByRole('navigation', { name: 'Documentation' });
  for (const id of [
    'getting-started',
    'distributed-ai',
    'resource-sharing',
    'token-economy',
    'how-it-works',
    'security-privacy',
    'system-requirements',
    'faq',
    'api',
  ]) {
    await expect(page.locator(`section#${id}`)).toHaveCount(1);
    await expect(sidebar.locator(`a[href="#${id}"]`)).toHaveCount(1);
  }
  await sidebar.locator('a[href="#faq"]').click();
  await expect(page.locator('section#faq h2')).toBeInViewport();
  await page.goto('/documentation#api');
  await expect(page.locator('section#api h2')).toBeInViewport();
});

test('the blog filters by category and opens a post with related posts', async ({ page }) => {
  await page.goto('/blog');
  await heading(page);
  const grid = page.locator('.blog-grid');
  const all = await grid.locator('article').count();
  await page.getByRole('button', { name: 'Tutorials' }).click();
  await expect(page.getByRole('button', { name: 'Tutorials' })).toHaveAttribute('aria-pressed', 'true');
  const tutorials = await grid.locator('article').count();
  expect(tutorials).toBeLessThan(all);
  await grid.locator('article h3 a').first().click();
  await expect(page.getByRole('region', { name: 'Related Posts' })).toBeVisible();
  expect(await page.locator('.related article').count()).toBeLessThanOrEqual(2);
});
