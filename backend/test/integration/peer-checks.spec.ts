import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAILED_PROOF, FAILED_REPLAY, FAILED_SPOT_CHECK } from '../../src/modules/trust/spot-checks.service';
import { killAgent, pairAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { modelsAnswer, modelsProof, ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startReply } from '../support/worker';

const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = () => `s_pc_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;
type CheckRow = { id: string; status: string; refund_transaction_id: string | null };

/**
 * Checks by other owners' nodes where no trusted generator serves a model (no in-cluster worker here): the project's
 * agent and honest scripted nodes replay each other's work; a node that alters its replies, one that answers a
 * challenge with text the model did not write, and a peer that replays falsely are each outvoted two to one.
 */
describe('peer checks: other owners’ nodes replay a node’s work when no trusted generator serves the model', () => {
  let stack: TestStack;
  let requester: User;
  let agent: AgentProcess;
  let agentNodeId: string;
  let agentOwner: User;
  let dataDir: string;
  const honest: ScriptedNode[] = [];

  const until = async <T>(what: string, read: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
    for (const deadline = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
      const value = await read();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen in time`);
    }
  };
  const checksOf = async (nodeId: string) =>
    (await stack.db.query(`SELECT id, status, refund_transaction_id FROM spot_checks WHERE node_id = $1 ORDER BY created_at`, [
      nodeId,
    ])) as CheckRow[];
  const judged = (nodeId: string, count: number) =>
    until(`${count} judged check(s) of ${nodeId}`, async () => {
      const rows = await checksOf(nodeId);
      return rows.length >= count && rows.every((r) => r.status !== 'pending') ? rows : undefined;
    });
  const replayers = async (checkId: string) =>
    (
      (await stack.db.query(`SELECT node_id FROM peer_replays WHERE spot_check_id = $1 ORDER BY created_at`, [checkId])) as Array<{ node_id: string }>
    ).map((r) => r.node_id);
  const nodeOf = async (owner: User, id: string) =>
    (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes.find((n: { id: string }) => n.id === id) as {
      status: string;
      paused_reason: string | null;
      proven_models: unknown[];
    };
  const owner = (name: string) => newUser(stack, `${name}-${Date.now().toString(36)}`);

  /** Has `nodes` stay live and answer whatever they are given with the model's own output, while `work` runs. */
  async function serving<T>(nodes: Array<{ node: ScriptedNode; write?: (job: never) => Promise<string> }>, work: Promise<T>): Promise<T> {
    let over = false;
    const result = work.finally(() => (over = true));
    const loops = nodes.map(async ({ node, write }) => {
      while (!over) {
        await node.heartbeat([MODEL]);
        const job = await node.claim(1);
        if (job) await node.finish(job.job_id, await (write ?? modelsAnswer)(job as never));
      }
    });
    try {
      return await result;
    } finally {
      await Promise.all(loops);
    }
  }

  const reply = (prompt: string) => {
    const id = streamId();
    const events = startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt, params: { max_tokens: 32, temperature: 0.8 } }).then(
      (res) => readSse(res),
    );
    return { id, events };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { SPOT_CHECK_FIRST: '3', SPOT_CHECK_PERCENT: '0', HEARTBEAT_SECONDS: '10' } });
    requester = await newUser(stack, 'peer-requester');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-peer-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('the first node of a model is proven by its file; the next by the project’s agent replaying its challenge', async () => {
    agentOwner = await owner('agent-owner');
    agent = await pairAgent(stack, agentOwner, 'peer-agent', dataDir);
    await agent.waitFor(/Answered the platform's challenge for glob-tiny-chat/);
    agentNodeId = ((await stack.db.query(`SELECT id FROM nodes WHERE name = 'peer-agent'`)) as Array<{ id: string }>)[0]!.id;
    const generation = async (nodeId: string) =>
      (
        (await stack.db.query(`SELECT generation FROM model_proofs WHERE node_id = $1 AND status = 'proven'`, [nodeId])) as Array<{
          generation: string;
        }>
      )[0]?.generation;
    expect(await until('the agent’s proof', () => generation(agentNodeId))).toBe('unchecked');

    // The second owner's node is proven once the agent (the only other owner's node) replayed its challenge.
    const secondOwner = await owner('second');
    const second = await ScriptedNode.pair(stack, secondOwner, { models: [MODEL], write: modelsProof });
    honest.push(second);
    expect(await generation(second.id)).toBe('checked');
    const [replay] = (await stack.db.query(
      `SELECT r.node_id, r.status FROM peer_replays r JOIN model_proofs p ON p.id = r.proof_id WHERE p.node_id = $1`,
      [second.id],
    )) as Array<{ node_id: string; status: string }>;
    expect(replay).toEqual({ node_id: agentNodeId, status: 'done' });
  }, 120_000);

  it('the agent’s replies are replayed by another owner’s node, and pass', async () => {
    // The second node asks for work (and finds none): a node that asks is one that can replay.
    expect(await honest[0]!.claim(1)).toBeNull();
    const { events } = reply('Tell me about the sea');
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    const [check] = await serving([{ node: honest[0]! }], judged(agentNodeId, 1));
    expect(check!.status).toBe('passed');
    expect(await replayers(check!.id)).toEqual([honest[0]!.id]);
    expect(await replayers(check!.id)).not.toContain(agentNodeId);
    expect(((await stack.db.query(`SELECT paused FROM nodes WHERE id = $1`, [agentNodeId])) as Array<{ paused: boolean }>)[0]!.paused).toBe(false);
    // Its owner takes it off the network (a stopped agent would count as live for a while, and be given replays).
    agent.child.kill('SIGINT');
    await agent.exited;
    await stack.http.delete(`/api/nodes/${agentNodeId}`).set(agentOwner.auth).expect(204);
  }, 120_000);

  it('a node relaying altered text is outvoted two to one: paused, its rewards withheld, its requester refunded', async () => {
    // A third owner's honest node, proven by a replay of the second's.
    const thirdOwner = await owner('third');
    const third = await serving([{ node: honest[0]! }], ScriptedNode.pair(stack, thirdOwner, { models: [MODEL], write: modelsProof }));
    honest.push(third);
    const liarOwner = await owner('liar');
    const liar = await serving(
      honest.map((node) => ({ node })),
      ScriptedNode.pair(stack, liarOwner, { models: [MODEL], write: modelsProof }),
    );
    const balance = async () => (await stack.http.get(`/api/wallet/${requester.id}`).set(requester.auth).expect(200)).body.balance as number;
    const before = await balance();

    const { events } = reply('What is a river?');
    const job = (await liar.claim())!;
    expect(job.job_id).not.toMatch(/^chk_/);
    await liar.finish(job.job_id, 'A river is a thing this node made up, and the model never wrote it.');
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    expect(await balance()).toBeLessThan(before);

    const [check] = await serving(
      honest.map((node) => ({ node })),
      judged(liar.id, 1),
    );
    expect(check!.status).toBe('failed');
    // The first honest peer disagreed with it, the other broke the tie.
    expect((await replayers(check!.id)).sort()).toEqual(honest.map((n) => n.id).sort());
    expect(await nodeOf(liarOwner, liar.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_SPOT_CHECK });
    expect(check!.refund_transaction_id).not.toBeNull();
    expect(await balance()).toBe(before);
  }, 180_000);

  it('a peer that replays falsely is outvoted and paused; the node it checked passes', async () => {
    const falseOwner = await owner('false-peer');
    const falsePeer = await serving(
      honest.map((node) => ({ node })),
      ScriptedNode.pair(stack, falseOwner, { models: [MODEL], write: modelsProof }),
    );
    const [served, tieBreaker] = honest as [ScriptedNode, ScriptedNode];
    const { events } = reply('Name a mountain');
    const job = (await served.claim())!;
    await served.finish(job.job_id, await modelsAnswer(job as never));
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });

    // The false peer asks for work first and gets the replay; it answers with text the model did not write.
    const replay = (await falsePeer.claim())!;
    expect(replay.job_id).toMatch(/^chk_/);
    expect(replay.params).toMatchObject({ seed: expect.any(Number), max_tokens: expect.any(Number) });
    await falsePeer.finish(replay.job_id, 'Not what the model wrote, not at all, from a peer that lies about others.');
    const [check] = await serving([{ node: tieBreaker }], judged(served.id, 1));
    expect(check!.status).toBe('passed');
    expect(await replayers(check!.id)).toEqual([falsePeer.id, tieBreaker.id]);
    expect(await nodeOf(falseOwner, falsePeer.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_REPLAY });
  }, 180_000);

  it('a replay no other owner’s node takes is given up: the check is inconclusive and nobody is penalized', async () => {
    const [served] = honest as [ScriptedNode];
    const before = (await checksOf(served.id)).length;
    const { events } = reply('Name a lake');
    const job = (await served.claim())!;
    await served.finish(job.job_id, 'Whatever this node says, nobody is there to replay it.');
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    const checks = await judged(served.id, before + 1);
    expect(checks.at(-1)!.status).toBe('inconclusive');
    expect(((await stack.db.query(`SELECT paused FROM nodes WHERE id = $1`, [served.id])) as Array<{ paused: boolean }>)[0]!.paused).toBe(false);
  }, 60_000);

  it('a node whose challenge answer is not the model’s output is outvoted and never serves the model', async () => {
    const pretenderOwner = await owner('pretender');
    const pretender = await ScriptedNode.pair(stack, pretenderOwner, { models: [], write: async () => 'Words the model did not write at all.' });
    const failed = await serving(
      honest.map((node) => ({ node })),
      (async () => {
        await pretender.heartbeat([MODEL]);
        return until('the pretender’s verdict', async () => {
          await pretender.heartbeat([MODEL]);
          const rows = (await stack.db.query(`SELECT status FROM model_proofs WHERE node_id = $1 AND status = 'failed'`, [
            pretender.id,
          ])) as unknown[];
          return rows.length ? rows : undefined;
        });
      })(),
    );
    expect(failed).toHaveLength(1);
    expect(await nodeOf(pretenderOwner, pretender.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_PROOF, proven_models: [] });
    expect(await pretender.claim(1)).toBeNull();
  }, 180_000);
});
