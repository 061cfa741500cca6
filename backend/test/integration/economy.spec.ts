import fc from 'fast-check';
import OpenAI from 'openai';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { startStack, type TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { modelsProof, ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startReply } from '../support/worker';

const MODEL = 'glob-tiny-chat';
const EMBED_MODEL = 'glob-tiny-embed';
/** The tiny embedding model's vector length. */
const EMBED_DIMENSIONS = 192;
const HOUR = 3_600_000;
let seq = 0;
const streamId = () => `s_eco_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;
type Funds = { balance: number; transferable_balance: number; bonus_balance: number };

/**
 * The economy's rules against the ways to game them: a node is paid for the tokens it served and never more than its
 * task's charge; what a requester paid with welcome bonus reaches the node's owner as bonus; the emission is shared
 * by work. Nodes are scripted (the trust checks are off here: they have their own tests), replies real.
 */
function economy(env: Record<string, string> = {}) {
  const e = {
    stack: undefined as unknown as TestStack,
    clock: Date.now(),
    async setUp() {
      e.stack = await startStack({ env: { SPOT_CHECK_FIRST: '0', SPOT_CHECK_PERCENT: '0', ...env } });
    },
    async tearDown() {
      try {
        expect(await e.problems()).toEqual([]);
      } finally {
        await e.stack?.close();
      }
    },
    /** ledger:check's findings: the ledger's and the rewards'. */
    problems: async () => [...(await e.stack.app.get(LedgerService).reconcile()), ...(await e.stack.app.get(RewardsService).reconcile())],
    funds: async (u: User): Promise<Funds> => {
      const w = (await e.stack.http.get(`/api/wallet/${u.id}`).set(u.auth).expect(200)).body as Funds;
      return { balance: w.balance, transferable_balance: w.transferable_balance, bonus_balance: w.bonus_balance };
    },
    buy: (u: User) =>
      e.stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201),
    /** A reply of `u` that `node` serves with `words` words; with `stopAfter`, the requester stops it after that many. */
    async reply(u: User, node: ScriptedNode, words: number, opts: { stopAfter?: number; returnedBy?: ScriptedNode } = {}) {
      const id = streamId();
      const events = startReply(e.stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Count for me', params: { max_tokens: 64 } }).then((r) =>
        readSse(r),
      );
      if (opts.returnedBy) {
        const first = (await opts.returnedBy.claim())!;
        await e.stack.http.post(`/api/nodes/jobs/${first.job_id}/return`).set(opts.returnedBy.auth).expect(204);
      }
      const job = (await node.claim())!;
      const text = Array.from({ length: words }, (_, i) => ` word${i}`).join('');
      if (opts.stopAfter !== undefined) {
        await node.send(job.job_id, [{ type: 'token', text: text.slice(0, opts.stopAfter * 6) || ' w' }]);
        await e.stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
      } else {
        await node.finish(job.job_id, text);
      }
      const last = (await events).at(-1)!.data;
      expect(last.type === 'done' || last.type === 'error').toBe(true);
      return id;
    },
    /** Settles as of `hours` past the test's clock, which moves on. */
    async settle(hours: number) {
      e.clock += hours * HOUR;
      return e.stack.app.get(RewardsService).settle(new Date(e.clock));
    },
  };
  return e;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('the economy: a pair of accounts cannot gain by sending requests to its own node', () => {
  const e = economy();
  beforeAll(() => e.setUp(), 90_000);
  afterAll(() => e.tearDown(), 60_000);

  it('with welcome bonus only: many one-token requests to the other account’s node; the pair’s transferable GLOB does not grow', async () => {
    const [owner, second] = [await newUser(e.stack, 'bonus-owner'), await newUser(e.stack, 'bonus-second')];
    const node = await ScriptedNode.pair(e.stack, owner, { models: [MODEL], write: modelsProof });
    const before = [await e.funds(owner), await e.funds(second)];
    expect(before.map((f) => f.transferable_balance)).toEqual([0, 0]);
    for (let i = 0; i < 20; i++) await e.reply(second, node, 1);
    await e.settle(25);
    await e.settle(25);
    const after = [await e.funds(owner), await e.funds(second)];
    // The owner was paid (as bonus), never more than the second account spent, and nothing became transferable.
    expect(after[0]!.balance).toBeGreaterThan(before[0]!.balance);
    expect(after.map((f) => f.transferable_balance)).toEqual([0, 0]);
    expect(sum(after.map((f) => f.balance))).toBeLessThanOrEqual(sum(before.map((f) => f.balance)));
    expect(await e.problems()).toEqual([]);

    // Its owner sees what the node earned and for what work; nobody else sees it.
    const page = await e.stack.http.get(`/api/nodes/earnings/${node.id}`).set(owner.auth).expect(200);
    expectSpecResponse(page, 'getNodeEarnings');
    const [served] = (await e.stack.db.query(
      `SELECT sum(prompt_tokens + completion_tokens)::int AS tokens FROM inference_tasks WHERE node_id = $1 AND status = 'completed'`,
      [node.id],
    )) as Array<{ tokens: number }>;
    expect(page.body).toMatchObject({
      node_id: node.id,
      days: 30,
      tokens_served: served!.tokens,
      pending: 0,
      checks: { failed: 0 },
    });
    expect(page.body.earned).toBeCloseTo(after[0]!.balance - before[0]!.balance, 3);
    expect(page.body.daily).toHaveLength(30);
    expect(page.body.daily.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10), tokens: served!.tokens });
    // Online for seconds: no rate yet. After two hours online, what it earned per hour.
    expect(page.body.glob_per_hour).toBe(0);
    await e.stack.db.query(`UPDATE node_presence SET seconds = 7200 WHERE node_id = $1`, [node.id]);
    const later = (await e.stack.http.get(`/api/nodes/earnings/${node.id}`).set(owner.auth).expect(200)).body;
    expect(later.online_hours).toBe(2);
    expect(later.glob_per_hour).toBe(Math.round(((later.earned + later.pending) / 2) * 1000) / 1000);
    await e.stack.http.get(`/api/nodes/earnings/${node.id}`).set(second.auth).expect(404);
  }, 120_000);

  it('through /v1 with an API key (completions, embeddings, tool calls, logprobs) to the other account’s node: the same, every way the API bills', async () => {
    const [owner, second] = [await newUser(e.stack, 'v1-owner'), await newUser(e.stack, 'v1-second')];
    const node = await ScriptedNode.pair(e.stack, owner, { models: [MODEL, EMBED_MODEL], write: modelsProof });
    const created = await e.stack.http.post('/api/api-keys').set(second.auth).send({ name: 'self-dealing' });
    expectSpecResponse(created, 'createApiKey');
    const openai = new OpenAI({ apiKey: created.body.key as string, baseURL: `${e.stack.url}/v1`, maxRetries: 0 });
    const before = [await e.funds(owner), await e.funds(second)];
    const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };
    const text = ' word';
    const requests: Array<() => Promise<unknown>> = [
      () => openai.completions.create({ model: MODEL, prompt: 'Count for me', max_tokens: 8 }),
      () => openai.embeddings.create({ model: EMBED_MODEL, input: ['one text', 'another text'] }),
      () =>
        openai.chat.completions.create({
          model: MODEL,
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [weather],
          tool_choice: 'required',
        }),
      () => openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, logprobs: true }),
    ];
    for (let round = 0; round < 3; round++)
      for (const ask of requests) {
        const answer = ask();
        const job = (await node.claim())!;
        if (job.kind === 'embed') {
          const vector = Buffer.from(new Float32Array(EMBED_DIMENSIONS).fill(0.5).buffer).toString('base64');
          await e.stack.http
            .post(`/api/nodes/jobs/${job.job_id}/embeddings`)
            .set(node.auth)
            .send({ embeddings: job.input!.map(() => vector) })
            .expect(204);
        } else if ((job.params as { json_schema?: object }).json_schema) await node.finish(job.job_id, '{"name": "get_weather", "arguments": {}}');
        else if ((job.params as { logprobs?: number }).logprobs !== undefined) {
          const logprobs = [{ token: text, logprob: -1, bytes: Array.from(Buffer.from(text)), top_logprobs: [] }];
          await node.send(job.job_id, [
            { type: 'token', text },
            { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop', logprobs },
          ]);
        } else await node.finish(job.job_id, text);
        await answer;
      }
    await e.settle(25);
    await e.settle(25);
    const after = [await e.funds(owner), await e.funds(second)];
    // Each request was charged (the second account spent) and the owner paid as bonus: nothing became transferable.
    expect(after[1]!.balance).toBeLessThan(before[1]!.balance);
    expect(after[0]!.balance).toBeGreaterThan(before[0]!.balance);
    expect(after.map((f) => f.transferable_balance)).toEqual([0, 0]);
    expect(sum(after.map((f) => f.balance))).toBeLessThanOrEqual(sum(before.map((f) => f.balance)));
    const tasks = (await e.stack.db.query(`SELECT status FROM inference_tasks WHERE node_id = $1`, [node.id])) as Array<{ status: string }>;
    expect(tasks.map((t) => t.status)).toEqual(Array(12).fill('completed'));
    expect(await e.problems()).toEqual([]);
  }, 120_000);

  it('ledger:check catches a reward above its charge, bonus paid as transferable, work not counted, emission not minted', async () => {
    const [paid] = (await e.stack.db.query(
      `SELECT task_id, transaction_id FROM node_rewards WHERE paid_at IS NOT NULL AND bonus_units > 0 LIMIT 1`,
    )) as Array<{ task_id: string; transaction_id: string }>;
    const [taskId, earning] = [paid!.task_id, paid!.transaction_id];
    const rollback = new Error('rollback');
    const seen = async (sql: string, params: unknown[], expected: RegExp) =>
      expect(
        e.stack.db.transaction(async (tx) => {
          await tx.query(sql, params);
          expect((await e.stack.app.get(RewardsService).reconcile(tx)).join('\n')).toMatch(expected);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
    await seen(`UPDATE inference_tasks SET charged_units = 1 WHERE id = $1`, [taskId], /is \d+, above its charge 1/);
    await seen(
      `UPDATE ledger_entries SET bonus = 0 WHERE transaction_id = $1 AND amount > 0`,
      [earning],
      /transferable, more than the 0 its charge paid/,
    );
    await seen(`UPDATE node_rewards SET tokens = tokens + 1 WHERE task_id = $1`, [taskId], /pays for \d+ tokens, but the platform counted/);
    await seen(`UPDATE reward_emission SET undistributed_units = undistributed_units + 1000000000000`, [], /more than the -?\d+ it minted/);
    expect(await e.problems()).toEqual([]);
  });
});

describe('the economy: with bought GLOB (no welcome bonus here), a pair ends with at most what it had', () => {
  const e = economy({ WELCOME_BONUS_GLOB: '0' });
  beforeAll(() => e.setUp(), 90_000);
  afterAll(() => e.tearDown(), 60_000);

  it('with bought GLOB: the pair ends with at most what it had, and at most what it bought is transferable', async () => {
    const [owner, buyer] = [await newUser(e.stack, 'bought-owner'), await newUser(e.stack, 'bought-buyer')];
    await e.buy(buyer);
    const node = await ScriptedNode.pair(e.stack, owner, { models: [MODEL], write: modelsProof });
    const before = [await e.funds(owner), await e.funds(buyer)];
    for (let i = 0; i < 12; i++) await e.reply(buyer, node, 40);
    await e.settle(25);
    await e.settle(25);
    const after = [await e.funds(owner), await e.funds(buyer)];
    expect(after[0]!.transferable_balance).toBeGreaterThan(0);
    expect(sum(after.map((f) => f.balance))).toBeLessThanOrEqual(sum(before.map((f) => f.balance)));
    expect(sum(after.map((f) => f.transferable_balance))).toBeLessThanOrEqual(1000);
    expect(await e.problems()).toEqual([]);
  }, 120_000);
});

describe('the emission is shared by paid work, not first come', () => {
  // Little enough emission that no reward reaches its charge: the shares show.
  const e = economy({ REWARD_EMISSION_GLOB_PER_DAY: '5' });
  beforeAll(() => e.setUp(), 90_000);
  afterAll(() => e.tearDown(), 60_000);

  it('two honest nodes and a self-dealing pair: each reward gets the emission in proportion to its work, the pair’s as bonus', async () => {
    const [first, second, pairOwner, pairSecond, customer] = [
      await newUser(e.stack, 'honest-1'),
      await newUser(e.stack, 'honest-2'),
      await newUser(e.stack, 'pair-owner'),
      await newUser(e.stack, 'pair-second'),
      await newUser(e.stack, 'customer'),
    ];
    await e.buy(customer);
    const nodes = [
      await ScriptedNode.pair(e.stack, first, { models: [MODEL], write: modelsProof }),
      await ScriptedNode.pair(e.stack, second, { models: [MODEL], write: modelsProof }),
      await ScriptedNode.pair(e.stack, pairOwner, { models: [MODEL], write: modelsProof }),
    ];
    // The pair sends many requests first; the honest nodes serve fewer, longer ones after.
    for (let i = 0; i < 6; i++) await e.reply(pairSecond, nodes[2]!, 2);
    await e.reply(customer, nodes[0]!, 48);
    await e.reply(customer, nodes[0]!, 24);
    await e.reply(customer, nodes[1]!, 12);
    const pairBefore = await e.funds(pairOwner);
    const settled = await e.settle(25);
    const rewards = (await e.stack.db.query(
      `SELECT r.units::bigint AS units, r.emission_units::bigint AS emission, r.bonus_units::bigint AS bonus, t.charged_units::bigint AS charged, r.owner_id
       FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id`,
    )) as Array<{ units: string; emission: string; bonus: string; charged: string; owner_id: string }>;
    expect(rewards).toHaveLength(9);
    const shared = sum(rewards.map((r) => Number(r.emission)));
    expect(shared).toBe(settled.emitted);
    for (const r of rewards) {
      const work = Number(r.units) - Number(r.emission);
      // Its share of the emission, by its work (whole units, largest remainder), and never past its charge.
      expect(Math.abs(Number(r.emission) - (shared * work) / sum(rewards.map((x) => Number(x.units) - Number(x.emission))))).toBeLessThan(1);
      expect(Number(r.units)).toBeLessThan(Number(r.charged));
    }
    // Bonus paid the pair's requests: its node's owner received all of it as bonus.
    for (const r of rewards.filter((x) => x.owner_id === pairOwner.id)) expect(Number(r.bonus)).toBe(Number(r.units));
    const pairAfter = await e.funds(pairOwner);
    expect(pairAfter.transferable_balance).toBe(pairBefore.transferable_balance);
    expect(pairAfter.bonus_balance).toBeGreaterThan(pairBefore.bonus_balance);
    expect(await e.problems()).toEqual([]);
  }, 120_000);
});

describe('the economy’s invariants over random sequences (fast-check)', () => {
  const e = economy({ REWARD_EMISSION_GLOB_PER_DAY: '50' });
  let users: User[];
  let nodes: ScriptedNode[];
  let bought = 0;
  beforeAll(async () => {
    await e.setUp();
    users = [await newUser(e.stack, 'prop-0'), await newUser(e.stack, 'prop-1'), await newUser(e.stack, 'prop-2')];
    // Users 0 and 1 own a node each: requests between them are self-dealing, user 2 is a plain customer.
    nodes = [
      await ScriptedNode.pair(e.stack, users[0]!, { models: [MODEL], write: modelsProof }),
      await ScriptedNode.pair(e.stack, users[1]!, { models: [MODEL], write: modelsProof }),
    ];
  }, 90_000);
  afterAll(() => e.tearDown(), 60_000);

  const user = fc.integer({ min: 0, max: 2 });
  const node = fc.integer({ min: 0, max: 1 });
  const op = fc.oneof(
    fc.record({ kind: fc.constant('purchase' as const), user }),
    fc.record({ kind: fc.constant('transfer' as const), from: user, to: user, amount: fc.integer({ min: 1, max: 400_000 }) }),
    fc.record({ kind: fc.constant('reply' as const), user, node, words: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('returned' as const), user, node, words: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ kind: fc.constant('stopped' as const), user, node, words: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ kind: fc.constant('settle' as const), hours: fc.integer({ min: 1, max: 30 }) }),
  );

  it('supply is conserved, no reward is above its charge, bonus never becomes transferable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'purchase') {
            await e.buy(users[o.user]!);
            bought += 1000;
          } else if (o.kind === 'transfer') {
            const to = (await e.stack.http.get(`/api/wallet/${users[o.to]!.id}`).set(users[o.to]!.auth).expect(200)).body.address as string;
            const res = await e.stack.http
              .post(`/api/wallet/${users[o.from]!.id}/transfer`)
              .set(users[o.from]!.auth)
              .send({ to_address: to, amount: o.amount / 1000 });
            // Refused transfers (too much, to oneself, bonus) are 4xx, never a 500.
            expect(res.status).toBeLessThan(500);
          } else if (o.kind === 'settle') {
            await e.settle(o.hours);
          } else {
            const u = users[o.user]!;
            const free = await e.funds(u);
            if (free.balance < 20) continue;
            if (o.kind === 'reply') await e.reply(u, nodes[o.node]!, o.words);
            if (o.kind === 'returned') await e.reply(u, nodes[o.node]!, o.words, { returnedBy: nodes[1 - o.node]! });
            if (o.kind === 'stopped') await e.reply(u, nodes[o.node]!, 40, { stopAfter: o.words });
          }
        }
        expect(await e.problems()).toEqual([]);
        // Only purchases bring transferable GLOB in: rewards carry their charges' bonus, and never exceed them.
        const transferable = sum(await Promise.all(users.map(async (u) => (await e.funds(u)).transferable_balance)));
        expect(transferable).toBeLessThanOrEqual(bought + 1e-9);
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 240_000);
});
