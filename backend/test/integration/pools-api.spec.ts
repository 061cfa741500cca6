import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { spec } from '../support/contract';
import { newUser } from '../support/users';
import { readSse, startReply, taskOf } from '../support/worker';
import { startStack, TestStack } from '../support/app';
import { provingHeartbeat } from '../support/scripted-node';
import { readGgufHeader } from '@glob/engine/gguf';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';

/** A catalog model no worker of this stack loads: only the pool serves it (its file in test stacks: the tiny model's). */
const MODEL = 'llama-3-8b-instruct';
const GiB = 2 ** 30;
const MiB = 2 ** 20;
let seq = 0;

type User = Awaited<ReturnType<typeof newUser>>;
interface Node {
  id: string;
  auth: { Authorization: string };
}
interface Beat {
  models?: string[];
  files?: Array<{ model_id: string; bytes: number; layers: number }>;
  pool_endpoint?: string | null;
  pool_ready?: string | null;
}

describe('node pools over the public API', () => {
  let stack: TestStack;
  let owner: User;

  /** The model's file as the platform holds it (size, and layers read from its header), and as its holder reports it. */
  let file: { model_id: string; bytes: number; layers: number };

  async function pair(user: User, memoryGiB: number, unit = GiB): Promise<Node> {
    const token = spec(await stack.http.post('/api/nodes/join-tokens').set(user.auth), 'createJoinToken').body.join_token as string;
    const host = { hostname: `box-${++seq}`, os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: memoryGiB * unit, gpu: null, vram_bytes: null };
    const res = spec(
      await stack.http
        .post('/api/nodes/register')
        .send({ join_token: token, name: `node-${seq}`, host, models: [], benchmark: { model_id: MODEL, tokens_per_second: 50 } }),
      'registerNode',
    );
    expect(res.status).toBe(201);
    const node = { id: res.body.node_id as string, auth: { Authorization: `Bearer ${res.body.credential as string}` } };
    await beat(node);
    return node;
  }

  const beat = async (node: Node, b: Beat = {}) => {
    const res = spec(await provingHeartbeat(stack, node.auth, { models: [], running_jobs: 0, ...b }), 'nodeHeartbeat');
    expect(res.status).toBe(200);
    return res.body as {
      pool: null | {
        pool_id: string;
        role: string;
        key: string;
        healthy: boolean;
        members: Array<{ node_id: string; endpoint: string | null; layers: number }>;
      };
    };
  };
  type Pool = { name: string; status: string; problem: string | null; members: Array<Record<string, unknown> & { node_id: string }> } & Record<
    string,
    unknown
  >;
  const pools = async (u: User) => spec(await stack.http.get('/api/nodes/pools').set(u.auth), 'listPools').body.pools as Pool[];
  const available = async () =>
    (spec(await stack.http.get('/api/inference/models').set(owner.auth), 'listModels').body.models as Array<{ id: string; status: string }>).find(
      (m) => m.id === MODEL,
    )!.status;

  beforeAll(async () => {
    stack = await startStack({ env: { JOIN_TOKEN_RATE_LIMIT: '50', HEARTBEAT_SECONDS: '1', JOB_LOCK_MS: '8000' } });
    owner = await newUser(stack, 'pooler');
    const path = join(process.env.MODELS_DIR!, TINY_MODEL_FILE);
    const header = await readGgufHeader(path);
    file = { model_id: MODEL, bytes: (await stat(path)).size, layers: Number(header.metadata.get('llama.block_count')) };
    expect(file.layers).toBe(4);
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('plans, assigns, serves, shares the reward by layers, degrades while a member is away, and dissolves', async () => {
    const [a, b, c] = [await pair(owner, 8), await pair(owner, 4), await pair(owner, 4)];
    const other = await newUser(stack, 'stranger');
    const requester = await newUser(stack, 'asker');
    const create = (u: User, body: object) => stack.http.post('/api/nodes/pools').set(u.auth).send(body);

    // Refusals: someone else's nodes, a model outside the catalog, a lone node.
    expect(spec(await create(other, { name: 'p', model_id: MODEL, node_ids: [a.id, b.id] }), 'createPool').status).toBe(404);
    const unknown = spec(await create(owner, { name: 'p', model_id: 'no-such-model', node_ids: [a.id, b.id] }), 'createPool');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("There is no model no-such-model in the network's catalog");
    expect(spec(await create(owner, { name: 'p', model_id: MODEL, node_ids: [a.id] }), 'createPool').status).toBe(400);

    // The owner lists the shards first: the coordinator is whoever holds the file, wherever it was listed.
    const made = spec(await create(owner, { name: 'study', model_id: MODEL, node_ids: [b.id, a.id, c.id] }), 'createPool');
    expect(made.status).toBe(201);
    // The platform knows the model's size and layers itself, before any member reports a file.
    expect(made.body).toMatchObject({
      status: 'forming',
      problem: "No member has reported holding this model's file yet.",
      model_layers: file.layers,
      model_bytes: file.bytes,
    });
    expect(spec(await create(owner, { name: 'again', model_id: MODEL, node_ids: [c.id, (await pair(owner, 4)).id] }), 'createPool').status).toBe(409);
    const poolId = made.body.id as string;
    expect((await beat(b)).pool).toBeNull();

    // B reports a file of the model with other numbers (a 32-layer 2 GiB file: another file, or a lie): not the
    // model's file, so B does not coordinate, and the plan keeps the platform's numbers.
    expect((await beat(b, { files: [{ model_id: MODEL, bytes: 2 * GiB, layers: 32 }] })).pool).toBeNull();
    expect((await pools(owner))[0]).toMatchObject({ problem: "No member has reported holding this model's file yet.", model_layers: file.layers });

    // A reports the model's file: offered memory 40 % of 8/4/4 GiB → its 4 layers split 2/1/1, A first.
    const aState = await beat(a, { files: [file], pool_endpoint: '10.9.0.2:7001' });
    expect(aState.pool).toMatchObject({ pool_id: poolId, role: 'coordinator', healthy: false, model_id: MODEL });
    expect(aState.pool!.key).toMatch(/^[0-9a-f]{64}$/);
    const bState = await beat(b, { pool_endpoint: '10.9.0.3:7001' });
    expect(bState.pool).toMatchObject({ role: 'shard', key: aState.pool!.key });
    expect(bState.pool!.members).toEqual([
      { node_id: a.id, endpoint: '10.9.0.2:7001', layers: 2 },
      { node_id: b.id, endpoint: '10.9.0.3:7001', layers: 1 },
      { node_id: c.id, endpoint: null, layers: 1 },
    ]);
    const [pool] = await pools(owner);
    expect(pool).toMatchObject({ status: 'forming', problem: null, model_layers: file.layers, model_bytes: file.bytes });
    expect(pool!.members.map((m) => [m.node_id, m.role, m.layers, m.layer_share, m.ready])).toEqual([
      [a.id, 'coordinator', 2, 0.5, false],
      [b.id, 'shard', 1, 0.25, false],
      [c.id, 'shard', 1, 0.25, false],
    ]);
    expect(await pools(other)).toEqual([]);

    // Shards ready → the coordinator is told the pool is healthy; the model is offered once it serves it.
    await beat(b, { pool_endpoint: '10.9.0.3:7001', pool_ready: poolId });
    // A shard that has not said where its tunnel listens cannot be reached: the coordinator is not told to start.
    await beat(c, { pool_ready: poolId });
    expect((await beat(a, { files: [file] })).pool!.healthy).toBe(false);
    expect((await pools(owner))[0]!.members.find((m) => m.node_id === c.id)).toMatchObject({ ready: false });
    await beat(c, { pool_endpoint: '10.9.0.4:7001', pool_ready: poolId });
    expect((await beat(a, { files: [file] })).pool!.healthy).toBe(true);
    expect(await available()).toBe('unavailable');
    const serving = { models: [MODEL], files: [file], pool_endpoint: '10.9.0.2:7001', pool_ready: poolId };
    await beat(a, serving);
    expect(await available()).toBe('available');
    expect((await pools(owner))[0]!.status).toBe('healthy');

    // A pooled reply: the coordinator claims and answers; the reward is shared 2:1:1 in whole milli-GLOB. (The members
    // call in first, the coordinator last: the live window is 3 s here, and a busy machine can take that between steps.)
    await beat(b, { pool_endpoint: '10.9.0.3:7001', pool_ready: poolId });
    await beat(c, { pool_endpoint: '10.9.0.4:7001', pool_ready: poolId });
    await beat(a, serving);
    const id = `pool_${Date.now().toString(36)}`;
    const reading = startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt: 'Hello', params: { max_tokens: 8 } }).then(readSse);
    const claimed = spec(await stack.http.post('/api/nodes/jobs/claim').set(a.auth).send({ wait_seconds: 5 }), 'claimNodeJob');
    expect(claimed.body.job_id).toBe(id);
    await stack.http
      .post(`/api/nodes/jobs/${id}/events`)
      .set(a.auth)
      .send({
        events: [
          { type: 'token', text: 'Hi' },
          { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 1 }, stop_reason: 'stop' },
        ],
      })
      .expect(200);
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'done' });
    const task = await taskOf(stack, id);
    expect(task.node_id).toBe(a.id);
    const shares = (await stack.db.query(`SELECT node_id, units::int, layers FROM node_reward_shares WHERE task_id = $1`, [task.id])) as Array<{
      node_id: string;
      units: number;
      layers: number;
    }>;
    const [reward] = (await stack.db.query(`SELECT units::int FROM node_rewards WHERE task_id = $1`, [task.id])) as Array<{ units: number }>;
    const byNode = new Map(shares.map((s) => [s.node_id, s]));
    expect(byNode.get(a.id)!.layers).toBe(2);
    expect(shares.reduce((s, x) => s + x.units, 0)).toBe(reward!.units);
    expect(Math.abs(byNode.get(a.id)!.units - reward!.units / 2)).toBeLessThanOrEqual(1);
    expect(Math.abs(byNode.get(b.id)!.units - reward!.units / 4)).toBeLessThanOrEqual(1);
    const listed = spec(await stack.http.get('/api/nodes').set(owner.auth), 'listNodes').body.nodes as Array<{ id: string; pending: number }>;
    expect(listed.find((n) => n.id === b.id)!.pending).toBe(byNode.get(b.id)!.units / 1000);

    // ledger:check sees shares that do not add up to the reward.
    const ledger = stack.app.get(LedgerService);
    const rewardsCheck = stack.app.get(RewardsService);
    expect(await ledger.reconcile()).toEqual([]);
    expect(await rewardsCheck.reconcile()).toEqual([]);
    const rollback = new Error('rollback');
    await expect(
      stack.db.transaction(async (tx) => {
        await tx.query(`UPDATE node_reward_shares SET units = units + 1 WHERE task_id = $1 AND node_id = $2`, [task.id, b.id]);
        expect((await rewardsCheck.reconcile(tx)).join('\n')).toMatch(/shares add up to/);
        throw rollback;
      }),
    ).rejects.toBe(rollback);

    // B goes silent past the live window: the model is withdrawn and the pool is degraded, until B is back.
    await new Promise((r) => setTimeout(r, 3_500));
    await beat(c, { pool_endpoint: '10.9.0.4:7001', pool_ready: poolId });
    expect((await beat(a, serving)).pool!.healthy).toBe(false);
    expect(await available()).toBe('unavailable');
    expect((await pools(owner))[0]).toMatchObject({ status: 'degraded' });
    expect((await pools(owner))[0]!.members.find((m) => m.node_id === b.id)).toMatchObject({ status: 'offline', ready: false });
    await beat(b, { pool_endpoint: '10.9.0.3:7001', pool_ready: poolId });
    expect((await beat(a, serving)).pool!.healthy).toBe(true);
    expect(await available()).toBe('available');
    expect((await pools(owner))[0]!.status).toBe('healthy');

    // Dissolved: only by its owner; the members hear of it at their next heartbeat.
    expect(spec(await stack.http.delete(`/api/nodes/pools/${poolId}`).set(other.auth), 'deletePool').status).toBe(404);
    expect(spec(await stack.http.delete(`/api/nodes/pools/${poolId}`).set(owner.auth), 'deletePool').status).toBe(204);
    expect((await beat(a, serving)).pool).toBeNull();
    expect(await pools(owner)).toEqual([]);
  }, 60_000);

  it('says so when the members offer less memory than the model needs', async () => {
    const [a, b] = [await pair(owner, 8, MiB), await pair(owner, 8, MiB)];
    spec(
      await stack.http
        .post('/api/nodes/pools')
        .set(owner.auth)
        .send({ name: 'small', model_id: MODEL, node_ids: [a.id, b.id] }),
      'createPool',
    );
    const state = await beat(a, { files: [file] });
    expect(state.pool).toBeNull();
    const pool = (await pools(owner)).find((p) => p.name === 'small')!;
    expect(pool.problem).toBe(
      `The members offer 6.4 MB in all, less than the model's ${(file.bytes / MiB).toFixed(1)} MB: raise their memory allocation or add a node.`,
    );
    expect(pool.status).toBe('forming');
  });

  it('a revoked member leaves its pool at once and the others get a new tunnel key, so the revoked machine cannot reach them', async () => {
    const [a, b, c] = [await pair(owner, 8), await pair(owner, 8), await pair(owner, 8)];
    const made = spec(
      await stack.http
        .post('/api/nodes/pools')
        .set(owner.auth)
        .send({ name: 'trio', model_id: MODEL, node_ids: [a.id, b.id, c.id] }),
      'createPool',
    );
    const poolId = made.body.id as string;
    const before = (await beat(a, { files: [file], pool_endpoint: '10.9.1.2:7001' })).pool!;
    expect((await beat(c, { pool_endpoint: '10.9.1.4:7001' })).pool!.key).toBe(before.key);

    await stack.http.delete(`/api/nodes/${c.id}`).set(owner.auth).expect(204);
    const trio = (await pools(owner)).find((p) => p.id === poolId)!;
    expect(trio.members.map((m) => m.node_id)).toEqual([a.id, b.id]);
    const after = (await beat(a, { files: [file], pool_endpoint: '10.9.1.2:7001' })).pool!;
    expect(after.key).toMatch(/^[0-9a-f]{64}$/);
    expect(after.key).not.toBe(before.key);
    expect(after.members.map((m) => m.node_id)).toEqual([a.id, b.id]);
    expect((await beat(b, { pool_endpoint: '10.9.1.3:7001' })).pool!.key).toBe(after.key);
    const revoked = await stack.http.post('/api/nodes/heartbeat').set(c.auth).send({ models: [], running_jobs: 0 });
    expect(revoked.status).toBe(401);

    // The coordinator revoked: planning chooses again among those who hold the file.
    await beat(b, { files: [file], pool_endpoint: '10.9.1.3:7001' });
    await stack.http.delete(`/api/nodes/${a.id}`).set(owner.auth).expect(204);
    const left = (await pools(owner)).find((p) => p.id === poolId)!;
    expect(left.members.map((m) => m.node_id)).toEqual([b.id]);
    expect((await beat(b, { files: [file], pool_endpoint: '10.9.1.3:7001' })).pool).toMatchObject({
      role: 'coordinator',
      members: [{ node_id: b.id }],
    });
  });
});
