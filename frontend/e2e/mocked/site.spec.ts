import { expect, heading, test } from '../support/fixtures';
import { stubReleaseFiles } from '../support/downloads';

test.describe('on the spec-derived mocks', () => {
  test('the home page shows the figures of the spec example, formatted', async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, reducedMotion: 'no-preference' });
    const page = await context.newPage();
    await page.goto('/');
    await heading(page);
    await expect(page.getByTestId('stat-active-users')).toHaveText('2,847+');
    await expect(page.getByTestId('stat-tasks-processed')).toHaveText('1250.0K+');
    await expect(page.getByTestId('stat-data-processed')).toHaveText('45.8 GB');
    const video = page.locator('.hero-media video');
    await expect(video).toHaveJSProperty('muted', true);
    await expect(video).toHaveJSProperty('loop', true);
    await expect(video).toHaveAttribute('poster', /\.webp$/);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(0);
    await context.close();
  });

  test('with reduced motion the hero shows the still image', async ({ page }) => {
    await page.goto('/');
    await heading(page);
    await expect(page.locator('.hero-media video')).toHaveCount(0);
    await expect(page.locator('.hero-media img')).toHaveAttribute('alt', /Glob Network/);
  });

  test('contact: validation first, then the success message of the mock', async ({ page }) => {
    await page.goto('/contact');
    await heading(page);
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByText('Please enter your name.')).toBeVisible();
    await expect(page.getByLabel(/Full Name/)).toBeFocused();
    await page.getByLabel(/Full Name/).fill('Ada Lovelace');
    await page.getByLabel(/Email Address/).fill('ada@example.com');
    await page.getByLabel(/Subject/).selectOption('support');
    await page.getByLabel(/Message/).fill('How do I share my GPU?');
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('status')).toHaveText('Thank you for your message! We will get back to you soon.');
  });

  test('testimonial: the mock answers with its example message', async ({ page }) => {
    await page.goto('/contact');
    await heading(page);
    await page.getByRole('tab', { name: 'Submit Testimonial' }).click();
    // The form's own validation answers only once the page is live: typing before that would go into static markup.
    await page.getByRole('button', { name: 'Submit Testimonial' }).click();
    await expect(page.getByText('Please enter your name.')).toBeVisible();
    await page.getByLabel(/Full Name/).fill('Grace Hopper');
    await page.getByLabel(/Email Address/).fill('grace@example.com');
    await page.getByLabel(/Your Experience/).fill('Great network.');
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Submit Testimonial' }).click();
    await expect(page.getByRole('status')).toHaveText('Thank you for sharing your experience with Glob Network!');
  });

  test('downloads: OS detection, badges and a download with progress', async ({ browser }) => {
    const context = await browser.newContext({
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    });
    await stubReleaseFiles(context);
    const page = await context.newPage();
    await page.goto('/downloads');
    await heading(page);
    await expect(page.locator('.release-status')).toHaveText('Latest: v0.1.0');
    const primary = page.getByRole('button', { name: /Download for macOS/ });
    await expect(primary).toContainText('READY');
    await expect(page.locator('[data-platform="macos"]')).toContainText('Your OS');
    await expect(page.locator('[data-platform="mobile"]').getByRole('button', { name: 'Coming Soon' })).toBeDisabled();
    const analytics = page.waitForRequest((r) => r.url().endsWith('/api/system/analytics/download') && r.method() === 'POST');
    const popup = context.waitForEvent('page');
    await primary.click();
    expect((await analytics).postDataJSON()).toMatchObject({ platform: 'macos', asset: 'GlobNetwork-0.1.0-macos-arm64.zip' });
    await popup;
    await expect(page.locator('[data-platform="macos"]').getByRole('progressbar')).toBeVisible();
    await context.close();
  });

  test('downloads on a phone: Download for Android is disabled with SOON', async ({ browser }) => {
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
    });
    const page = await context.newPage();
    await page.goto('/downloads');
    await heading(page);
    await expect(page.locator('.release-status')).toHaveText('Latest: v0.1.0');
    const primary = page.getByRole('button', { name: /Download for Android/ });
    await expect(primary).toBeDisabled();
    await expect(primary).toContainText('SOON');
    await expect(page.locator('[data-platform="mobile"]')).toContainText('Your OS');
    await context.close();
  });
});
