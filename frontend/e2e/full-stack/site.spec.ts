import { randomBytes } from 'node:crypto';
import { FALLBACK_STATS } from '../../src/api/queries/system';
import { formatStats } from '../../src/features/home/format';
import { query } from '../support/db';
import { expect, heading, test } from '../support/fixtures';

test.describe('against the real backend', () => {
  test('the contact form really submits and the message is stored', async ({ page }) => {
    const tag = randomBytes(4).toString('hex');
    await page.goto('/contact');
    await heading(page);
    await page.getByLabel(/Full Name/).fill(`Ada ${tag}`);
    await page.getByLabel(/Email Address/).fill(`ada+${tag}@example.com`);
    await page.getByLabel(/Subject/).selectOption('partnership');
    await page.getByLabel(/Message/).fill('We would like to run our models on your network.');
    await page.getByRole('checkbox').check();
    const response = page.waitForResponse((r) => r.url().endsWith('/api/contact/submit'));
    await page.getByRole('button', { name: 'Send Message' }).click();
    expect((await response).status()).toBe(201);
    await expect(page.getByRole('status')).toHaveText('Thank you for your message! We will get back to you soon.');
    await expect(page.getByLabel(/Full Name/)).toHaveValue('');
    const rows = await query<{ name: string; email: string; subject: string; message: string; agreed_to_terms: boolean }>(
      'SELECT name, email, subject, message, agreed_to_terms FROM contact_messages WHERE email = $1',
      [`ada+${tag}@example.com`],
    );
    expect(rows).toEqual([
      {
        name: `Ada ${tag}`,
        email: `ada+${tag}@example.com`,
        subject: 'partnership',
        message: 'We would like to run our models on your network.',
        agreed_to_terms: true,
      },
    ]);
  });

  test('the testimonial form really submits with rating 5', async ({ page }) => {
    const tag = randomBytes(4).toString('hex');
    await page.goto('/contact');
    await heading(page);
    await page.getByRole('tab', { name: 'Submit Testimonial' }).click();
    await page.getByLabel(/Full Name/).fill(`Grace ${tag}`);
    await page.getByLabel(/Email Address/).fill(`grace+${tag}@example.com`);
    await page.getByLabel(/Role or Company/).fill('Researcher');
    await page.getByLabel(/Your Experience/).fill('My idle GPU now pays for my own inference.');
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Submit Testimonial' }).click();
    await expect(page.getByRole('status')).toHaveText('Thank you for sharing your experience with Glob Network!');
    const rows = await query('SELECT name, role, rating, consent FROM testimonials WHERE email = $1', [`grace+${tag}@example.com`]);
    expect(rows).toEqual([{ name: `Grace ${tag}`, role: 'Researcher', rating: 5, consent: true }]);
  });

  test("the server's validation message is shown as the error alert", async ({ page, consoleProblems }) => {
    await page.goto('/contact');
    await heading(page);
    await page.route('**/api/contact/submit', async (route) => {
      // A body the browser form cannot produce: the real API refuses it with its own message.
      await route.continue({
        postData: JSON.stringify({ name: 'x', email: 'x@example.com', subject: 'general', message: 'y', agreedToTerms: false }),
      });
    });
    await page.getByLabel(/Full Name/).fill('Ada');
    await page.getByLabel(/Email Address/).fill('ada@example.com');
    await page.getByLabel(/Subject/).selectOption('general');
    await page.getByLabel(/Message/).fill('Hello');
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Send Message' }).click();
    await expect(page.getByRole('alert')).toContainText('agreedToTerms');
    // The browser reports the 400 in the console: expected here, and only here.
    const expected = consoleProblems.filter((p) => p.url.endsWith('/api/contact/submit') && p.text.includes('400'));
    expect(expected).toHaveLength(1);
    consoleProblems.splice(consoleProblems.indexOf(expected[0]!), 1);
  });

  test('the home page shows the live figures of the server', async ({ page }) => {
    // The run's database is shared with the app journeys running beside this test, so the figures are whatever the
    // server answered the page — shown as they are, not the fallback.
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/stats/platform');
    await page.goto('/');
    await heading(page);
    const stats = (await (await answer).json()) as { active_users: number; total_tasks: number; data_processed_gb: number };
    const shown = formatStats({ ...stats, fallback: false });
    await expect(page.getByTestId('stat-active-users')).toHaveText(shown.activeUsers);
    await expect(page.getByTestId('stat-tasks-processed')).toHaveText(shown.tasksProcessed);
    await expect(page.getByTestId('stat-data-processed')).toHaveText(shown.dataProcessed);
    expect(stats.active_users).toBeLessThan(FALLBACK_STATS.active_users); // a run's own database, not the fallback's 2847
  });

  test('installable: manifest, and a service worker at /sw.js with scope /', async ({ browser, request, baseURL }) => {
    const context = await browser.newContext({ baseURL, serviceWorkers: 'allow' });
    const page = await context.newPage();
    await page.goto('/');
    await heading(page);
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = await (await request.get(manifestHref!)).json();
    expect(manifest).toMatchObject({ name: 'Glob Network', start_url: '/', scope: '/', display: 'standalone' });
    expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons) expect((await request.get(icon.src)).status()).toBe(200);
    const registration = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return { scope: reg.scope, script: reg.active?.scriptURL };
    });
    expect(new URL(registration.scope).pathname).toBe('/');
    expect(new URL(registration.script!).pathname).toBe('/sw.js');
    // No install prompt in a headless test browser: no banner.
    await expect(page.getByRole('region', { name: 'Install Glob Network' })).toHaveCount(0);
    // Offline, the app shell still opens from the worker's cache.
    await context.setOffline(true);
    await page.goto('/about');
    await expect(await heading(page)).toHaveText('About Glob Network');
    await context.close();
  });
});
