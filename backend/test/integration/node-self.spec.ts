import { randomUUID } from 'node:crypto';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { startStack, type TestStack } from '../support/app';
import { spec } from '../support/contract';
import { modelsProof, ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startReply } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** A catalog model no node of this file serves: pools are only created, never run, here. */
const POOL_MODEL = 'llama-3-8b-instruct';
const SUSPENDED =
  'The platform suspended this node: one of its replies failed verification. It comes back on its own once it has proven its models again.';
let seq = 0;
type User = Awaited<ReturnType<typeof newUser>>;

describe("the node's own control panel, with its credential", () => {
  let stack: TestStack;
  let owner: User;

  /** A node of `user` that declares no model (nothing to prove), called in once. */
  const pair = (user: User, name = `panel-${++seq}`) => ScriptedNode.pair(stack, user, { name });
  const self = async (node: ScriptedNode) => spec(await stack.http.get('/api/nodes/self').set(node.auth), 'getNodeSelf');
  const patchSelf = async (node: ScriptedNode, body: object) =>
    spec(await stack.http.patch('/api/nodes/self').set(node.auth).send(body), 'updateNodeSelf');
  const createPool = async (node: ScriptedNode, nodeIds: string[]) =>
    spec(
      await stack.http
        .post('/api/nodes/self/pools')
        .set(node.auth)
        .send({ name: `pool-${++seq}`, model_id: POOL_MODEL, node_ids: nodeIds }),
      'createNodeSelfPool',
    );
  const leave = async (node: ScriptedNode, poolId: string) =>
    spec(await stack.http.delete(`/api/nodes/self/pools/${poolId}`).set(node.auth), 'leaveNodeSelfPool');
  const ownerNodes = async (user: User) =>
    spec(await stack.http.get('/api/nodes').set(user.auth), 'listNodes').body.nodes as Array<{ id: string } & Record<string, unknown>>;

  beforeAll(async () => {
    // Replies are not checked here (the trust checks have their own tests): a scripted reply would fail them.
    stack = await startStack({ env: { SPOT_CHECK_FIRST: '0', SPOT_CHECK_PERCENT: '0', JOIN_TOKEN_RATE_LIMIT: '50' } });
    owner = await newUser(stack, 'panel-owner');
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it("answers the node, its earnings and per-model figures after a served reply, the owner's balance, nodes and pools", async () => {
    const node = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof, name: 'served' });
    const sibling = await pair(owner);
    const requester = await newUser(stack, 'panel-requester');
    const streamId = `s_self_${Date.now().toString(36)}`;
    const reading = startReply(stack, requester.auth, { streamId, modelId: MODEL, prompt: 'Count for me', params: { max_tokens: 32 } }).then((r) =>
      readSse(r),
    );
    const job = (await node.claim())!;
    expect(job.job_id).toBe(streamId);
    await node.finish(job.job_id, ' one two three');
    expect((await reading).at(-1)!.data.type).toBe('done');

    const res = await self(node);
    expect(res.status).toBe(200);
    const body = res.body as {
      node: { id: string; tasks_served: number };
      earnings: Record<string, unknown> & { tokens_served: number; pending: number };
      by_model: Array<Record<string, unknown>>;
      balance: Record<string, unknown>;
      owner_nodes: Array<{ id: string }>;
      pools: unknown[];
    };
    // The node as its owner lists it, and the owner's nodes newest first.
    const listed = await ownerNodes(owner);
    expect(body.node).toEqual(listed.find((n) => n.id === node.id));
    expect(body.node.tasks_served).toBe(1);
    expect(body.owner_nodes.map((n) => n.id)).toEqual(listed.map((n) => n.id));
    expect(body.owner_nodes.map((n) => n.id)).toEqual([sibling.id, node.id]);
    // Its earnings as the owner reads them (online time moves on between the two reads).
    const earnings = spec(await stack.http.get(`/api/nodes/earnings/${node.id}`).set(owner.auth), 'getNodeEarnings').body as Record<string, unknown>;
    const { online_hours: _hours, glob_per_hour: _rate, ...figures } = earnings;
    expect(body.earnings).toMatchObject(figures);
    expect(body.earnings.pending).toBeGreaterThan(0);
    // The same figures for the one model it served.
    const [served] = (await stack.db.query(
      `SELECT sum(prompt_tokens + completion_tokens)::int AS tokens FROM inference_tasks WHERE node_id = $1 AND status = 'completed'`,
      [node.id],
    )) as Array<{ tokens: number }>;
    expect(body.earnings.tokens_served).toBe(served!.tokens);
    expect(body.by_model).toEqual([{ model_id: MODEL, tasks: 1, tokens: served!.tokens, earned: 0, pending: body.earnings.pending }]);
    expect(body.balance).toEqual(spec(await stack.http.get(`/api/wallet/${owner.id}/balance`).set(owner.auth), 'getBalance').body);
    expect(body.pools).toEqual([]);

    // Once the reward is paid (after the settlement window), it counts as earned under its model, and in the balance.
    await stack.app.get(RewardsService).settle(new Date(Date.now() + 25 * 3_600_000));
    const paid = (await self(node)).body as typeof body & { earnings: { earned: number } };
    expect(paid.earnings).toMatchObject({ earned: expect.any(Number), pending: 0 });
    expect(paid.earnings.earned).toBeGreaterThanOrEqual(body.earnings.pending);
    expect(paid.by_model).toEqual([{ model_id: MODEL, tasks: 1, tokens: served!.tokens, earned: paid.earnings.earned, pending: 0 }]);
    expect(paid.balance).toEqual(spec(await stack.http.get(`/api/wallet/${owner.id}/balance`).set(owner.auth), 'getBalance').body);
    expect(paid.balance.balance).toBeGreaterThan(body.balance.balance as number);

    // A sibling that served nothing has its own figures, not this node's.
    const quiet = (await self(sibling)).body as typeof body;
    expect(quiet.node.id).toBe(sibling.id);
    expect(quiet.by_model).toEqual([]);
    expect(quiet.earnings).toMatchObject({ node_id: sibling.id, tokens_served: 0, earned: 0, pending: 0 });
  }, 120_000);

  it("another owner's node sees only its owner's data", async () => {
    const mine = await pair(owner);
    const other = await newUser(stack, 'panel-other');
    const theirs = await pair(other);
    const res = await self(theirs);
    expect(res.status).toBe(200);
    expect(res.body.node.id).toBe(theirs.id);
    expect((res.body.owner_nodes as Array<{ id: string }>).map((n) => n.id)).toEqual([theirs.id]);
    expect(res.body.balance.user_id).toBe(other.id);
    expect(res.text).not.toContain(owner.id);
    expect(res.text).not.toContain(mine.id);
    // Nor can it change or pool the other owner's node.
    expect((await createPool(theirs, [theirs.id, mine.id])).status).toBe(404);
    expect((await ownerNodes(owner)).find((n) => n.id === mine.id)).toMatchObject({ status: 'online' });
  });

  it('pauses and resumes itself, sets its allocation, refuses a bad change, and a suspended node cannot resume itself', async () => {
    const node = await pair(owner);
    const paused = await patchSelf(node, { paused: true });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: node.id, status: 'paused' });
    expect((await node.heartbeat([])).body.paused).toBe(true);
    expect((await patchSelf(node, { paused: false })).body.status).toBe('online');
    expect((await node.heartbeat([])).body.paused).toBe(false);

    const allocation = { cpu_percent: 30, memory_percent: 60, gpu_percent: 10, disk_gb: 120 };
    expect((await patchSelf(node, { allocation })).body.allocation).toEqual(allocation);
    expect((await ownerNodes(owner)).find((n) => n.id === node.id)!.allocation).toEqual(allocation);
    expect((await node.heartbeat([])).body.allocation).toEqual(allocation);

    // Out of range, an empty change, and the name (changed in the web app only): 400 in the Error shape, nothing changed.
    for (const bad of [{ allocation: { ...allocation, cpu_percent: 90 } }, {}, { name: 'renamed' }, { paused: 'yes' }]) {
      const res = await patchSelf(node, bad);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
    expect((await ownerNodes(owner)).find((n) => n.id === node.id)).toMatchObject({ allocation, name: expect.stringMatching(/^panel-/) });

    await stack.db.query(`UPDATE nodes SET suspended_at = now(), paused = true, paused_reason = 'A reply failed verification' WHERE id = $1`, [
      node.id,
    ]);
    const resume = await patchSelf(node, { paused: false });
    expect(resume.status).toBe(409);
    expect(resume.body).toEqual({ statusCode: 409, message: SUSPENDED, error: 'Conflict' });
    expect((await node.heartbeat([])).body.paused).toBe(true);
  });

  it('pools itself with its owner’s nodes, never without itself nor with another owner’s node, and leaving dissolves the pool', async () => {
    const [a, b, c] = [await pair(owner), await pair(owner), await pair(owner)];
    const stranger = await pair(await newUser(stack, 'panel-stranger'));

    const without = await createPool(a, [b.id, c.id]);
    expect(without.status).toBe(400);
    expect(without.body.message).toMatch(/node_ids must include this node/);
    expect((await createPool(a, [a.id, stranger.id])).status).toBe(404);

    const made = await createPool(a, [a.id, b.id]);
    expect(made.status).toBe(201);
    const poolId = made.body.id as string;
    expect((made.body.members as Array<{ node_id: string }>).map((m) => m.node_id).sort()).toEqual([a.id, b.id].sort());
    expect((await createPool(c, [c.id, b.id])).status).toBe(409);
    expect(((await self(a)).body.pools as Array<{ id: string }>).map((p) => p.id)).toEqual([poolId]);
    expect(((await self(b)).body.pools as Array<{ id: string }>).map((p) => p.id)).toEqual([poolId]);
    expect((await self(c)).body.pools).toEqual([]);

    // A pool it is not in, and one that does not exist: 404.
    expect((await leave(c, poolId)).status).toBe(404);
    expect((await leave(stranger, poolId)).status).toBe(404);
    expect((await leave(a, randomUUID())).status).toBe(404);

    expect((await leave(b, poolId)).status).toBe(204);
    const pools = spec(await stack.http.get('/api/nodes/pools').set(owner.auth), 'listPools').body.pools as Array<{ id: string }>;
    expect(pools.map((p) => p.id)).not.toContain(poolId);
    expect((await self(a)).body.pools).toEqual([]);
    expect((await leave(a, poolId)).status).toBe(404);
  });

  it('answers 401 to a revoked or unknown credential and to a user token, on every operation of the panel', async () => {
    const node = await pair(owner);
    await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
    const unknown = { Authorization: `Bearer glb_node_${'x'.repeat(32)}` };
    for (const auth of [node.auth, unknown, owner.auth, {}]) {
      const calls = [
        ['getNodeSelf', stack.http.get('/api/nodes/self').set(auth)],
        ['updateNodeSelf', stack.http.patch('/api/nodes/self').set(auth).send({ paused: true })],
        [
          'createNodeSelfPool',
          stack.http
            .post('/api/nodes/self/pools')
            .set(auth)
            .send({ name: 'p', model_id: POOL_MODEL, node_ids: [node.id, randomUUID()] }),
        ],
        ['leaveNodeSelfPool', stack.http.delete(`/api/nodes/self/pools/${randomUUID()}`).set(auth)],
      ] as const;
      for (const [operationId, call] of calls) {
        const res = spec(await call, operationId);
        expect(`${operationId} ${res.status}`).toBe(`${operationId} 401`);
        expect(res.body.message).toBe('This node credential is invalid or has been revoked. Pair the node again.');
      }
    }
  });
});
