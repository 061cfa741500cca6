import { RewardsRepository } from '../../src/modules/rewards/rewards.repository';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, taskOf, WorkerProcess } from '../support/worker';
import { startStack, TestStack } from '../support/app';

const MODEL = 'glob-tiny-chat';
const HOUR = 3600_000;
let seq = 0;
const streamId = () => `r_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/** A stack with one worker owned by `provider`, and what the tests ask of it. */
function harness(env: Record<string, string> = {}) {
  const h = {
    stack: undefined as unknown as TestStack,
    worker: undefined as unknown as WorkerProcess,
    provider: undefined as unknown as User,
    async setUp() {
      h.stack = await startStack({ env });
      h.provider = await newUser(h.stack, 'provider');
      h.worker = await startWorker(h.stack, { WORKER_OWNER_EMAIL: h.provider.email, ...env }, `rewards-${Date.now()}`);
    },
    async tearDown() {
      await h.worker?.stop();
      expect(await h.reconcile()).toEqual([]);
      await h.stack.close();
    },
    rewards: () => h.stack.app.get(RewardsService),
    settleAt: (hoursFromNow: number) => h.rewards().settle(new Date(Date.now() + hoursFromNow * HOUR)),
    /** A completed reply of `u` served by the worker; its task. */
    async chat(u: User, maxTokens = 12): Promise<{ id: string; charged_units: string; reward_transaction_id: string | null }> {
      const id = streamId();
      const res = await startReply(h.stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Hello node', params: { max_tokens: maxTokens } });
      expect((await readSse(res)).at(-1)!.data.type).toBe('done');
      return taskOf(h.stack, id);
    },
    async wallet(u: User) {
      return (await h.stack.http.get(`/api/wallet/${u.id}`).set(u.auth).expect(200)).body as { balance: number; pending_earnings: number };
    },
    async platform(code: string): Promise<number> {
      const [row] = (await h.stack.db.query(`SELECT balance FROM ledger_accounts WHERE code = $1`, [code])) as Array<{ balance: string }>;
      return Number(row!.balance);
    },
    async earnings(taskId: string): Promise<number> {
      const [row] = (await h.stack.db.query(`SELECT count(*)::int AS n FROM ledger_transactions WHERE type = 'earning' AND reference = $1`, [
        taskId,
      ])) as Array<{ n: number }>;
      return row!.n;
    },
    claim: (u: User, taskId: string) => h.stack.http.post('/api/tokens/earn').set(u.auth).send({ task_id: taskId }),
    /** ledger:check's findings: the ledger's and the rewards'. */
    reconcile: async () => [...(await h.stack.app.get(LedgerService).reconcile()), ...(await h.rewards().reconcile())],
    /** A task's reward as recorded (in units): all of it, and the part the emission added. */
    async rewardOf(taskId: string): Promise<{ units: number; emission: number }> {
      const [row] = (await h.stack.db.query(`SELECT units, emission_units FROM node_rewards WHERE task_id = $1`, [taskId])) as Array<{
        units: string;
        emission_units: string;
      }>;
      return { units: Number(row!.units), emission: Number(row!.emission_units) };
    },
  };
  return h;
}

describe('funded rewards (default emission and share)', () => {
  const h = harness();
  beforeAll(() => h.setUp(), 90_000);
  afterAll(() => h.tearDown(), 60_000);

  it("a node earns nothing from its own owner's request, however it is asked", async () => {
    const before = (await h.wallet(h.provider)).balance;
    const t = await h.chat(h.provider);
    const charged = Number(t.charged_units) / 1000;
    expect(charged).toBeGreaterThan(0);
    expect((await h.claim(h.provider, t.id).expect(409)).body.message).toMatch(/earns no reward/);
    await h.settleAt(25);
    await h.settleAt(50);
    const after = await h.wallet(h.provider);
    // Paid for the reply like anyone else, and not a milli-GLOB back.
    expect(after.balance).toBeCloseTo(before - charged, 3);
    expect(after.pending_earnings).toBe(0);
    expect(await h.earnings(t.id)).toBe(0);
    const totals = await h.rewards().totalsByNode([h.worker.nodeId]);
    expect(totals.get(h.worker.nodeId)).toEqual({ earnedUnits: 0, pendingUnits: 0 });
    expect(await h.reconcile()).toEqual([]);
  });

  it('a reward is pending through the window and paid once after it; the claim endpoint neither mints nor pays early', async () => {
    const customer = await newUser(h.stack, 'customer');
    const before = await h.wallet(h.provider);
    const t = await h.chat(customer);
    const reward = (await h.claim(h.provider, t.id).expect(201)).body as { status: string; amount: number; payable_at: string };
    expect(reward.status).toBe('pending');
    expect(new Date(reward.payable_at).getTime()).toBeGreaterThan(Date.now() + 23.9 * HOUR);
    expect((await h.wallet(h.provider)).pending_earnings).toBeCloseTo(before.pending_earnings + reward.amount, 3);
    expect((await h.rewards().totalsByNode([h.worker.nodeId])).get(h.worker.nodeId)!.pendingUnits).toBeGreaterThanOrEqual(reward.amount * 1000);

    // Claiming many times at once, and settling inside the window, pays nothing.
    const claims = await Promise.all(Array.from({ length: 10 }, () => h.claim(h.provider, t.id)));
    expect(new Set(claims.map((c) => `${c.status} ${c.body.status} ${c.body.amount}`))).toEqual(new Set([`201 pending ${reward.amount}`]));
    await h.settleAt(0);
    await h.settleAt(23);
    expect((await h.wallet(h.provider)).balance).toBe(before.balance);
    expect(await h.earnings(t.id)).toBe(0);

    await h.settleAt(25);
    const after = await h.wallet(h.provider);
    // Paid with its share of the emission that accrued meanwhile, up to the task's charge and no further.
    const paid = await h.rewardOf(t.id);
    expect(paid.units).toBe(reward.amount * 1000 + paid.emission);
    expect(paid.emission).toBeGreaterThan(0);
    expect(paid.units).toBeLessThanOrEqual(Number(t.charged_units));
    expect(after.balance).toBeCloseTo(before.balance + paid.units / 1000, 3);
    expect(after.pending_earnings).toBeCloseTo(before.pending_earnings, 3);
    expect(await h.earnings(t.id)).toBe(1);
    expect((await h.claim(h.provider, t.id).expect(201)).body.status).toBe('paid');
    expect(await h.platform('platform:rewards')).toBeGreaterThanOrEqual(0);
    expect(await h.reconcile()).toEqual([]);
  });

  it('a share of every charge funds rewards, in the same transaction as the settle', async () => {
    const customer = await newUser(h.stack, 'payer');
    const rewardsBefore = await h.platform('platform:rewards');
    const t = await h.chat(customer);
    expect(await h.platform('platform:rewards')).toBe(rewardsBefore + Math.floor((Number(t.charged_units) * 80) / 100));
    expect(await h.reconcile()).toEqual([]);
  });

  it('concurrent settlement runs pay every due reward exactly once', async () => {
    const customers = await Promise.all([newUser(h.stack, 'c1'), newUser(h.stack, 'c2'), newUser(h.stack, 'c3')]);
    const tasks = [];
    for (const c of customers) tasks.push(await h.chat(c, 6));
    const before = await h.wallet(h.provider);
    const unpaid = ((await h.stack.db.query(`SELECT task_id FROM node_rewards WHERE paid_at IS NULL`)) as Array<{ task_id: string }>).map(
      (r) => r.task_id,
    );
    const runs = await Promise.all(Array.from({ length: 6 }, () => h.settleAt(26)));
    expect(runs.reduce((s, r) => s + r.paid, 0)).toBeGreaterThanOrEqual(tasks.length);
    for (const t of tasks) expect(await h.earnings(t.id)).toBe(1);
    // Everything pending was due, and was paid once (with its share of the emission).
    const after = await h.wallet(h.provider);
    expect(after.pending_earnings).toBe(0);
    let paid = 0;
    for (const taskId of unpaid) paid += (await h.rewardOf(taskId)).units;
    expect(paid).toBeGreaterThanOrEqual(before.pending_earnings * 1000);
    expect(after.balance).toBeCloseTo(before.balance + paid / 1000, 3);
    expect(await h.platform('platform:rewards')).toBeGreaterThanOrEqual(0);
    expect(await h.reconcile()).toEqual([]);
  });

  it("a node's figures are kept as its rewards change, read the same once folded, and ledger:check catches made-up ones", async () => {
    const nodeId = h.worker.nodeId;
    await h.chat(await newUser(h.stack, 'figures'), 6);
    // What the node's rewards add up to, the long way.
    const [sums] = (await h.stack.db.query(
      `SELECT coalesce(sum(s.units) FILTER (WHERE r.paid_at IS NOT NULL), 0) AS earned,
              coalesce(sum(s.units) FILTER (WHERE r.paid_at IS NULL AND r.withheld_at IS NULL), 0) AS pending
       FROM node_reward_shares s JOIN node_rewards r ON r.task_id = s.task_id WHERE s.node_id = $1`,
      [nodeId],
    )) as Array<{ earned: string; pending: string }>;
    const before = (await h.rewards().totalsByNode([nodeId])).get(nodeId)!;
    expect(before).toEqual({ earnedUnits: Number(sums!.earned), pendingUnits: Number(sums!.pending) });
    expect(before.earnedUnits).toBeGreaterThan(0);
    expect(before.pendingUnits).toBeGreaterThan(0);

    // Folded in batches of two, as the rewards timer folds them: the figures read the same, with no move left.
    const repository = h.stack.app.get(RewardsRepository);
    let folded = 0;
    for (let n = await repository.foldMoves(2); n > 0; n = await repository.foldMoves(2)) folded += n;
    expect(folded).toBeGreaterThan(0);
    expect((await h.stack.db.query(`SELECT count(*)::int AS n FROM node_reward_moves`))[0].n).toBe(0);
    expect((await h.rewards().totalsByNode([nodeId])).get(nodeId)).toEqual(before);

    // A node's figures made up (earned GLOB it was never paid) are caught.
    const rollback = new Error('rollback');
    await expect(
      h.stack.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO node_reward_moves (node_id, earned_units) VALUES ($1, 1000)`, [nodeId]);
        expect((await h.rewards().reconcile(tx)).join('\n')).toMatch(/kept reward figures are \d+ earned and \d+ pending, but its rewards add up to/);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await h.reconcile()).toEqual([]);
  });

  it('the rewards account cannot be overdrawn, and ledger:check catches GLOB that was not funded, earned or owed', async () => {
    const ledger = h.stack.app.get(LedgerService);
    const user = await newUser(h.stack, 'forger');
    const wallet = await ledger.walletOf(user.id);
    const rewards = await ledger.platformAccount('platform:rewards');
    const spending = await ledger.platformAccount('platform:spending');
    const emission = await ledger.platformAccount('platform:emission');
    const all = await h.platform('platform:rewards');
    // More than the rewards account holds: refused.
    await expect(
      h.stack.db.transaction((tx) =>
        ledger.post(
          {
            type: 'earning',
            description: 'forged',
            lines: [
              { accountId: rewards, amount: -(all + 1) },
              { accountId: wallet.id, amount: all + 1 },
            ],
          },
          tx,
        ),
      ),
    ).rejects.toThrow(/insufficient/i);
    // Postings the services never make, each rolled back after ledger:check has seen it.
    const rollback = new Error('rollback');
    const seen = async (lines: Array<{ accountId: string; amount: number }>, type: 'earning' | 'reward' | 'refund', expected: RegExp) => {
      await expect(
        h.stack.db.transaction(async (tx) => {
          await ledger.post({ type, description: 'forged', reference: user.id, lines }, tx);
          expect([...(await ledger.reconcile(tx)), ...(await h.rewards().reconcile(tx))].join('\n')).toMatch(expected);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
    };
    await seen(
      [
        { accountId: rewards, amount: -1 },
        { accountId: wallet.id, amount: 1 },
      ],
      'earning',
      /no recorded reward/,
    );
    await seen(
      [
        { accountId: spending, amount: -1 },
        { accountId: wallet.id, amount: 1 },
      ],
      'reward',
      /not from a funding source into platform:rewards/,
    );
    await seen(
      [
        { accountId: emission, amount: -1_000_000_000 },
        { accountId: rewards, amount: 1_000_000_000 },
      ],
      'reward',
      /the emission issued .* more than/,
    );
    await seen(
      [
        { accountId: emission, amount: -1 },
        { accountId: wallet.id, amount: 1 },
      ],
      'earning',
      /platform:emission/,
    );
    // A refund no failed spot check gave.
    await seen(
      [
        { accountId: spending, amount: -1 },
        { accountId: wallet.id, amount: 1 },
      ],
      'refund',
      /refund .*: neither a spot check nor a suspension refunds by it/,
    );
    expect(await h.reconcile()).toEqual([]);
  });
});

describe('rewards without emission, then with it', () => {
  const h = harness({ REWARD_EMISSION_GLOB_PER_DAY: '0' });
  beforeAll(() => h.setUp(), 90_000);
  afterAll(() => h.tearDown(), 60_000);

  it('each reward is funded by its own charge; the emission, once on, lifts rewards falling due toward their charge and no further', async () => {
    const customer = await newUser(h.stack, 'customer');
    const t = await h.chat(customer);
    const first = await h.chat(customer);
    const before = await h.wallet(h.provider);
    const rewardsBefore = await h.platform('platform:rewards');
    const run = await h.settleAt(25);
    expect(run).toEqual({ emitted: 0, paid: 2, unfunded: false });
    const [a, b] = [await h.rewardOf(t.id), await h.rewardOf(first.id)];
    expect([a.emission, b.emission]).toEqual([0, 0]);
    expect(await h.platform('platform:rewards')).toBe(rewardsBefore - a.units - b.units);
    expect((await h.wallet(h.provider)).balance).toBeCloseTo(before.balance + (a.units + b.units) / 1000, 3);
    expect(await h.reconcile()).toEqual([]);

    // The operator turns the emission on: the time without emission pays nothing back, the time after it does.
    h.stack.config.rewards.emissionUnitsPerDay = 10_000_000;
    const late = await h.chat(customer);
    const funded = await h.settleAt(50);
    // 25 h of emission (and the seconds the test took).
    expect(funded.emitted).toBeGreaterThanOrEqual(Math.floor((10_000_000 * 25) / 24));
    expect(funded.emitted).toBeLessThan(Math.floor((10_000_000 * 25.1) / 24));
    expect(funded.paid).toBe(1);
    // Far more emission than the one reward due has room for: it is lifted to its task's charge exactly, the rest waits.
    expect((await h.rewardOf(late.id)).units).toBe(Number(late.charged_units));
    const [emission] = (await h.stack.db.query(`SELECT undistributed_units::bigint AS undistributed FROM reward_emission`)) as Array<{
      undistributed: string;
    }>;
    expect(Number(emission!.undistributed)).toBe(funded.emitted - (await h.rewardOf(late.id)).emission);
    expect(await h.platform('platform:rewards')).toBeGreaterThanOrEqual(0);
    expect(await h.reconcile()).toEqual([]);
  });
});
