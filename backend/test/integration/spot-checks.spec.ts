import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { REDIS } from '../../src/redis/redis.module';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { FAILED_PROOF, FAILED_SPOT_CHECK, verifierKey } from '../../src/modules/trust/spot-checks.service';
import { killAgent, pairAgent, untilAvailable, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { modelsProof, ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, taskOf, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = () => `s_sc_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/**
 * Spot checks with real parts: a verify-only in-cluster worker (llama.cpp on the tiny model, serving no replies) is
 * the trusted generator; the project's own agent, a separate process, passes every check it is given; a scripted
 * node that relays altered text fails, is paused, and its unpaid rewards are withheld.
 */
describe('spot checks: a trusted generator replays remote nodes’ replies', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let owner: User;
  let requester: User;
  let agent: AgentProcess | undefined;
  let dataDir: string;

  const checksOf = async (nodeId: string, count: number) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const rows = (await stack.db.query(`SELECT status, matched_tokens, node_tokens FROM spot_checks WHERE node_id = $1 ORDER BY created_at`, [
        nodeId,
      ])) as Array<{ status: string; matched_tokens: number | null; node_tokens: number | null }>;
      if (rows.length >= count && rows.every((r) => r.status !== 'pending')) return rows;
      if (Date.now() > deadline) throw new Error(`spot checks of ${nodeId} not judged: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const reply = async (prompt: string) => {
    const id = streamId();
    const res = await startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt, params: { max_tokens: 48, temperature: 0.8 } });
    return { id, events: await readSse(res) };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { SPOT_CHECK_FIRST: '2', SPOT_CHECK_PERCENT: '0', HEARTBEAT_SECONDS: '2' } });
    worker = await startWorker(stack, { WORKER_VERIFY_ONLY: 'true' });
    owner = await newUser(stack, 'checked-owner');
    requester = await newUser(stack, 'checked-requester');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-spot-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await worker?.stop();
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('a verify-only worker serves no replies: the model is offered only once a node serves it', async () => {
    const models = (await stack.http.get('/api/inference/models').set(requester.auth).expect(200)).body.models as Array<{
      id: string;
      status: string;
    }>;
    expect(models.find((m) => m.id === MODEL)!.status).toBe('unavailable');
  });

  it('the project’s agent passes the checks of its first replies, sampled with the seed the platform gave it', async () => {
    agent = await pairAgent(stack, owner, 'honest-box', dataDir);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    const nodeId = ((await stack.db.query(`SELECT id FROM nodes WHERE name = 'honest-box'`)) as Array<{ id: string }>)[0]!.id;
    // Its model is offered once it answered the platform's challenge for it.
    await agent.waitFor(/Answered the platform's challenge for glob-tiny-chat/);
    await untilAvailable(stack, requester, MODEL, agent);
    for (const prompt of ['Tell me about the sea', 'What is a river?']) {
      const { events } = await reply(prompt);
      expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
    }
    const checks = await checksOf(nodeId, 2);
    expect(checks.map((c) => c.status)).toEqual(['passed', 'passed']);
    for (const c of checks) expect(c.matched_tokens).toBeGreaterThanOrEqual(Math.min(16, c.node_tokens!));
    const node = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === nodeId);
    expect(node).toMatchObject({ status: 'online', paused_reason: null, proven_models: [{ model_id: MODEL }] });
    // Its challenge's generation was judged by the trusted generator, not taken on trust.
    const [proof] = (await stack.db.query(`SELECT status, generation FROM model_proofs WHERE node_id = $1`, [nodeId])) as Array<{
      status: string;
      generation: string;
    }>;
    expect(proof).toEqual({ status: 'proven', generation: 'checked' });

    // Its first two passed: with SPOT_CHECK_PERCENT 0, the next reply is not checked.
    await reply('One more please');
    await new Promise((r) => setTimeout(r, 500));
    expect(((await stack.db.query(`SELECT count(*)::int AS n FROM spot_checks WHERE node_id = $1`, [nodeId])) as Array<{ n: number }>)[0]!.n).toBe(2);
    // Paused and resumed by its owner, it is a node the platform has not seen run since: its probation starts over.
    await stack.http.patch(`/api/nodes/${nodeId}`).set(owner.auth).send({ paused: true }).expect(200);
    await stack.http.patch(`/api/nodes/${nodeId}`).set(owner.auth).send({ paused: false }).expect(200);
    await reply('And after a pause?');
    expect((await checksOf(nodeId, 3)).map((c) => c.status)).toEqual(['passed', 'passed', 'passed']);

    agent.child.kill('SIGINT');
    await agent.exited;
  }, 120_000);

  it('a node relaying text the model did not write fails its check: paused with the reason, its unpaid rewards withheld, its owner told', async () => {
    // Honest when challenged (it answers with the model's own output), altered at work.
    const liar = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof });
    const wallet = async () => (await stack.http.get(`/api/wallet/${owner.id}`).set(owner.auth).expect(200)).body as { pending_earnings: number };
    const pendingBefore = (await wallet()).pending_earnings;
    type Funds = { balance: number; bonus_balance: number; transferable_balance: number; total_spent: number };
    const funds = async (): Promise<Funds> => {
      const w = (await stack.http.get(`/api/wallet/${requester.id}`).set(requester.auth).expect(200)).body as Funds;
      return { balance: w.balance, bonus_balance: w.bonus_balance, transferable_balance: w.transferable_balance, total_spent: w.total_spent };
    };
    const before = await funds();
    const id = streamId();
    const reading = startReply(stack, requester.auth, {
      streamId: id,
      modelId: MODEL,
      prompt: 'Tell me about the sea',
      params: { max_tokens: 48 },
    }).then((res) => readSse(res));
    const job = (await liar.claim())!;
    expect(job.params.seed).toEqual(expect.any(Number));
    await liar.send(job.job_id, [
      { type: 'token', text: 'The sea is large and blue, and this text was written by someone, not by the model.' },
      { type: 'done', usage: { prompt_tokens: 10, completion_tokens: 20 }, stop_reason: 'stop' },
    ]);
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'done' });
    // The requester paid for it (with welcome bonus), and its reward was recorded (the check may already have run:
    // the trusted generator is quick, so the wallets are read once it has judged)...
    const charged = Number((await taskOf<{ charged_units: string }>(stack, id)).charged_units);
    expect(charged).toBeGreaterThan(0);

    const [check] = await checksOf(liar.id, 1);
    expect(check!.status).toBe('failed');
    const node = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === liar.id);
    expect(node).toMatchObject({ status: 'paused', paused_reason: FAILED_SPOT_CHECK, pending: 0 });
    // ...and is withheld now: never paid, no longer pending.
    const rewards = (await stack.db.query(
      `SELECT r.withheld_at, r.paid_at FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id WHERE t.stream_id = $1`,
      [id],
    )) as Array<{ withheld_at: Date | null; paid_at: Date | null }>;
    expect(rewards).toHaveLength(1);
    expect(rewards[0]!.withheld_at).not.toBeNull();
    expect(rewards[0]!.paid_at).toBeNull();
    expect((await wallet()).pending_earnings).toBe(pendingBefore);
    const notes = (await stack.http.get(`/api/users/${owner.id}/notifications`).set(owner.auth).expect(200)).body.notifications as Array<{
      title: string;
      message: string;
    }>;
    expect(notes.find((n) => n.title === 'Node suspended')?.message).toMatch(
      /^Your node .+ was suspended: one of its replies failed the platform's verification/,
    );
    expect(await liar.claim(1)).toBeNull();
    // Suspended by the platform: its owner cannot resume it.
    expect((await stack.http.patch(`/api/nodes/${liar.id}`).set(owner.auth).send({ paused: false })).status).toBe(409);

    // The requester has exactly what it had before the reply, its welcome bonus included, through one refund.
    expect(await funds()).toEqual(before);
    const history = (await stack.http.get(`/api/wallet/${requester.id}/history`).set(requester.auth).expect(200)).body.transactions as Array<{
      type: string;
      direction: string;
      amount: number;
    }>;
    const refunds = history.filter((t) => t.type === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ direction: 'credit', amount: charged / 1000 })]);
    const told = (await stack.http.get(`/api/users/${requester.id}/notifications`).set(requester.auth).expect(200)).body.notifications as Array<{
      title: string;
      message: string;
    }>;
    expect(told.find((n) => n.title === 'Reply refunded')?.message).toMatch(/are back in your wallet\.$/);

    // Settlement never pays it, however long after, and the database refuses to mark it paid.
    await stack.app.get(RewardsService).settle(new Date(Date.now() + 7 * 24 * 3_600_000));
    const taskOfReward = `(SELECT id FROM inference_tasks WHERE stream_id = $1)`;
    const [after] = (await stack.db.query(`SELECT paid_at FROM node_rewards WHERE task_id = ${taskOfReward}`, [id])) as Array<{
      paid_at: Date | null;
    }>;
    expect(after!.paid_at).toBeNull();
    await expect(
      stack.db.query(
        `UPDATE node_rewards SET paid_at = now(), transaction_id = (SELECT id FROM ledger_transactions WHERE type = 'welcome_bonus' LIMIT 1) WHERE task_id = ${taskOfReward}`,
        [id],
      ),
    ).rejects.toThrow(/node_rewards_withheld_unpaid/);
  }, 90_000);

  it('a node whose answer to a model challenge is not the model’s output never serves the model and is paused', async () => {
    const pretender = await ScriptedNode.pair(stack, owner, { models: [] });
    await pretender.heartbeat([MODEL]);
    await pretender.heartbeat([MODEL]);
    const deadline = Date.now() + 30_000;
    let proofs: Array<{ status: string; failure: string | null }> = [];
    while (!proofs.some((p) => p.status === 'failed') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      proofs = (await stack.db.query(`SELECT status, failure FROM model_proofs WHERE node_id = $1`, [pretender.id])) as typeof proofs;
    }
    expect(proofs).toEqual([{ status: 'failed', failure: expect.stringMatching(/^generation: /) }]);
    const node = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === pretender.id);
    expect(node).toMatchObject({ status: 'paused', paused_reason: FAILED_PROOF, proven_models: [] });
    expect(await pretender.claim(1)).toBeNull();
  }, 60_000);

  it('a worker that stops is no longer a trusted generator; a proof nobody judges is dropped after two minutes and a fresh challenge follows', async () => {
    const redis = stack.app.get<Redis>(REDIS);
    const key = verifierKey(stack.config.redis.prefix, MODEL);
    expect(await redis.exists(key)).toBe(1);
    await worker.stop();
    expect(await redis.exists(key)).toBe(0);

    // A generator killed outright leaves its mark until it expires: the proof waits for a judge that never comes.
    await redis.set(key, 'killed', 'EX', 60);
    const node = await ScriptedNode.pair(stack, owner, { models: [] });
    await node.heartbeat([MODEL]);
    await node.heartbeat([MODEL]);
    const status = async () =>
      ((await stack.db.query(`SELECT status FROM model_proofs WHERE node_id = $1 ORDER BY issued_at`, [node.id])) as Array<{ status: string }>).map(
        (p) => p.status,
      );
    expect(await status()).toEqual(['checking']);
    await stack.db.query(`UPDATE model_proofs SET issued_at = issued_at - interval '121 seconds' WHERE node_id = $1`, [node.id]);
    await redis.del(key);
    await node.prove([MODEL]);
    expect(await status()).toEqual(['failed', 'proven']);
  }, 60_000);
});
