/**
 * A provider pools three of their machines from "Your nodes" on the real platform: the test plays the nodes (paired
 * through the node API, kept online by its own heartbeats that report the model's file, the pool endpoint and
 * readiness), while the API plans the split and the web app shows it: forming, the coordinator and each shard's
 * layers, healthy, degraded when a shard stops, and dissolved.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { layerSummary } from '../../src/features/nodes/format';
import { NODES_TEXTS, POOLS_TEXTS, POOL_STATUS_HINTS, POOL_STATUS_LABELS, STATUS_LABELS } from '../../src/features/nodes/texts';
import { navigate, registerThroughUi, type Person } from '../support/app';
import { expect, expectAccessible, test } from '../support/fixtures';
import { uniqueEmail } from '../support/platform';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import PROVIDER_MODEL from '../support/provider-model.json' with { type: 'json' };

const GiB = 2 ** 30;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The platform's copy of the provider model's file (e2e/support/stack.mjs puts it there), which challenges are about. */
const PROVIDER_MODEL_FILE = join(REPO, dirname(PROVIDER_MODEL.catalog), PROVIDER_MODEL.file);
/**
 * The model's file as its holder reports it: the platform's copy (the tiny model's weights: 4 layers), which is what
 * the platform plans from; a report with other numbers would not count as holding it.
 */
const FILE = { model_id: PROVIDER_MODEL.id, bytes: 0, layers: 4 };

/**
 * A challenge's file answer: SHA-256 of the nonce and each byte range. The backend's own (file-proof.ts) is CommonJS,
 * which these ES-module tests cannot import by name; the rule is one line.
 */
async function hashRanges(path: string, nonce: string, ranges: Array<{ offset: number; length: number }>): Promise<string[]> {
  const file = await readFile(path);
  return ranges.map((r) =>
    createHash('sha256')
      .update(Buffer.from(nonce, 'hex'))
      .update(file.subarray(r.offset, r.offset + r.length))
      .digest('hex'),
  );
}

/**
 * A challenge's generation as a node holding the model writes it: the model's own reply, run by the backend's engine
 * in a child process (another owner's node, such as another test's agent, may replay it and must agree).
 */
function modelsAnswer(c: Challenge): Promise<string> {
  const request = { generate: { messages: c.messages, sampling: c.params } };
  return new Promise((done, fail) =>
    execFile(
      process.execPath,
      ['--conditions=glob-source', '-r', '@swc-node/register', 'test/support/engine-probe.ts', PROVIDER_MODEL_FILE, JSON.stringify(request)],
      { cwd: join(REPO, 'backend'), timeout: 80_000 },
      (err, stdout) => {
        const result = stdout
          .split('\n')
          .filter((l) => l.trim().startsWith('{'))
          .map((l) => JSON.parse(l) as { type: string; text?: string })
          .find((l) => l.type === 'result');
        if (result?.text !== undefined) done(result.text);
        else fail(err ?? new Error(`the engine gave no answer: ${stdout}`));
      },
    ),
  );
}

interface Challenge {
  challenge_id: string;
  nonce: string;
  ranges: Array<{ offset: number; length: number }>;
  messages: Array<{ role: string; content: string }>;
  /** The challenge's sampling (the spec's `Sampling`), given to the engine as it is, as the node agent does. */
  params: { temperature: number; max_tokens: number; top_p: number; seed: number };
}

interface Beat {
  models: string[];
  files?: Array<typeof FILE>;
  pool_endpoint?: string | null;
  pool_ready?: string | null;
}

/** A node played by the test: registered with a join token, then calling in every 2 s with what `beat` says. */
interface FakeNode {
  id: string;
  name: string;
  beat: Beat;
  /** Sends the current beat now and answers the API's reply (the node's state, with its pool assignment). */
  send: () => Promise<{ pool: { pool_id: string; role: string } | null }>;
}

async function pair(request: APIRequestContext, accessToken: string, name: string, memoryGiB: number): Promise<FakeNode> {
  const token = await request.post('/api/nodes/join-tokens', { headers: { authorization: `Bearer ${accessToken}` } });
  expect(token.status(), await token.text()).toBe(201);
  const { join_token } = (await token.json()) as { join_token: string };
  const host = { hostname: name, os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: memoryGiB * GiB, gpu: null, vram_bytes: null };
  const res = await request.post('/api/nodes/register', {
    data: { join_token, name, host, models: [], benchmark: { model_id: PROVIDER_MODEL.id, tokens_per_second: 50 } },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { node_id, credential } = (await res.json()) as { node_id: string; credential: string };
  // A model counts only once the node proved it holds the file: the challenge of one beat is answered by the next.
  let proofs: Array<{ challenge_id: string; range_hashes: string[]; text: string }> = [];
  const post = async () => {
    const r = await request.post('/api/nodes/heartbeat', {
      headers: { authorization: `Bearer ${credential}` },
      data: { running_jobs: 0, ...node.beat, ...(proofs.length ? { proofs: proofs.splice(0) } : {}) },
    });
    expect(r.status(), await r.text()).toBe(200);
    const state = (await r.json()) as { pool: { pool_id: string; role: string } | null; challenges?: Challenge[] };
    proofs = await Promise.all(
      (state.challenges ?? []).map(async (c) => ({
        challenge_id: c.challenge_id,
        range_hashes: await hashRanges(PROVIDER_MODEL_FILE, c.nonce, c.ranges),
        text: await modelsAnswer(c),
      })),
    );
    return state;
  };
  // One beat at a time, in order: a timed beat still in flight with the old state cannot land after a newer one.
  let last: Promise<unknown> = Promise.resolve();
  const node: FakeNode = {
    id: node_id,
    name,
    beat: { models: [] },
    send: () => {
      const next = last.catch(() => undefined).then(post);
      last = next;
      return next;
    },
  };
  await node.send();
  return node;
}

/** Heartbeats every 2 s for each node (well inside the stack's live window) until the returned stop is called. */
function keepOnline(nodes: FakeNode[]): () => Promise<void> {
  let inFlight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // A beat that fails after the test ended (page closed, stack stopping) is of no interest.
    inFlight = Promise.all(nodes.map((n) => n.send().catch(() => undefined)));
  }, 2_000);
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}

/** The access token the signed-in web app keeps. */
const accessTokenOf = (page: Page) => page.evaluate(() => localStorage.getItem('access_token') ?? '');

test('a provider pools three nodes: forming, the split by memory, healthy, degraded, dissolved', async ({ page, request }) => {
  test.setTimeout(90_000);
  const provider: Person = { username: 'barbara_liskov', email: uniqueEmail('barbara'), password: 'Substitution-Principle-1987' };
  await registerThroughUi(page, provider);
  await navigate(page, 'Your nodes');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(NODES_TEXTS.title);
  await expect(page.getByText(NODES_TEXTS.emptyTitle)).toBeVisible();

  FILE.bytes = (await stat(PROVIDER_MODEL_FILE)).size;
  const token = await accessTokenOf(page);
  const [attic, desk, shelf] = [
    await pair(request, token, 'attic-box', 8),
    await pair(request, token, 'desk-box', 4),
    await pair(request, token, 'shelf-box', 4),
  ];
  const stopBeats = keepOnline([attic!, desk!, shelf!]);
  try {
    await page.reload();
    await expect(page.locator('.nodes-card[data-status="online"]')).toHaveCount(3);
    const section = page.getByRole('region', { name: POOLS_TEXTS.title });
    await expect(section.getByText(POOLS_TEXTS.emptyTitle)).toBeVisible();

    // Created through the form; the pool knows its members but not yet the model's file.
    await section.getByRole('button', { name: POOLS_TEXTS.create }).click();
    const form = section.getByRole('region', { name: POOLS_TEXTS.createTitle });
    await form.getByRole('textbox', { name: POOLS_TEXTS.nameLabel }).fill('study-pool');
    await form.getByRole('combobox', { name: POOLS_TEXTS.modelLabel }).selectOption(PROVIDER_MODEL.id);
    for (const node of [attic!, desk!, shelf!]) await form.getByRole('checkbox', { name: new RegExp(`^${node.name} `) }).check();
    await expectAccessible(page);
    await form.getByRole('button', { name: POOLS_TEXTS.create }).click();
    await expect(form).toBeHidden();

    const card = section.locator('.pools-card');
    await expect(card).toHaveCount(1);
    await expect(card.getByRole('heading', { level: 3 })).toHaveText('study-pool');
    await expect(card.locator('.pools-status')).toHaveText(`Status: ${POOL_STATUS_LABELS.forming}`);
    await expect(card.locator('.pools-problem')).toHaveText("No member has reported holding this model's file yet.");
    await expect(card).toContainText(PROVIDER_MODEL.name);
    const poolId = (await card.getAttribute('data-pool-id'))!;
    const members = card.getByRole('list', { name: `${POOLS_TEXTS.membersLabel} study-pool` }).getByRole('listitem');
    await expect(members).toHaveCount(3);
    await expect(members.first()).toContainText(POOLS_TEXTS.layersNotPlanned);

    // attic-box reports the file: it coordinates, and the 4 layers follow the memory offered (3.2 : 1.6 : 1.6 GiB).
    attic!.beat = { models: [], files: [FILE], pool_endpoint: '10.9.0.2:7001' };
    desk!.beat = { models: [], pool_endpoint: '10.9.0.3:7001' };
    shelf!.beat = { models: [], pool_endpoint: '10.9.0.4:7001' };
    expect((await attic!.send()).pool).toMatchObject({ pool_id: poolId, role: 'coordinator' });
    expect((await desk!.send()).pool).toMatchObject({ pool_id: poolId, role: 'shard' });
    await shelf!.send();
    // No reload: the list is read again every 10 s.
    await expect(card.locator('.pools-problem')).toHaveCount(0, { timeout: 15_000 });
    await expect(card.locator('.pools-status')).toHaveText(`Status: ${POOL_STATUS_LABELS.forming}`);
    // The coordinator leads the list; the shards follow in the order the form sent them (the nodes list's order).
    await expect(members.first().locator('.pools-member-name')).toHaveText(attic!.name);
    const expected = [
      [attic!, 'Coordinator', layerSummary(2, 4, 0.5)],
      [desk!, 'Shard', layerSummary(1, 4, 0.25)],
      [shelf!, 'Shard', layerSummary(1, 4, 0.25)],
    ] as const;
    expect(layerSummary(2, 4, 0.5)).toBe('2 of 4 layers · 50%');
    for (const [node, role, share] of expected) {
      const member = card.locator(`.pools-member[data-node-id="${node.id}"]`);
      await expect(member.locator('.pools-member-name')).toHaveText(node.name);
      await expect(member.locator('.badge')).toHaveText(`${POOLS_TEXTS.role}: ${role}`);
      await expect(member.locator('.pools-member-share dd')).toHaveText(share);
    }

    // Every member runs its part and the coordinator serves the model: healthy.
    desk!.beat = { ...desk!.beat, pool_ready: poolId };
    shelf!.beat = { ...shelf!.beat, pool_ready: poolId };
    attic!.beat = { ...attic!.beat, models: [PROVIDER_MODEL.id], pool_ready: poolId };
    await Promise.all([desk!.send(), shelf!.send()]);
    // Its first beat with the model gets the challenge; the second answers it and the model is proven.
    await attic!.send();
    await attic!.send();
    // Where another owner's node serves the model (another test's agent), it replays the challenge first, or is given
    // up on after a few seconds: the page is read again until the model counts.
    await expect(async () => {
      await page.reload();
      await expect(card.locator('.pools-status')).toHaveText(`Status: ${POOL_STATUS_LABELS.healthy}`, { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(card).toContainText(POOL_STATUS_HINTS.healthy);
    for (const i of [0, 1, 2]) await expect(members.nth(i)).toContainText(`${STATUS_LABELS.online} · ${POOLS_TEXTS.ready}`);
    await expectAccessible(page);

    // A shard stops running its part: degraded. (Falling silent would do the same, but only after the live window, 15 s.)
    shelf!.beat = { ...shelf!.beat, pool_ready: null };
    await shelf!.send();
    await page.reload();
    await expect(card.locator('.pools-status')).toHaveText(`Status: ${POOL_STATUS_LABELS.degraded}`);
    await expect(card).toContainText(POOL_STATUS_HINTS.degraded);
    await expect(card.locator(`.pools-member[data-node-id="${shelf!.id}"]`)).toContainText(`${STATUS_LABELS.online} · ${POOLS_TEXTS.notReady}`);

    // Dissolved after the confirmation: the empty state is back, and the members hear of it at their next heartbeat.
    await card.getByRole('button', { name: `${POOLS_TEXTS.dissolve} study-pool` }).click();
    const dialog = page.getByRole('alertdialog', { name: POOLS_TEXTS.dissolveTitle });
    await dialog.getByRole('button', { name: POOLS_TEXTS.dissolveConfirm }).click();
    await expect(dialog).toBeHidden();
    await expect(card).toHaveCount(0);
    await expect(section.getByText(POOLS_TEXTS.emptyTitle)).toBeVisible();
    expect((await attic!.send()).pool).toBeNull();
  } finally {
    await stopBeats();
  }
});
