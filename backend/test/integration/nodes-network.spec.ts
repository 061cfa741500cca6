import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { startAgent, TEST_AGENT_ARGS, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { ledgerCheckCli } from '../support/ledger-check';
import { createNetnsHost, netnsUnavailable, type NetnsHost } from '../support/netns';
import { newUser } from '../support/users';
import { atFirstToken, readSse, startReply, taskOf } from '../support/worker';

/**
 * The network as providers make it: two node agents, separate processes that know only the API's URL, one on
 * this host's loopback and one on a host of its own (a network namespace joined by a veth pair, so nothing but
 * the network joins it to the API), sharing the one queue, with a real API on real PostgreSQL and Redis.
 */
const MODEL = 'glob-tiny-chat';
const JOB_LOCK_MS = 4000;
let seq = 0;
const streamId = () => `s_net_${Date.now().toString(36)}_${++seq}`;

describe('the network: provider nodes on separate hosts share one queue', () => {
  const noNetns = netnsUnavailable();
  let host: NetnsHost | undefined;
  let stack: TestStack;
  let provider: Awaited<ReturnType<typeof newUser>>;
  let requester: Awaited<ReturnType<typeof newUser>>;
  const dirs: string[] = [];
  const agents: Record<'a' | 'b', { agent: AgentProcess; nodeId: string; api: string }> = {} as never;

  beforeAll(async () => {
    stack = await startStack({
      host: noNetns ? '127.0.0.1' : '0.0.0.0',
      env: { JOB_LOCK_MS: String(JOB_LOCK_MS), JOB_STALLED_INTERVAL_MS: '1000', REAPER_INTERVAL_MS: '1000', WELCOME_BONUS_GLOB: '5000' },
    });
    if (noNetns) console.warn(`Node B runs on loopback, not on a host of its own: ${noNetns}`);
    else host = createNetnsHost();
    provider = await newUser(stack, 'net-provider');
    requester = await newUser(stack, 'net-requester');
    const port = new URL(stack.url).port;
    for (const [key, api, on] of [
      ['a', stack.url, undefined],
      ['b', host ? `http://${host.gateway}:${port}` : stack.url, host],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), `glob-net-${key}-`));
      dirs.push(dir);
      const token = await stack.http.post('/api/nodes/join-tokens').set(provider.auth).expect(201);
      const agent = startAgent(
        ['--api', api, '--join-token', token.body.join_token, '--name', `net-node-${key}`, '--data-dir', dir, ...TEST_AGENT_ARGS],
        on,
      );
      await agent.waitFor(new RegExp(`Paired as net-node-${key} `), 90_000);
      const stored = JSON.parse(await readFile(join(dir, 'credential.json'), 'utf8')) as { node_id: string; api: string };
      agents[key] = { agent, nodeId: stored.node_id, api: stored.api };
    }
  }, 180_000);

  afterAll(async () => {
    for (const { agent } of Object.values(agents)) {
      if (agent.child.exitCode === null && agent.child.signalCode === null) {
        agent.child.kill('SIGKILL');
        await agent.exited;
      }
    }
    host?.remove();
    await stack.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('both nodes pair and come online; node B reached the API over its veth link only', async () => {
    if (host) {
      expect(agents.b.api).toBe(`http://${host.gateway}:${new URL(stack.url).port}`);
      // The namespace has no route to this host's loopback: the API's loopback address is unreachable from it.
      const probe = host.spawn(process.execPath, ['-e', `fetch('${stack.url}/api/health').then(()=>process.exit(0),()=>process.exit(3))`]);
      expect(await new Promise((r) => probe.once('exit', r))).toBe(3);
    }
    const deadline = Date.now() + 20_000;
    for (;;) {
      const nodes = (await stack.http.get('/api/nodes').set(provider.auth).expect(200)).body.nodes as Array<{
        id: string;
        status: string;
        models: string[];
      }>;
      const online = nodes.filter((n) => n.status === 'online' && n.models.includes(MODEL)).map((n) => n.id);
      if (online.includes(agents.a.nodeId) && online.includes(agents.b.nodeId)) break;
      if (Date.now() > deadline) throw new Error(`nodes not online: ${JSON.stringify(nodes)}\n${agents.b.agent.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const models = await stack.http.get('/api/inference/models').set(requester.auth).expect(200);
    expect(models.body.models.find((m: { id: string }) => m.id === MODEL)).toMatchObject({ status: 'available', nodes: 2 });
  }, 30_000);

  it('a burst of replies is shared by both nodes; each task names the node that served it and its owner’s reward is pending', async () => {
    const ids = Array.from({ length: 8 }, streamId);
    const replies = await Promise.all(
      ids.map(async (id) =>
        readSse(
          await startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt: 'Tell me about the network', params: { max_tokens: 120 } }),
        ),
      ),
    );
    for (const events of replies) expect(events.at(-1)!.data).toMatchObject({ type: 'done', success: true });
    const servedBy = await Promise.all(ids.map(async (id) => (await taskOf(stack, id)).node_id as string));
    expect(new Set(servedBy)).toEqual(new Set([agents.a.nodeId, agents.b.nodeId]));
    const rewards = (await stack.db.query(
      `SELECT task_id, node_id, owner_id FROM node_rewards WHERE task_id IN (SELECT id FROM inference_tasks WHERE stream_id = ANY($1))`,
      [ids],
    )) as Array<{ node_id: string; owner_id: string }>;
    expect(rewards).toHaveLength(ids.length);
    for (const r of rewards) expect(r.owner_id).toBe(provider.id);
  }, 90_000);

  it('an owner chatting with their own nodes pays for the reply but earns no reward for it', async () => {
    const id = streamId();
    const events = await readSse(
      await startReply(stack, provider.auth, { streamId: id, modelId: MODEL, prompt: 'Hello', params: { max_tokens: 30 } }),
    );
    expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
    const t = await taskOf(stack, id);
    expect([agents.a.nodeId, agents.b.nodeId]).toContain(t.node_id);
    expect(Number(t.charged_units)).toBeGreaterThan(0);
    expect(await stack.db.query(`SELECT 1 FROM node_rewards WHERE task_id = $1`, [t.id])).toEqual([]);
  }, 60_000);

  it('kill -9 of the node mid-reply: the reply ends with a clean error within the lock time, nothing is charged, the ledger reconciles', async () => {
    const id = streamId();
    const res = await startReply(stack, requester.auth, {
      streamId: id,
      modelId: MODEL,
      prompt: 'A long answer please',
      params: { max_tokens: 4000, temperature: 0 },
    });
    let killedAt = 0;
    let killed: string | undefined;
    const events = await readSse(
      res,
      atFirstToken(() => {
        void taskOf(stack, id).then((t) => {
          const victim = Object.values(agents).find((x) => x.nodeId === t.node_id)!;
          killed = victim.nodeId;
          killedAt = Date.now();
          victim.agent.child.kill('SIGKILL');
        });
      }),
    );
    const endedAfter = Date.now() - killedAt;
    expect(killed).toMatch(/^[0-9a-f-]{36}$/);
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    // The lock lapses after JOB_LOCK_MS; the stalled check and the reaper each run every second.
    expect(endedAfter).toBeLessThan(JOB_LOCK_MS + 5000);
    const t = await taskOf(stack, id);
    // Failed on the node that died, or on the one that found its half-sent reply and ended it.
    expect(t.status).toBe('failed');
    expect([agents.a.nodeId, agents.b.nodeId]).toContain(t.node_id);
    expect(Number(t.charged_units)).toBe(0);
    const balance = await stack.http.get(`/api/wallet/${requester.id}/balance`).set(requester.auth).expect(200);
    expect(balance.body.pending_balance).toBe(0);
    expect(await stack.db.query(`SELECT 1 FROM node_rewards WHERE task_id = $1`, [t.id])).toEqual([]);
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    // The operator's check, as an operator runs it.
    const check = await ledgerCheckCli(stack);
    expect(check.code).toBe(0);
    expect(check.output).toMatch(/Ledger reconciles/);
  }, 90_000);

  it('revoking a node mid-reply: the reply ends cleanly at no charge, and the agent, answered 401, stops with exit code 2', async () => {
    const survivor = Object.values(agents).find((x) => x.agent.child.exitCode === null && x.agent.child.signalCode === null)!;
    const id = streamId();
    const res = await startReply(stack, requester.auth, {
      streamId: id,
      modelId: MODEL,
      prompt: 'A long answer please',
      params: { max_tokens: 4000, temperature: 0 },
    });
    const events = await readSse(
      res,
      atFirstToken(() => {
        void stack.http
          .delete(`/api/nodes/${survivor.nodeId}`)
          .set(provider.auth)
          .then((r) => expect(r.status).toBe(204));
      }),
    );
    // Part of the reply was out: it cannot move to another node, so it ends with the killed-worker error.
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    expect(await survivor.agent.exited).toBe(2);
    expect(survivor.agent.output()).toContain('This node was revoked by its owner; pair it again with a new join token.');
    const t = await taskOf(stack, id);
    expect(t.status).toBe('failed');
    expect(Number(t.charged_units)).toBe(0);
    const nodes = (await stack.http.get('/api/nodes').set(provider.auth).expect(200)).body.nodes as Array<{ id: string }>;
    expect(nodes.map((n) => n.id)).not.toContain(survivor.nodeId);
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
  }, 90_000);
});
