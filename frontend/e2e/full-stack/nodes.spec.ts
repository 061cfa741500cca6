/**
 * A provider shares a machine, end to end on the real platform: pairing from "Your nodes", the agent started with the
 * command the page shows (a separate process that knows only the API's URL), the node online, a reply served by it
 * for someone else, and the task and its pending reward on the node's row. The node serves a model the stack's
 * in-cluster worker does not load, so the reply can only be the node's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator } from '@playwright/test';
import { NODES_TEXTS } from '../../src/features/nodes/texts';
import { navigate, registerThroughUi, type Person } from '../support/app';
import { expect, expectAccessible, test } from '../support/fixtures';
import { signUpByApi, uniqueEmail } from '../support/platform';
import PROVIDER_MODEL from '../support/provider-model.json' with { type: 'json' };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The value of one fact (a dt/dd pair) on the node's card. */
const fact = (card: Locator, term: string) => card.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]');

test('a provider pairs a node from the web app and sees it serve a reply and earn a pending reward', async ({ page, context, request }) => {
  test.setTimeout(180_000);
  const provider: Person = { username: 'grace_hopper', email: uniqueEmail('grace'), password: 'Compiler-A0-1952' };
  const dir = mkdtempSync(join(tmpdir(), 'glob-e2e-node-'));
  // The agent's disk: only the provider-only model's file (the tiny model's weights under that name).
  const models = join(dir, 'models');
  let agent: ChildProcess | undefined;
  let output = '';
  try {
    await registerThroughUi(page, provider);
    await navigate(page, 'Your nodes');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(NODES_TEXTS.title);
    await expect(page.getByText(NODES_TEXTS.emptyTitle)).toBeVisible();

    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: NODES_TEXTS.pairButton }).click();
    const command = (await page.getByTestId('join-command').textContent())!;
    // npx runs the agent package this API serves (make serve packs this checkout's agent), pointed at the API itself.
    expect(command).toMatch(
      /^npx --yes --package http:\/\/127\.0\.0\.1:(\d+)\/api\/nodes\/agent\/glob-node-[\d.]+\.tgz glob-node --api http:\/\/127\.0\.0\.1:\1 --join-token glb_join_\S+$/,
    );
    await page.getByRole('button', { name: NODES_TEXTS.copyCommand }).click();
    await expect(page.getByText(NODES_TEXTS.copied)).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(command);

    // The copied command's options, given to this repository's agent (`npm run node`: the package the command runs is
    // packed from it, and backend/test/integration/agent-package.spec.ts runs the command itself), plus where this
    // machine keeps its files.
    mkdirSync(models);
    symlinkSync(join(ROOT, '.data', 'models', 'glob-tiny-chat.gguf'), join(models, PROVIDER_MODEL.file));
    const [npx, yes, option, , bin, ...args] = copied.split(' ');
    expect([npx, yes, option, bin]).toEqual(['npx', '--yes', '--package', 'glob-node']);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|MODEL_CATALOG|GLOB_)/.test(k)),
    );
    agent = spawn(
      'npm',
      [
        ...['run', 'node', '--'],
        ...args,
        // Only the provider model: a node that also served the tiny model would take other tests' replies.
        '--models',
        PROVIDER_MODEL.id,
        '--models-dir',
        models,
        '--data-dir',
        join(dir, 'node'),
        '--threads',
        '1',
        '--gpu',
        'off',
      ],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so Ctrl-C goes to npm and the agent together, as a terminal sends it.
        detached: true,
      },
    );
    agent.stdout!.on('data', (d) => (output += d));
    agent.stderr!.on('data', (d) => (output += d));
    agent.once('exit', (code, signal) => (output += `[agent exited: ${code ?? signal}]\n`));

    // The list refreshes by itself: the node appears, then goes online with the model loaded.
    const card = page.locator('.nodes-card');
    await expect(card).toHaveCount(1, { timeout: 60_000 });
    await expect(card).toHaveAttribute('data-status', 'online', { timeout: 30_000 });
    await expect(fact(card, NODES_TEXTS.models)).toHaveText(PROVIDER_MODEL.id, { timeout: 15_000 });
    await expect(fact(card, NODES_TEXTS.tasksServed)).toHaveText('0');

    // Someone else chats with the model only this node serves.
    const requester = await signUpByApi(request);
    const streamId = `e2e_node_${Date.now().toString(36)}`;
    const res = await request.post('/api/inference/stream/start', {
      headers: { authorization: `Bearer ${requester.accessToken}` },
      data: { streamId, modelId: PROVIDER_MODEL.id, prompt: 'Hello, node', params: { max_tokens: 40 } },
    });
    expect(res.status(), await res.text()).toBe(200);
    const body = await res.text();
    expect(body).toContain('"type":"token"');
    expect(body).toMatch(/"type":"done"/);

    // The provider sees the task and its pending reward on the node's row (earned stays 0 until settlement).
    await expect(fact(card, NODES_TEXTS.tasksServed)).toHaveText('1', { timeout: 20_000 });
    await expect(fact(card, NODES_TEXTS.pending)).not.toHaveText('0 GLOB');
    await expect(fact(card, NODES_TEXTS.pending)).toHaveText(/^[\d,.]+ GLOB$/);
    await expect(fact(card, NODES_TEXTS.earned)).toHaveText('0 GLOB');

    // Its earnings panel: the tokens the platform counted for that reply, today's bar, and no checks yet.
    await card.getByText(NODES_TEXTS.earningsTitle).click();
    await expect(fact(card, NODES_TEXTS.tokensServed)).toHaveText(/^[1-9][\d,]*$/);
    await expect(fact(card, NODES_TEXTS.checks)).toHaveText(NODES_TEXTS.checksValue({ failed: 0 }));
    await expect(card.locator('rect.earnings-bar:not(.zero)')).toHaveCount(1);
    await expectAccessible(page);

    // Ctrl-C in the provider's terminal: the agent stops and says so.
    await stop(agent, 'SIGINT');
    expect(output).toMatch(/Stopping…[\s\S]*\[agent exited/);
  } catch (error) {
    console.log(output);
    throw error;
  } finally {
    if (agent) await stop(agent, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Signals the agent's process group (npm and the agent, as a terminal's Ctrl-C does) and waits for it to exit. */
async function stop(agent: ChildProcess, name: NodeJS.Signals): Promise<void> {
  if (agent.exitCode !== null || agent.signalCode !== null) return;
  const exited = new Promise((r) => agent.once('exit', r));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-agent.pid!, s);
      return true;
    } catch {
      return false; // the group has already gone
    }
  };
  if (!signal(name)) return;
  const timer = setTimeout(() => signal('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
