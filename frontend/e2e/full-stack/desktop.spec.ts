/**
 * A provider shares a computer with the desktop app, end to end on the real platform: `glob-node desktop` (a separate
 * process that knows only the API's URL, in a home of its own) serves its control panel on 127.0.0.1; the panel in one
 * browser context shows the pairing code, the web app in another confirms it; the app pulls the model from the
 * platform, serves a reply to someone else, and the panel shows the platform's figures for it; the allocation changed
 * in the panel reaches the platform; sharing off pauses the node there (a reply for its model finds no node); idle-only
 * sharing pauses it, here and there, while the (simulated) computer is in use; Quit ends the app. The node serves a
 * model the stack's in-cluster worker does not load, so the reply can only be the node's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { PAIR_TEXTS } from '../../src/features/nodes/texts';
import { navigate, registerThroughUi, type Person } from '../support/app';
import { expect, test } from '../support/fixtures';
import { killGroup } from '../support/processes';
import { signUpByApi, uniqueEmail } from '../support/platform';
import PROVIDER_MODELS from '../support/provider-model.json' with { type: 'json' };

// A model only this test's node serves (nodes.spec's node, running at the same time, serves another).
const PROVIDER_MODEL = PROVIDER_MODELS.desktop;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// The panel's texts: node-agent is a CommonJS package, whose named exports an ES module cannot import.
const { TEXTS } = createRequire(import.meta.url)('../../../node-agent/panel/src/texts.ts') as typeof import('../../../node-agent/panel/src/texts');

/**
 * The node's status on the owner's "Your nodes" page, read again until it is `status`: the platform learns it at the
 * node's next heartbeat (5 s) and the page polls every 10 s, so on a loaded machine a reload is what keeps this short.
 */
const nodeStatus = (page: Page, status: string) =>
  expect(async () => {
    await page.reload();
    await expect(page.locator('.nodes-card')).toHaveAttribute('data-status', status, { timeout: 5_000 });
  }).toPass({ timeout: 60_000, intervals: [1_000, 2_000, 3_000] });

/** The value of one figure (a dt/dd pair) in a panel section. */
const figure = (panel: Page, section: string, term: string) =>
  panel.getByRole('region', { name: section }).locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]');

test('a provider shares a computer with the desktop app: paired in the browser, earning, paused, idle-only, quit', async ({
  browser,
  page,
  request,
  baseURL,
}) => {
  // Pairing, a model pulled and proven, and each state reaching the platform: minutes on a loaded CI machine.
  test.setTimeout(420_000);
  const provider: Person = { username: 'ada_desktop', email: uniqueEmail('ada-desktop'), password: 'Analytical-Engine-1843' };
  const dir = mkdtempSync(join(tmpdir(), 'glob-e2e-desktop-'));
  const home = join(dir, 'home');
  const idleFile = join(dir, 'idle-seconds');
  mkdirSync(home);
  let app: ChildProcess | undefined;
  let output = '';
  const panelContext = await browser.newContext();
  try {
    await registerThroughUi(page, provider);

    // Started as the login item would start it: its own home, nothing but the platform's address; the models dir is
    // empty, so the model comes from the platform.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|MODEL_CATALOG|GLOB_)/.test(k)),
    );
    writeFileSync(idleFile, '600');
    app = spawn(
      'npm',
      [
        ...['run', 'node', '--', 'desktop', '--api', baseURL!, '--no-tray', '--no-browser', '--idle-source', `file:${idleFile}`],
        // Only the provider model: a node that also served the tiny model would take other tests' replies.
        ...['--models', PROVIDER_MODEL.id, '--models-dir', join(dir, 'models'), '--data-dir', join(dir, 'node'), '--threads', '1', '--gpu', 'off'],
      ],
      { cwd: ROOT, env: { ...env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    app.stdout!.on('data', (d) => (output += d));
    app.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((done) => app!.once('exit', (code) => done(code)));
    app.once('exit', (code, signal) => (output += `[app exited: ${code ?? signal}]\n`));

    await expect.poll(() => /Control panel: (http:\/\/127\.0\.0\.1:\d+\/#secret=[\w-]+)/.exec(output)?.[1], { timeout: 60_000 }).toBeTruthy();
    const panelUrl = /Control panel: (http:\/\/127\.0\.0\.1:\d+\/#secret=[\w-]+)/.exec(output)![1]!;

    // The panel without its secret (a bookmark, another local page) gets nothing of the app.
    const stranger = await panelContext.newPage();
    await stranger.goto(panelUrl.replace(/#.*$/, ''));
    await expect(stranger.getByRole('alert')).toHaveText(TEXTS.notOpenedByApp);
    await stranger.close();

    // The panel, opened by the app: the code to confirm, and the page that confirms it.
    const panel = await panelContext.newPage();
    await panel.goto(panelUrl);
    await expect(panel).toHaveURL(/\/$/); // the secret leaves the address bar
    const confirmLink = panel.getByRole('link', { name: TEXTS.pairing.confirm });
    await expect(confirmLink).toBeVisible({ timeout: 90_000 });
    const confirmUrl = (await confirmLink.getAttribute('href'))!;
    expect(confirmUrl).toMatch(new RegExp(`^${baseURL}/app/pair\\?code=[A-Z]{4}-[A-Z]{4}$`));

    // The owner, signed in to the web app, confirms it there.
    await page.goto(confirmUrl);
    await page.getByRole('button', { name: PAIR_TEXTS.confirm }).click();
    await expect(page.getByRole('heading', { level: 2, name: PAIR_TEXTS.doneTitle })).toBeVisible();

    // Paired: the model pulled from the platform, loaded and proven; the computer shares.
    await expect(panel.getByRole('status').first()).toHaveText(new RegExp(TEXTS.phases.sharing), { timeout: 120_000 });
    const sharing = panel.getByRole('region', { name: TEXTS.sharing.title });
    await expect(sharing.getByText(PROVIDER_MODEL.id)).toBeVisible();
    await expect(sharing.getByText(TEXTS.sharing.modelStates.ready)).toBeVisible();
    expect(existsSync(join(dir, 'models', PROVIDER_MODEL.file))).toBe(true);
    // Start at login is on after the first run, written where a Linux desktop looks for it.
    const autostart = join(home, '.config', 'autostart', 'glob-network.desktop');
    expect(readFileSync(autostart, 'utf8')).toMatch(/^Exec=.*desktop/m);
    await expect(sharing.getByRole('switch', { name: TEXTS.sharing.startAtLogin })).toHaveAttribute('aria-checked', 'true');

    // The allocation changed in the panel is the platform's.
    await sharing.getByRole('slider', { name: new RegExp(`^${TEXTS.sharing.labels.cpu_percent}`) }).fill('30');
    await sharing.getByRole('button', { name: TEXTS.sharing.save }).click();
    await expect(sharing.getByText(TEXTS.sharing.saved)).toBeVisible({ timeout: 30_000 });
    // The owner's "Your nodes" page (it refreshes every 10 s) shows what the platform holds.
    await navigate(page, 'Your nodes');
    const card = page.locator('.nodes-card');
    await expect(card).toHaveCount(1);
    await page.reload();
    await expect(card.getByRole('slider', { name: /^CPU/ })).toHaveValue('30');

    // Someone else chats with the model only this computer serves; the panel shows the platform's figures for it.
    const requester = await signUpByApi(request);
    const res = await request.post('/api/inference/stream/start', {
      headers: { authorization: `Bearer ${requester.accessToken}` },
      data: { streamId: `e2e_desktop_${Date.now().toString(36)}`, modelId: PROVIDER_MODEL.id, prompt: 'Hello, desktop', params: { max_tokens: 40 } },
    });
    expect(res.status(), await res.text()).toBe(200);
    expect(await res.text()).toMatch(/"type":"done"/);
    await expect(figure(panel, TEXTS.analytics.title, TEXTS.analytics.tasks)).toHaveText('1', { timeout: 60_000 });
    await expect(figure(panel, TEXTS.analytics.title, TEXTS.analytics.tokensServed)).toHaveText(/^[1-9][\d,]*$/);
    await expect(figure(panel, TEXTS.earnings.title, TEXTS.earnings.pending)).toHaveText(/[1-9]/);
    await expect(panel.getByRole('region', { name: TEXTS.earnings.title }).getByRole('link', { name: TEXTS.earnings.openWallet })).toHaveAttribute(
      'href',
      `${baseURL}/app/wallet`,
    );

    // Sharing off: no more claims here, and the platform shows the node paused; on again: back online.
    const share = sharing.getByRole('switch', { name: TEXTS.sharing.share });
    await share.click();
    await expect(share).toHaveAttribute('aria-checked', 'false');
    await expect(panel.getByRole('status').first()).toHaveText(new RegExp(TEXTS.phases.paused), { timeout: 30_000 });
    await nodeStatus(page, 'paused');
    // Paused, it is offered nothing: a reply for the model only it serves is refused at once (503).
    const refused = await request.post('/api/inference/stream/start', {
      headers: { authorization: `Bearer ${requester.accessToken}` },
      data: { streamId: `e2e_desktop_${Date.now().toString(36)}`, modelId: PROVIDER_MODEL.id, prompt: 'Anyone there?', params: { max_tokens: 8 } },
    });
    expect(refused.status()).toBe(503);
    expect((await refused.json()) as { message: string }).toMatchObject({ message: expect.stringContaining('is not available right now') });
    await share.click();
    await expect(panel.getByRole('status').first()).toHaveText(new RegExp(TEXTS.phases.sharing), { timeout: 30_000 });
    await nodeStatus(page, 'online');

    // Only while idle: in use (no idle time), the computer pauses; idle long enough, it shares again.
    writeFileSync(idleFile, '0');
    await sharing.getByRole('switch', { name: TEXTS.sharing.idleOnly }).click();
    await expect(panel.getByRole('status').first()).toHaveText(new RegExp(TEXTS.phases.paused), { timeout: 30_000 });
    await expect(panel.getByRole('banner').getByText(/in use/)).toBeVisible();
    await nodeStatus(page, 'paused');
    writeFileSync(idleFile, '3600');
    await expect(panel.getByRole('status').first()).toHaveText(new RegExp(TEXTS.phases.sharing), { timeout: 30_000 });
    await nodeStatus(page, 'online');

    // Quit: the app ends (closing the window would not).
    panel.once('dialog', (d) => void d.accept());
    await panel.getByRole('button', { name: TEXTS.quit }).click();
    await expect(panel.getByText(TEXTS.quitting)).toBeVisible();
    expect(await exited).toBe(0);
    expect(output).toMatch(/Quitting…/);
  } catch (error) {
    console.log(output);
    throw error;
  } finally {
    killGroup(app);
    await panelContext.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
