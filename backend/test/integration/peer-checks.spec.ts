import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeSteps, encodeSteps } from '@glob/engine/commitment';
import { VERIFY_TOP } from '@glob/engine/verification';
import { buildVocabulary } from '../../scripts/tiny-model/vocabulary';
import { FAILED_PROOF, FAILED_REPLAY, FAILED_SPOT_CHECK } from '../../src/modules/trust/spot-checks.service';
import type { AppConfig } from '../../src/config/config';
import { APP_CONFIG } from '../../src/config/config.module';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { killAgent, pairAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { committedReply, modelsNumbersFor, modelsProof, modelsRecomputation, ScriptedNode, type NodeJob } from '../support/scripted-node';
import { newUser } from '../support/users';
import { atFirstToken, readSse, startReply } from '../support/worker';

const MODEL = 'glob-tiny-chat';
const EOG = buildVocabulary(0).eotId;
let seq = 0;
const streamId = () => `s_pc_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;
type CheckRow = { id: string; status: string; refund_transaction_id: string | null };

/**
 * Checks by other owners' nodes where no trusted generator serves a model (no in-cluster worker here): the project's
 * agent and honest scripted nodes (each from its own network) verify each other's work by recomputation; a node whose
 * reply is not the model's is failed by two peers that agree, and a peer that vouches for it, or that recomputes
 * falsely, is outvoted by two others.
 */
describe('peer checks: other owners’ nodes verify a node’s work by recomputation when no trusted generator serves the model', () => {
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
  const verificationRewards = async (checkId: string) =>
    (
      (await stack.db.query(
        `SELECT v.node_id, v.units, v.paid_at FROM verification_rewards v JOIN peer_replays r ON r.id = v.replay_id WHERE r.spot_check_id = $1`,
        [checkId],
      )) as Array<{ node_id: string; units: string; paid_at: Date | null }>
    ).map((r) => ({ node_id: r.node_id, units: Number(r.units), paid: r.paid_at !== null }));
  const nodeOf = async (owner: User, id: string) =>
    (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes.find((n: { id: string }) => n.id === id) as {
      status: string;
      paused_reason: string | null;
      proven_models: unknown[];
    };
  const owner = (name: string) => newUser(stack, `${name}-${Date.now().toString(36)}`);

  /** Has `nodes` stay live and answer what they are given honestly (replies with the model's, checks with its numbers), while `work` runs. */
  async function serving<T>(nodes: ScriptedNode[], work: Promise<T>): Promise<T> {
    let over = false;
    const result = work.finally(() => (over = true));
    const loops = nodes.map(async (node) => {
      while (!over) {
        await node.heartbeat([MODEL]);
        const job = await node.claim(1, true);
        if (job) await answer(node, job);
      }
    });
    try {
      return await result;
    } finally {
      await Promise.all(loops);
    }
  }
  const answer = async (node: ScriptedNode, job: NodeJob) => {
    if (job.kind === 'verify') return node.recomputation(job.job_id, await modelsRecomputation(job));
    const r = await committedReply(job);
    return node.finishCommitted(job.job_id, r.text, r.steps, r.stopReason);
  };
  /** What a node without the model's output sends: its own text, with the model's true numbers for its tokens. */
  const lie = async (job: NodeJob, text: string) => {
    const { tokens } = await modelsNumbersFor(job, [], [text]);
    const { steps } = await modelsNumbersFor(job, [[...tokens[0]!, EOG]]);
    return { text, steps: steps[0]! };
  };

  const reply = (prompt: string) => {
    const id = streamId();
    const events = startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt, params: { max_tokens: 32, temperature: 0.8 } }).then(
      (res) => readSse(res),
    );
    return { id, events };
  };

  beforeAll(async () => {
    // A stopped reply's commitment (a pass over every token the agent had generated) is due within 30 s; on a machine
    // running three test stages at once the agent can take longer, so the test gives it 120 s.
    stack = await startStack({ env: { SPOT_CHECK_FIRST: '3', SPOT_CHECK_PERCENT: '0', HEARTBEAT_SECONDS: '10', NODE_STOP_COMMIT_SECONDS: '120' } });
    requester = await newUser(stack, 'peer-requester');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-peer-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('the first node of a model is proven by its file; the next by the project’s agent recomputing its challenge', async () => {
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

    // The second owner's node is proven once the agent (the only other owner's node) recomputed its challenge.
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

  it('the agent’s replies are verified by another owner’s node, and pass', async () => {
    // The second node asks for work (and finds none): a node that asks is one that can verify.
    expect(await honest[0]!.claim(1, true)).toBeNull();
    const { events } = reply('Tell me about the sea');
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    const [check] = await serving([honest[0]!], judged(agentNodeId, 1));
    expect(check!.status).toBe('passed');
    expect(await replayers(check!.id)).toEqual([honest[0]!.id]);

    // A long reply its requester stops at the first token: the agent, told to stop at its next call, commits then to
    // every token it had generated (more than was relayed), and that passes too.
    const id = streamId();
    const stopped = await readSse(
      await startReply(stack, requester.auth, {
        streamId: id,
        modelId: MODEL,
        prompt: 'A long answer please',
        params: { max_tokens: 1500, temperature: 0 },
      }),
      atFirstToken(
        () =>
          void stack.http
            .post(`/api/inference/stream/${id}/stop`)
            .set(requester.auth)
            .then((r) => expect(r.status).toBe(200)),
      ),
    );
    expect(stopped.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    expect(stopped.at(-1)!.data.usage!.completion_tokens).toBeLessThan(1500);
    const checks = await serving([honest[0]!], judged(agentNodeId, 2));
    expect(checks.map((c) => c.status)).toEqual(['passed', 'passed']);
    expect(((await stack.db.query(`SELECT paused FROM nodes WHERE id = $1`, [agentNodeId])) as Array<{ paused: boolean }>)[0]!.paused).toBe(false);
    // Its owner takes it off the network (a stopped agent would count as live for a while, and be given checks).
    agent.child.kill('SIGINT');
    await agent.exited;
    await stack.http.delete(`/api/nodes/${agentNodeId}`).set(agentOwner.auth).expect(204);
  }, 120_000);

  it('a reply that is not the model’s is failed by two peers that agree: suspended, its rewards withheld, its requester refunded', async () => {
    // Two more owners' honest nodes, proven by the others' recomputations.
    for (const name of ['third', 'fourth'])
      honest.push(await serving(honest, ScriptedNode.pair(stack, await owner(name), { models: [MODEL], write: modelsProof })));
    const liarOwner = await owner('liar');
    const liar = await serving(honest, ScriptedNode.pair(stack, liarOwner, { models: [MODEL], write: modelsProof }));
    const balance = async () => (await stack.http.get(`/api/wallet/${requester.id}`).set(requester.auth).expect(200)).body.balance as number;
    const before = await balance();

    const { events } = reply('What is a river?');
    const job = (await liar.claim())!;
    expect(job.job_id).not.toMatch(/^chk_/);
    const made = await lie(job, ' A river is a thing this node made up, and the model never wrote it.');
    await liar.finishCommitted(job.job_id, made.text, made.steps);
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    expect(await balance()).toBeLessThan(before);

    const [check] = await serving(honest, judged(liar.id, 1));
    expect(check!.status).toBe('failed');
    // The first peer's verdict failed it; a second opinion agreed.
    const deciders = await replayers(check!.id);
    expect(deciders).toHaveLength(2);
    expect(await nodeOf(liarOwner, liar.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_SPOT_CHECK });
    expect(check!.refund_transaction_id).not.toBeNull();
    expect(await balance()).toBe(before);

    // Both peers earn a verification reward from the platform's share of the reply's charge (the requester's refund
    // is whole all the same), paid at settlement.
    const rewards = await verificationRewards(check!.id);
    expect(rewards.map((r) => r.node_id).sort()).toEqual([...deciders].sort());
    const charged = Number(
      (
        (await stack.db.query(`SELECT t.charged_units FROM spot_checks c JOIN inference_tasks t ON t.id = c.task_id WHERE c.id = $1`, [
          check!.id,
        ])) as Array<{
          charged_units: string;
        }>
      )[0]!.charged_units,
    );
    expect(rewards.every((r) => r.units > 0)).toBe(true);
    const { sharePercent } = stack.app.get<AppConfig>(APP_CONFIG).rewards;
    expect(rewards.reduce((sum, r) => sum + r.units, 0)).toBeLessThanOrEqual(charged - Math.floor((charged * sharePercent) / 100));
    await stack.app.get(RewardsService).settle(new Date(Date.now() + 25 * 3_600_000));
    // Each is an earning of its peer's owner, from the platform's spending account.
    const payments = (await stack.db.query(
      `SELECT v.units, e.amount, n.owner_id = a.user_id AS to_owner
       FROM verification_rewards v JOIN peer_replays r ON r.id = v.replay_id JOIN nodes n ON n.id = v.node_id
       JOIN ledger_entries e ON e.transaction_id = v.transaction_id JOIN ledger_accounts a ON a.id = e.account_id
       WHERE r.spot_check_id = $1 AND e.amount > 0`,
      [check!.id],
    )) as Array<{ units: string; amount: string; to_owner: boolean }>;
    expect(payments).toHaveLength(2);
    for (const p of payments) expect(p).toMatchObject({ amount: p.units, to_owner: true });
  }, 240_000);

  it('a peer that vouches for a lying node is caught by the audit of its verification: both are suspended', async () => {
    const [, ...others] = honest;
    const stampOwner = await owner('rubber-stamp');
    const stamp = await serving(honest, ScriptedNode.pair(stack, stampOwner, { models: [MODEL], write: modelsProof }));
    const liarOwner = await owner('liar-2');
    const liar = await serving(honest, ScriptedNode.pair(stack, liarOwner, { models: [MODEL], write: modelsProof }));
    const { events } = reply('Name a mountain');
    const job = (await liar.claim())!;
    const made = await lie(job, ' Mount Nothing, which this node invented.');
    await liar.finishCommitted(job.job_id, made.text, made.steps);
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });

    // The rubber stamp asks for work first and gets the check: it echoes the liar's own numbers back as its recomputation.
    const check = (await stamp.claim(5, true))!;
    expect(check).toMatchObject({ kind: 'verify', job_id: expect.stringMatching(/^chk_/), top: VERIFY_TOP });
    expect(check.tokens).toEqual(made.steps.map((s) => s.token));
    await stamp.recomputation(check.job_id, encodeSteps(made.steps, VERIFY_TOP));
    // Its own verifications are audited during its probation: two honest peers recompute the same tokens and agree.
    const [verdict] = await serving(others, judged(liar.id, 1));
    expect(verdict!.status).toBe('failed');
    expect((await replayers(verdict!.id))[0]).toBe(stamp.id);
    expect(await replayers(verdict!.id)).toHaveLength(3);
    expect(await nodeOf(liarOwner, liar.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_SPOT_CHECK });
    expect(await nodeOf(stampOwner, stamp.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_REPLAY });
    // The two that outvoted it are paid for the check; the rubber stamp is not.
    expect((await verificationRewards(verdict!.id)).map((r) => r.node_id).sort()).toEqual((await replayers(verdict!.id)).slice(1).sort());
  }, 240_000);

  it('a peer that recomputes falsely is outvoted and suspended; the honest node it checked passes', async () => {
    const falseOwner = await owner('false-peer');
    const falsePeer = await serving(honest, ScriptedNode.pair(stack, falseOwner, { models: [MODEL], write: modelsProof }));
    const [served, ...others] = honest as [ScriptedNode, ...ScriptedNode[]];
    const { events } = reply('Name a lake');
    const job = (await served.claim())!;
    await answer(served, job);
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });

    // The false peer gets the check and shifts the model's numbers, so that the honest reply would look forged.
    const check = (await falsePeer.claim(5, true))!;
    const steps = decodeSteps(await modelsRecomputation(check), VERIFY_TOP)!;
    const forged = steps.map((s) => ({ ...s, logprob: s.logprob - 1, top: s.top.map(([id, lp]) => [id, lp - 1] as [number, number]) }));
    await falsePeer.recomputation(check.job_id, encodeSteps(forged, VERIFY_TOP));
    const [verdict] = await serving(others, judged(served.id, 1));
    expect(verdict!.status).toBe('passed');
    expect(await replayers(verdict!.id)).toHaveLength(3);
    expect(await nodeOf(falseOwner, falsePeer.id)).toMatchObject({ status: 'paused', paused_reason: FAILED_REPLAY });
    expect(((await stack.db.query(`SELECT paused FROM nodes WHERE id = $1`, [served.id])) as Array<{ paused: boolean }>)[0]!.paused).toBe(false);
  }, 240_000);

  it('a check no other owner’s node takes is given up: inconclusive, and nobody is penalized', async () => {
    const [served] = honest as [ScriptedNode];
    const before = (await checksOf(served.id)).length;
    const { events } = reply('Name a sea');
    const job = (await served.claim())!;
    const made = await lie(job, ' Whatever this node says, nobody is there to check it.');
    await served.finishCommitted(job.job_id, made.text, made.steps);
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    const checks = await judged(served.id, before + 1);
    expect(checks.at(-1)!.status).toBe('inconclusive');
    expect(((await stack.db.query(`SELECT paused FROM nodes WHERE id = $1`, [served.id])) as Array<{ paused: boolean }>)[0]!.paused).toBe(false);
  }, 60_000);

  it('a challenge answered without the model’s commitment fails at once, and the node never serves the model', async () => {
    const pretenderOwner = await owner('pretender');
    const pretender = await ScriptedNode.pair(stack, pretenderOwner, { models: [], write: async () => 'Words the model did not write at all.' });
    const failed = await serving(
      honest,
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

  it('a node of the checked node’s network never verifies its work', async () => {
    const [served] = honest as [ScriptedNode];
    const neighbourOwner = await owner('neighbour');
    const neighbour = await serving(honest, ScriptedNode.pair(stack, neighbourOwner, { models: [MODEL], write: modelsProof }));
    await stack.db.query(`UPDATE nodes SET origin = (SELECT origin FROM nodes WHERE id = $1) WHERE id = $2`, [served.id, neighbour.id]);
    const before = (await checksOf(served.id)).length;
    const { events } = reply('Name a forest');
    await answer(served, (await served.claim())!);
    expect((await events).at(-1)!.data).toMatchObject({ type: 'done' });
    // The neighbour asks first and is given nothing; another network's peer takes the check.
    expect(await neighbour.claim(1, true)).toBeNull();
    const checks = await serving(honest.slice(1), judged(served.id, before + 1));
    expect(await replayers(checks.at(-1)!.id)).not.toContain(neighbour.id);
  }, 120_000);
});
