/**
 * The desktop app's releases end to end, on the real platform and the real packages `make release` builds (with a
 * test signing key, into .data/release-test by `make test-release`):
 *  1. `npm run release:publish` publishes a signed release; every button of the downloads page fetches the platform's
 *     real file, whose SHA-256 is the one the page shows and the signed manifest holds.
 *  2. The .deb is installed with dpkg (this test runs as root, as CI does), the installed app starts without a display,
 *     pairs by a code confirmed in the web app, and serves a reply; a newer release is published; a manifest signed
 *     with another key and a tampered file are both refused; the verified update is applied by "Restart to update",
 *     and the app comes back as the new version and serves again; `dpkg -r` removes the program and keeps the
 *     provider's credential, models and settings.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAIR_TEXTS } from '../../src/features/nodes/texts';
import { registerThroughUi, type Person } from '../support/app';
import { query, stackDatabaseUrl } from '../support/db';
import { expect, test } from '../support/fixtures';
import { killGroup } from '../support/processes';
import { signUpByApi, uniqueEmail } from '../support/platform';
import STACK from '../support/provider-model.json' with { type: 'json' };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const RELEASES = join(ROOT, '.data', 'release-test');
const FIRST = '0.1.0';
const NEXT = '0.1.1';
const MODEL = STACK.installer;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface ManifestAsset {
  name: string;
  platform: string;
  arch: string;
  format: string;
  size: number;
  sha256: string;
}
const manifestOf = (version: string) =>
  JSON.parse(readFileSync(join(RELEASES, version, 'release-manifest.json'), 'utf8')) as { version: string; assets: ManifestAsset[] };

/** `npm run release:publish -- <dir>`, as the operator of the stack's platform (its database, release folder and URL). */
function publish(platform: string, dir: string): { status: number; output: string } {
  const r = spawnSync('npm', ['run', '--silent', 'release:publish', '--', dir], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: stackDatabaseUrl(), RELEASES_DIR: join(ROOT, STACK.releases), PUBLIC_API_URL: platform },
    encoding: 'utf8',
  });
  return { status: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
}

test.describe.serial('desktop app releases', () => {
  test.beforeAll(() => {
    for (const v of [FIRST, NEXT])
      if (!existsSync(join(RELEASES, v, 'release-manifest.json')))
        throw new Error(`${join(RELEASES, v)} is missing: run \`make test-release\` first (it builds the packages with a test key)`);
  });

  test('a published release: every download button fetches the platform’s file, with the checksum the page shows', async ({ page, baseURL }) => {
    const published = publish(baseURL!, join(RELEASES, FIRST));
    expect(published.status, published.output).toBe(0);
    expect(publish(baseURL!, join(RELEASES, FIRST)).output).toMatch(/already published/);
    const manifest = manifestOf(FIRST);

    await page.goto('/downloads');
    await expect(page.locator('.release-status')).toHaveText(`Latest: v${FIRST}`);
    const events = async () => Number((await query<{ n: string }>('SELECT count(*) AS n FROM download_events'))[0]!.n);
    const before = await events();
    const seen = new Set<string>();
    for (const card of ['windows', 'macos', 'linux']) {
      const buttons = page.locator(`[data-platform="${card}"]`).getByRole('button', { name: /^Download/ });
      const count = await buttons.count();
      expect(count).toBeGreaterThan(0);
      for (let i = 0; i < count; i++) {
        const download = page.waitForEvent('download');
        // The click is recorded (analytics) before the file opens.
        const analytics = page.waitForResponse((r) => r.url().endsWith('/api/system/analytics/download'));
        await buttons.nth(i).click();
        expect((await analytics).status()).toBe(201);
        const file = await download;
        const name = file.suggestedFilename();
        const asset = manifest.assets.find((a) => a.name === name)!;
        expect(asset, name).toBeTruthy();
        const bytes = readFileSync((await file.path())!);
        expect(bytes.length).toBe(asset.size);
        expect(sha256(bytes)).toBe(asset.sha256);
        // The page shows that same checksum beside the file.
        await expect(page.locator(`[data-platform="${card}"]`).getByText(asset.sha256)).toBeVisible();
        seen.add(name);
      }
    }
    expect([...seen].sort()).toEqual(manifest.assets.map((a) => a.name).sort());
    expect(await events()).toBe(before + seen.size);
  });

  test('the .deb installs, pairs, serves, refuses bad updates, updates itself, and uninstalls leaving the provider’s data', async ({
    browser,
    page,
    request,
    baseURL,
  }) => {
    test.setTimeout(420_000);
    expect(process.getuid?.(), 'dpkg -i needs root (CI runs as root)').toBe(0);
    const deb = manifestOf(FIRST).assets.find((a) => a.format === 'deb')!;
    const dir = mkdtempSync(join(tmpdir(), 'glob-e2e-installed-'));
    const home = join(dir, 'home');
    mkdirSync(home);
    const provider: Person = { username: 'ada_installed', email: uniqueEmail('ada-installed'), password: 'Analytical-Engine-1843' };
    const panelContext = await browser.newContext();
    let app: ChildProcess | undefined;
    let output = '';
    const dpkg = (...args: string[]) => execFileSync('dpkg', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    spawnSync('dpkg', ['-r', 'globnetwork']); // a run that stopped half-way
    try {
      dpkg('-i', join(RELEASES, FIRST, deb.name));
      expect(dpkg('-s', 'globnetwork')).toMatch(new RegExp(`^Version: ${FIRST}$`, 'm'));
      for (const path of ['/usr/bin/glob-network', '/opt/glob-network/runtime/node', '/usr/share/applications/glob-network.desktop'])
        expect(existsSync(path), path).toBe(true);

      await registerThroughUi(page, provider);
      // Started as the desktop entry starts it, with no display, in a home of its own; only this test's model.
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|MODEL_CATALOG|GLOB_|DISPLAY|WAYLAND)/.test(k)),
      );
      app = spawn('/usr/bin/glob-network', ['--api', baseURL!, '--no-browser', '--models', MODEL.id, '--threads', '1', '--gpu', 'off'], {
        env: { ...env, HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      app.stdout!.on('data', (d) => (output += d));
      app.stderr!.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((done) => app!.once('exit', (code) => done(code)));
      const panelUrls = () => [...output.matchAll(/Control panel: (http:\/\/127\.0\.0\.1:\d+\/#secret=[\w-]+)/g)].map((m) => m[1]!);

      await expect.poll(() => panelUrls().length, { timeout: 60_000 }).toBe(1);
      expect(output).toContain(`[launcher] Starting Glob Network ${FIRST}`);
      let panel = await panelContext.newPage();
      await panel.goto(panelUrls()[0]!);
      const confirm = panel.getByRole('link', { name: 'Confirm this code in your browser' });
      await expect(confirm).toBeVisible({ timeout: 90_000 });
      await page.goto((await confirm.getAttribute('href'))!);
      await page.getByRole('button', { name: PAIR_TEXTS.confirm }).click();
      await expect(page.getByRole('heading', { level: 2, name: PAIR_TEXTS.doneTitle })).toBeVisible();
      await expect(panel.getByRole('status').first()).toHaveText(/Sharing/, { timeout: 120_000 });
      // The panel says Sharing as the agent serves; the platform records its models at the heartbeat that follows.
      const installedNode = async () =>
        (
          await query<{ id: string; agent_version: string }>('SELECT id, agent_version FROM nodes WHERE name IS NOT NULL AND $1 = ANY(models)', [
            MODEL.id,
          ])
        )[0];
      await expect.poll(async () => (await installedNode())?.agent_version, { timeout: 30_000 }).toBe(FIRST);
      const node = await installedNode();

      // Someone else's reply for the model only this computer serves.
      const requester = await signUpByApi(request);
      const reply = async (prompt: string) => {
        const res = await request.post('/api/inference/stream/start', {
          headers: { authorization: `Bearer ${requester.accessToken}` },
          data: { streamId: `e2e_installed_${Date.now().toString(36)}`, modelId: MODEL.id, prompt, params: { max_tokens: 24 } },
        });
        expect(res.status(), await res.text()).toBe(200);
        expect(await res.text()).toMatch(/"type":"done"/);
      };
      await reply('Hello, installed app');

      // A newer release: published; first as a platform gone bad would serve it.
      const next = join(RELEASES, NEXT);
      const published = publish(baseURL!, next);
      expect(published.status, published.output).toBe(0);
      const updates = panel.getByRole('group', { name: `Version ${FIRST}` });
      const [release] = await query<{ manifest: string; signature: string }>('SELECT manifest, signature FROM releases WHERE version = $1', [NEXT]);
      // (a) the manifest signed with another key than the one built into the app
      const other = generateKeyPairSync('ed25519').privateKey;
      await query('UPDATE releases SET signature = $2 WHERE version = $1', [
        NEXT,
        sign(null, Buffer.from(release!.manifest), other).toString('base64'),
      ]);
      await updates.getByRole('button', { name: 'Check for updates' }).click();
      await expect(updates).toContainText('Update refused: the release manifest is not signed with Glob Network’s release key', { timeout: 30_000 });
      await query('UPDATE releases SET signature = $2 WHERE version = $1', [NEXT, release!.signature]);
      const served = (await (await request.get('/api/releases/latest/manifest')).json()) as { signature: string; manifest: string };
      expect(served).toMatchObject({ signature: release!.signature, manifest: release!.manifest });
      // (b) the file changed on the platform's disk after it was published
      const asset = manifestOf(NEXT).assets.find((a) => a.platform === 'linux' && a.format === 'tar.gz')!;
      const stored = join(ROOT, STACK.releases, NEXT, asset.name);
      const good = readFileSync(stored);
      const bad = Buffer.from(good);
      bad[bad.length >> 1] = bad[bad.length >> 1]! ^ 0xff;
      writeFileSync(stored, bad);
      await updates.getByRole('button', { name: 'Check for updates' }).click();
      await expect(updates).toContainText(`Update refused: ${asset.name}’s SHA-256 is not the one in the signed manifest`, { timeout: 60_000 });
      expect(existsSync(join(home, '.glob-network', 'updates', 'versions', NEXT))).toBe(false);
      writeFileSync(stored, good);

      // The real one: downloaded, verified, ready; the tray and the panel say so; applied by a restart.
      await updates.getByRole('button', { name: 'Check for updates' }).click();
      await expect(updates).toContainText(`Version ${NEXT} is ready.`, { timeout: 120_000 });
      await updates.getByRole('button', { name: 'Restart to update' }).click();
      await expect.poll(() => panelUrls().length, { timeout: 120_000 }).toBe(2);
      expect(output).toContain(`[launcher] Starting Glob Network ${NEXT} (updated)`);
      panel = await panelContext.newPage();
      await panel.goto(panelUrls()[1]!);
      await expect(panel.getByRole('group', { name: `Version ${NEXT}` })).toBeVisible();
      await expect(panel.getByRole('status').first()).toHaveText(/Sharing/, { timeout: 120_000 });
      await expect
        .poll(async () => (await query<{ agent_version: string }>('SELECT agent_version FROM nodes WHERE id = $1', [node!.id]))[0]?.agent_version, {
          timeout: 30_000,
        })
        .toBe(NEXT);
      await reply('Hello again, updated app');

      // Quit, then remove the package: the program goes, the provider's data stays.
      panel.once('dialog', (d) => void d.accept());
      await panel.getByRole('button', { name: 'Quit' }).click();
      expect(await exited).toBe(0);
      dpkg('-r', 'globnetwork');
      for (const path of ['/opt/glob-network', '/usr/bin/glob-network', '/usr/share/applications/glob-network.desktop'])
        expect(existsSync(path), `${path} after dpkg -r`).toBe(false);
      const data = join(home, '.glob-network');
      expect(readdirSync(join(data, 'node'))).toEqual(expect.arrayContaining(['credential.json', 'desktop.json']));
      expect(existsSync(join(data, 'models', MODEL.file))).toBe(true);
      expect(existsSync(join(data, 'updates', 'versions', NEXT, 'runtime', 'node'))).toBe(true);
      // The login entry stays in the home too, but names the removed program in TryExec, so the desktop skips it.
      expect(readFileSync(join(home, '.config', 'autostart', 'glob-network.desktop'), 'utf8')).toMatch(
        /^TryExec=\/opt\/glob-network\/bin\/glob-network$/m,
      );
    } catch (error) {
      console.log(output);
      throw error;
    } finally {
      killGroup(app);
      spawnSync('dpkg', ['-r', 'globnetwork']);
      await panelContext.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
