import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, TEST_AGENT_ARGS, untilAvailable, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { createNetnsHost, netnsUnavailable, type NetnsHost } from '../support/netns';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** Replies the agent serves, every one verified; VERIFY_REPLIES=500 for the long run (bench/README). */
const REPLIES = Number(process.env.VERIFY_REPLIES ?? 48);
const PROMPTS = ['Tell me about the river.', 'Hello! How are you today?', 'Write a story about a city', 'What is a token?', 'Name a mountain'];

/**
 * No false positives: the project's own agent, on a host of its own (a network namespace joined by a veth pair), serves
 * replies at the default sampling and at others, and a verify-only worker verifies every one of them by recomputation
 * (a probation longer than the run): all pass, and the agent is never suspended.
 */
describe('verification of the real agent over the network', () => {
  const noNetns = netnsUnavailable();
  let host: NetnsHost | undefined;
  let stack: TestStack;
  let worker: WorkerProcess;
  let agent: AgentProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    // A long run streams more events calls than one node's default budget (1,200 a minute) allows.
    stack = await startStack({
      host: noNetns ? '127.0.0.1' : '0.0.0.0',
      env: { SPOT_CHECK_FIRST: '1000', WELCOME_BONUS_GLOB: '5000', ...(REPLIES > 100 ? { NODE_RATE_LIMIT: '100000' } : {}) },
    });
    worker = await startWorker(stack, { WORKER_VERIFY_ONLY: 'true' });
    if (noNetns) console.warn(`The agent runs on loopback, not on a host of its own: ${noNetns}`);
    else host = createNetnsHost();
    dataDir = await mkdtemp(join(tmpdir(), 'glob-verified-net-'));
  }, 120_000);
  afterAll(async () => {
    if (agent && agent.child.exitCode === null && agent.child.signalCode === null) {
      agent.child.kill('SIGKILL');
      await agent.exited;
    }
    await worker?.stop();
    host?.remove();
    await closeChecked(stack, dataDir);
  }, 60_000);

  it(`${REPLIES} replies at four samplings, every one verified: none fails`, async () => {
    const provider = await newUser(stack, 'verified-provider');
    const requester = await newUser(stack, 'verified-asker');
    const api = host ? `http://${host.gateway}:${new URL(stack.url).port}` : stack.url;
    const token = await stack.http.post('/api/nodes/join-tokens').set(provider.auth).expect(201);
    agent = startAgent(
      ['--api', api, '--join-token', token.body.join_token, '--name', 'verified-box', '--data-dir', dataDir, ...TEST_AGENT_ARGS],
      host,
    );
    await agent.waitFor(/Answered the platform's challenge for glob-tiny-chat/, 90_000);
    const { node_id: nodeId } = JSON.parse(await readFile(join(dataDir, 'credential.json'), 'utf8')) as { node_id: string };
    await untilAvailable(stack, requester, MODEL, agent);
    // The default sampling (no params), then greedy, hot and narrow.
    const samplings = [{}, { temperature: 0 }, { temperature: 1.2, top_p: 1 }, { temperature: 0.7, top_p: 0.5 }];
    for (let i = 0; i < REPLIES; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async (j) => {
          const res = await startReply(stack, requester.auth, {
            streamId: `s_vnet_${i + j}_${Date.now().toString(36)}`,
            modelId: MODEL,
            prompt: PROMPTS[(i + j) % PROMPTS.length],
            params: { max_tokens: 24 + ((i + j) % 3) * 20, ...samplings[j] },
          });
          expect((await readSse(res)).at(-1)!.data).toMatchObject({ type: 'done' });
        }),
      );
    }
    for (const deadline = Date.now() + 60_000; ;) {
      const rows = (await stack.db.query(`SELECT status, count(*)::int AS n FROM spot_checks WHERE node_id = $1 GROUP BY status`, [
        nodeId,
      ])) as Array<{
        status: string;
        n: number;
      }>;
      const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
      if ((by.passed ?? 0) + (by.failed ?? 0) >= REPLIES) {
        expect(by).toEqual({ passed: REPLIES });
        break;
      }
      if (Date.now() > deadline) throw new Error(`verifications not all judged: ${JSON.stringify(by)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const [node] = (await stack.db.query(`SELECT paused, suspended_at FROM nodes WHERE id = $1`, [nodeId])) as Array<{
      paused: boolean;
      suspended_at: Date | null;
    }>;
    expect(node).toEqual({ paused: false, suspended_at: null });
  }, 900_000);
});
