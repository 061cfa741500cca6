import type { Page } from '@playwright/test';
import type { components } from '@glob/contract';
import { expect, expectAccessible, heading, test } from '../support/fixtures';
import { example, signIn } from '../support/mocked';

/**
 * "Your nodes" on the mocked build: MSW (in the page) keeps the node list in memory, so pairing, pausing and revoking
 * change what the page reads next, as the API would.
 */
const NODE = example<components['schemas']['NodeList']>('/api/nodes', 'get', 200).nodes[0]!;
const TOKEN = example<components['schemas']['JoinToken']>('/api/nodes/join-tokens', 'post', 201);
const POOL = example<components['schemas']['PoolList']>('/api/nodes/pools', 'get', 200).pools[0]!;

const card = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name, exact: true }) });

test.beforeEach(async ({ page }) => signIn(page));

test('the sidebar leads to "Your nodes", which lists each node with its figures', async ({ page }) => {
  await page.goto('/app/dashboard');
  await heading(page);
  await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Your nodes' }).click();
  await expect(page).toHaveURL(/\/app\/nodes$/);
  await expect(await heading(page)).toHaveText('Your nodes');
  await expect(page).toHaveTitle('Your nodes — Glob Network');
  const node = card(page, NODE.name);
  await expect(node.locator('.nodes-status')).toHaveText('Status: Online');
  await expect(node).toContainText('93%');
  await expect(node).toContainText('8 cores · 32 GB · CPU only · linux/x64');
  await expect(node).toContainText('llama-3.2-1b-instruct');
  await expect(node).toContainText('3,712.5 GLOB');
  await expect(node).toContainText('87.5 GLOB');
  await expect(node.getByRole('slider', { name: 'CPU (10–80%)' })).toHaveValue('50');
  await expectAccessible(page);
});

test('pair a node: the exact command, copied; the paired machine appears without a reload; pause, then revoke', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/app/nodes');
  await expect(await heading(page)).toHaveText('Your nodes');
  await expect(card(page, NODE.name)).toBeVisible();

  await page.getByRole('button', { name: 'Pair a new node' }).click();
  const panel = page.getByRole('region', { name: 'Pair a new node' });
  await expect(panel.locator('pre code')).toHaveText(TOKEN.command);
  await expect(panel).toContainText('valid for 15 minutes and works once');
  await panel.getByRole('button', { name: 'Copy command' }).click();
  await expect(panel.getByRole('status')).toHaveText('Copied!');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(TOKEN.command);
  await expectAccessible(page);

  // The agent on the new machine trades the token (its request goes through the page's mock, as on a real API).
  await page.evaluate(
    async ({ token }) => {
      const response = await fetch('/api/nodes/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          join_token: token,
          name: 'study-mac',
          host: { hostname: 'study-mac', os: 'darwin', arch: 'arm64', cpu_cores: 10, memory_bytes: 17179869184, gpu: 'Apple M2', vram_bytes: null },
          models: ['llama-3.2-1b-instruct'],
          benchmark: { model_id: 'llama-3.2-1b-instruct', tokens_per_second: 60 },
        }),
      });
      if (response.status !== 201) throw new Error(`register answered ${response.status}`);
    },
    { token: TOKEN.join_token },
  );
  // The list is read again every 10 s.
  const fresh = card(page, 'study-mac');
  await expect(fresh).toBeVisible({ timeout: 15_000 });
  await expect(fresh.locator('.nodes-status')).toHaveText('Status: Online');
  await expect(fresh).toContainText('10 cores · 16 GB · Apple M2 · darwin/arm64');

  await fresh.getByRole('button', { name: 'Pause study-mac' }).click();
  await expect(fresh.locator('.nodes-status')).toHaveText('Status: Paused');
  await fresh.getByRole('button', { name: 'Resume study-mac' }).click();
  await expect(fresh.locator('.nodes-status')).toHaveText('Status: Online');

  const revoke = fresh.getByRole('button', { name: 'Revoke study-mac' });
  await revoke.click();
  const dialog = page.getByRole('alertdialog', { name: 'Revoke this node?' });
  await expect(dialog).toContainText('It stops serving at once and must be paired again.');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(revoke).toBeFocused();

  await revoke.click();
  await dialog.getByRole('button', { name: 'Revoke node' }).click();
  await expect(fresh).toHaveCount(0);
  await expect(card(page, NODE.name)).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toBeFocused();
});

test('rename and allocation on a phone-sized screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/app/nodes');
  await expect(await heading(page)).toHaveText('Your nodes');
  const node = card(page, NODE.name);
  await node.getByRole('button', { name: `Rename ${NODE.name}` }).click();
  const name = page.getByRole('textbox', { name: 'Node name' });
  await expect(name).toBeFocused();
  await name.fill('attic-server');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const renamed = card(page, 'attic-server');
  await expect(renamed).toBeVisible();

  const cpu = renamed.getByRole('slider', { name: 'CPU (10–80%)' });
  await cpu.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(cpu).toHaveValue('52');
  await renamed.getByRole('button', { name: 'Save allocation' }).click();
  await expect(renamed.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
  // No sideways scrolling on a phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectAccessible(page);
});

/** A machine pairs through the page's mock (POST /api/nodes/register), as a node agent would. */
async function pairNode(page: Page, name: string) {
  await page.evaluate(
    async ({ name, token }) => {
      const response = await fetch('/api/nodes/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          join_token: token,
          name,
          host: { hostname: name, os: 'linux', arch: 'x64', cpu_cores: 16, memory_bytes: 68719476736, gpu: null, vram_bytes: null },
          models: [],
          benchmark: { model_id: 'llama-3.2-1b-instruct', tokens_per_second: 30 },
        }),
      });
      if (response.status !== 201) throw new Error(`register answered ${response.status}`);
    },
    { name, token: TOKEN.join_token },
  );
}

test("pools: each member's share of the layers and the status in words; create one from two nodes, then dissolve it", async ({ page }) => {
  // Three accessibility audits and two dialogs: past the default budget on a loaded two-core machine (49 s seen).
  test.slow();
  await page.goto('/app/nodes');
  await expect(await heading(page)).toHaveText('Your nodes');
  const pools = page.getByRole('region', { name: 'Pools' });
  const pool = pools.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: POOL.name, exact: true }) });
  await expect(pool.locator('.pools-status')).toHaveText('Status: Healthy');
  const members = pool.getByRole('list', { name: `Members of ${POOL.name}` }).getByRole('listitem');
  await expect(members).toHaveCount(3);
  await expect(members.nth(0)).toContainText('living-room-pc');
  await expect(members.nth(0)).toContainText('Coordinator');
  await expect(members.nth(0)).toContainText('40 of 80 layers · 50%');
  await expect(members.nth(1)).toContainText('Shard');
  await expect(members.nth(1)).toContainText('20 of 80 layers · 25%');
  await expectAccessible(page);

  await pairNode(page, 'office-tower');
  await pairNode(page, 'garage-server');
  // The list is read again every 10 s (the mock's state lives in the page, so no reload).
  await expect(card(page, 'garage-server')).toBeVisible({ timeout: 15_000 });

  await pools.getByRole('button', { name: 'Create pool' }).click();
  const form = page.getByRole('region', { name: 'Create a pool' });
  await expect(form.getByRole('textbox', { name: 'Pool name' })).toBeFocused();
  await page.keyboard.type('attic-pool');
  await form.getByRole('combobox', { name: 'Model' }).selectOption('llama-3.3-70b-instruct');
  await expect(form.getByRole('checkbox', { name: /living-room-pc/ })).toBeDisabled();
  await form.getByRole('checkbox', { name: /office-tower/ }).check();
  // Keyboard only: Space checks the focused box.
  await form.getByRole('checkbox', { name: /garage-server/ }).focus();
  await page.keyboard.press('Space');
  await expect(form.getByRole('checkbox', { name: /garage-server/ })).toBeChecked();
  await expectAccessible(page);
  await form.getByRole('button', { name: 'Create pool' }).click();

  const created = pools.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: 'attic-pool', exact: true }) });
  await expect(created.locator('.pools-status')).toHaveText('Status: Forming');
  await expect(created).toContainText('Llama 3.3 70B Instruct');
  await expect(created.getByRole('list', { name: 'Members of attic-pool' }).getByRole('listitem')).toHaveCount(2);
  await expect(form).toBeHidden();

  const dissolve = created.getByRole('button', { name: 'Dissolve attic-pool' });
  await dissolve.click();
  const dialog = page.getByRole('alertdialog', { name: 'Dissolve this pool?' });
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(dissolve).toBeFocused();
  await dissolve.click();
  await dialog.getByRole('button', { name: 'Dissolve pool' }).click();
  await expect(created).toHaveCount(0);
  await expect(pool).toBeVisible();
  await expect(pools.getByRole('heading', { level: 2, name: 'Pools' })).toBeFocused();
});
