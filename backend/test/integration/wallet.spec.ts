import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { Transactions } from '../../src/database/repository';
import { CodesService } from '../../src/modules/accounts/codes.service';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { LedgerRepository } from '../../src/modules/wallet/ledger.repository';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { ledgerCheckCli } from '../support/ledger-check';
import { expectSpecResponse } from '../support/contract';
import { newUser } from '../support/users';
import { startStack, TestStack } from '../support/app';

async function expectReconciled(stack: TestStack) {
  expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
}

/** Buys the Starter package (1000 GLOB, test mode): GLOB that can be transferred, unlike the welcome bonus. */
async function buyStarter(stack: TestStack, u: { id: string; auth: Record<string, string> }) {
  await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
}

describe('wallet', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await expectReconciled(stack);
    await stack.close();
  });

  it('starts with the welcome bonus: balance, history, stats, user object and a notification', async () => {
    const u = await newUser(stack, 'newcomer');
    const wallet = await stack.http.get(`/api/wallet/${u.id}`).set(u.auth).expect(200);
    expectSpecResponse(wallet, 'getWallet');
    expect(wallet.body).toMatchObject({
      user_id: u.id,
      balance: 1000,
      pending_balance: 0,
      bonus_balance: 1000,
      transferable_balance: 0,
      total_earned: 1000,
      total_spent: 0,
      staking_rewards: 0,
    });
    expect(wallet.body.address).toMatch(/^glb1[0-9a-f]{38}$/);
    expect(wallet.body.stats).toMatchObject({ total_earned: 1000, total_spent: 0, total_transactions: 1, staking_apr: 0, referral_earnings: 0 });

    const balance = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expectSpecResponse(balance, 'getBalance');
    expect(balance.body).toEqual({
      user_id: u.id,
      balance: 1000,
      pending_balance: 0,
      available_balance: 1000,
      bonus_balance: 1000,
      transferable_balance: 0,
    });

    const tx = await stack.http.get(`/api/users/${u.id}/transactions?limit=50`).set(u.auth).expect(200);
    expectSpecResponse(tx, 'listTransactions');
    expect(tx.body.transactions).toEqual([
      expect.objectContaining({ type: 'welcome_bonus', direction: 'credit', amount: 1000, status: 'completed', description: 'Welcome bonus' }),
    ]);

    const me = await stack.http.get('/api/users/me').set(u.auth).expect(200);
    expect(me.body.user.token_balance).toBe(1000);

    const notes = await stack.http.get(`/api/users/${u.id}/notifications?limit=5`).set(u.auth).expect(200);
    expectSpecResponse(notes, 'listNotifications');
    expect(notes.body.unread_count).toBe(1);
    expect(notes.body.notifications[0]).toMatchObject({ type: 'welcome_bonus', read: false });
    const read = await stack.http.put(`/api/notifications/${notes.body.notifications[0].id}/read`).set(u.auth).expect(200);
    expectSpecResponse(read, 'markNotificationRead');
    expect(read.body.notification.read).toBe(true);
    const after = await stack.http.get(`/api/users/${u.id}/notifications`).set(u.auth).expect(200);
    expect(after.body.unread_count).toBe(0);
  });

  it('lists the four packages from one definition', async () => {
    const res = await stack.http.get('/api/wallet/packages').expect(200);
    expectSpecResponse(res, 'listPackages');
    expect(
      res.body.packages.map((p: { name: string; total_tokens: number; price: number; label: string | null }) => [
        p.name,
        p.total_tokens,
        p.price,
        p.label,
      ]),
    ).toEqual([
      ['Starter', 1000, 10, null],
      ['Basic', 5500, 45, null],
      ['Pro', 11500, 85, 'Most Popular'],
      ['Enterprise', 60000, 400, null],
    ]);
  });

  it('buys a package in test mode, credits it, and refuses a client price that disagrees (409)', async () => {
    const u = await newUser(stack, 'buyer');
    const res = await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'pro', amount: 11500, price: 85 }).expect(201);
    expectSpecResponse(res, 'purchaseTokens');
    expect(res.body).toMatchObject({ status: 'completed', test_mode: true, checkout_url: null, amount: 11500, balance: 12500 });
    expect(res.body.transaction).toMatchObject({ type: 'purchase', direction: 'credit', amount: 11500 });

    const wrong = await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'pro', amount: 11500, price: 80 }).expect(409);
    expectSpecResponse(wrong, 'purchaseTokens');
    await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'basic', amount: 5000, price: 45 }).expect(409);
    const bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body.balance).toBe(12500);
    const notes = await stack.http.get(`/api/users/${u.id}/notifications`).set(u.auth).expect(200);
    expect(notes.body.notifications.map((n: { type: string }) => n.type)).toEqual(['purchase_completed', 'welcome_bonus']);
  });

  it('transfers to another wallet: both sides in history, the receiver notified, exact to 0.001 GLOB', async () => {
    const a = await newUser(stack, 'alice');
    const b = await newUser(stack, 'bob');
    await buyStarter(stack, a);
    const res = await stack.http
      .post(`/api/wallet/${a.id}/transfer`)
      .set(a.auth)
      .send({ to_address: b.address, amount: 37.5, note: 'for the GPU time' })
      .expect(201);
    expectSpecResponse(res, 'transferTokens');
    expect(res.body.balance).toBe(1962.5);
    expect(res.body.transaction).toMatchObject({ type: 'transfer', direction: 'debit', amount: 37.5, counterparty: b.address });
    await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 0.001 }).expect(201);

    const bh = await stack.http.get(`/api/wallet/${b.id}/history?limit=20`).set(b.auth).expect(200);
    expectSpecResponse(bh, 'getWalletHistory');
    expect(bh.body.transactions.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'transfer', direction: 'credit', amount: 0.001, counterparty: a.address }),
      expect.objectContaining({
        id: res.body.transaction.id,
        direction: 'credit',
        amount: 37.5,
        description: expect.stringContaining('for the GPU time'),
      }),
    ]);
    const bb = await stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth).expect(200);
    // Received GLOB is the receiver's to move on; their own bonus stays a bonus.
    expect(bb.body).toMatchObject({ balance: 1037.501, bonus_balance: 1000, transferable_balance: 37.501 });
    const notes = await stack.http.get(`/api/users/${b.id}/notifications`).set(b.auth).expect(200);
    expect(notes.body.notifications[0]).toMatchObject({ type: 'transfer_received' });
    // Transfers are neither earnings nor spending.
    const stats = await stack.http.get(`/api/wallet/${a.id}/stats`).set(a.auth).expect(200);
    expectSpecResponse(stats, 'getWalletStats');
    expect(stats.body).toMatchObject({ total_earned: 1000, total_spent: 0, total_transactions: 4 });
  });

  it('never transfers the welcome bonus, but spends it on the network first; bought GLOB transfers', async () => {
    const a = await newUser(stack, 'farmer');
    const b = await newUser(stack, 'collector');
    const refused = await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 1 }).expect(402);
    expectSpecResponse(refused, 'transferTokens');
    expect(refused.body).toMatchObject({
      error: 'INSUFFICIENT_TOKENS',
      message:
        'Insufficient transferable balance: 0 GLOB can be transferred, 1 GLOB requested. The welcome bonus can be spent on the network but not transferred.',
    });
    // 20 parallel attempts to move it all get nothing through either.
    const flood = await Promise.all(
      Array.from({ length: 20 }, () => stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 50 })),
    );
    expect(flood.every((r) => r.status === 402)).toBe(true);

    await buyStarter(stack, a);
    await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 400 }).expect(201);
    // A hold for a reply uses the bonus first, so it does not shrink what can be transferred while the bonus covers it.
    const ledger = stack.app.get(LedgerService);
    const hold = await ledger.reserve(a.id, 300_000, 'AI reply', 'stream-bonus');
    let bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body).toMatchObject({ balance: 1600, pending_balance: 300, available_balance: 1300, bonus_balance: 1000, transferable_balance: 600 });
    await ledger.settle(hold.holdId, 250_000);
    bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body).toMatchObject({ balance: 1350, pending_balance: 0, bonus_balance: 750, transferable_balance: 600 });
    const more = await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 600.001 }).expect(402);
    expect(more.body.message).toContain('600 GLOB can be transferred');
    await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 600 }).expect(201);
    const wallet = await stack.http.get(`/api/wallet/${a.id}`).set(a.auth).expect(200);
    expectSpecResponse(wallet, 'getWallet');
    expect(wallet.body).toMatchObject({ balance: 750, bonus_balance: 750, transferable_balance: 0 });
    // Spending past the bonus takes bought GLOB only once the bonus is gone.
    const big = await ledger.reserve(a.id, 800_000, 'AI reply', 'stream-bonus-2');
    await ledger.settle(big.holdId, 750_000);
    bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body).toMatchObject({ balance: 0, bonus_balance: 0, transferable_balance: 0 });
    await expectReconciled(stack);
  });

  it.each([
    ['more than the balance', () => ({ amount: 5000 }), 402, 'INSUFFICIENT_TOKENS'],
    ['zero', () => ({ amount: 0 }), 400, undefined],
    ['more than three decimals', () => ({ amount: 1.0001 }), 400, undefined],
    ['an unknown address', () => ({ amount: 1, to_address: `glb1${'0'.repeat(38)}` }), 404, undefined],
    ['a malformed address', () => ({ amount: 1, to_address: 'glb1xyz' }), 400, undefined],
  ])('refuses a transfer of %s', async (_what, body, status, error) => {
    const a = await newUser(stack, 'payer');
    const b = await newUser(stack, 'payee');
    const res = await stack.http
      .post(`/api/wallet/${a.id}/transfer`)
      .set(a.auth)
      .send({ to_address: b.address, ...body() });
    expect(res.status).toBe(status);
    expectSpecResponse(res, 'transferTokens');
    if (error) expect(res.body.error).toBe(error);
    if (status === 402) expect(res.body.message).toMatch(/insufficient tokens/i);
    const bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body.balance).toBe(1000);
  });

  it("refuses a transfer to a deleted account's address (404) and moves nothing", async () => {
    const a = await newUser(stack, 'giver');
    const gone = await newUser(stack, 'gone');
    await buyStarter(stack, a);
    const otp = await stack.app.get(CodesService).issue(gone.email, 'deletion');
    await stack.http.delete('/api/users/auth/delete-account').send({ email: gone.email, otp }).expect(200);
    const res = await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: gone.address, amount: 10 }).expect(404);
    expectSpecResponse(res, 'transferTokens');
    expect(res.body.message).toBe(`No wallet found with address ${gone.address}`);
    const bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body.balance).toBe(2000);
  });

  it('several accounts of one person sending each other their bonus at once: every transfer refused, batched or not, nothing moved', async () => {
    // Welcome bonus only: three accounts, 60 transfers in flight in a ring, so they are written in batches together.
    const users = await Promise.all(['ring-a', 'ring-b', 'ring-c'].map((name) => newUser(stack, name)));
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const [from, to] = [users[i % 3]!, users[(i + 1) % 3]!];
        return stack.http.post(`/api/wallet/${from.id}/transfer`).set(from.auth).send({ to_address: to.address, amount: 1 });
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(60).fill(402));
    const balances = await Promise.all(users.map((u) => stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)));
    for (const b of balances) expect([b.body.balance, b.body.bonus_balance, b.body.transferable_balance]).toEqual([1000, 1000, 0]);
  });

  it('refuses a transfer to oneself (422)', async () => {
    const a = await newUser(stack, 'self');
    const res = await stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: a.address, amount: 1 }).expect(422);
    expectSpecResponse(res, 'transferTokens');
    expect(res.body.message).toBe('Cannot transfer to your own wallet');
  });

  it("answers 403 for another user's wallet, transactions and notifications, and 404 for their notification", async () => {
    const a = await newUser(stack, 'owner');
    const m = await newUser(stack, 'mallory');
    const reads: Array<[string, string]> = [
      [`/api/wallet/${a.id}`, 'getWallet'],
      [`/api/wallet/${a.id}/balance`, 'getBalance'],
      [`/api/wallet/${a.id}/stats`, 'getWalletStats'],
      [`/api/wallet/${a.id}/history`, 'getWalletHistory'],
      [`/api/wallet/${a.id}/earnings?days=30`, 'getEarnings'],
      [`/api/users/${a.id}/transactions`, 'listTransactions'],
      [`/api/users/${a.id}/notifications`, 'listNotifications'],
    ];
    for (const [path, op] of reads) {
      const res = await stack.http.get(path).set(m.auth).expect(403);
      expectSpecResponse(res, op);
      expect(JSON.stringify(res.body)).not.toContain(a.address);
    }
    for (const [method, path] of [
      ['post', `/api/wallet/${a.id}/transfer`],
      ['post', `/api/wallet/${a.id}/purchase`],
    ] as const) {
      const body = path.endsWith('transfer') ? { to_address: m.address, amount: 1 } : { package_id: 'starter', amount: 1000, price: 10 };
      await stack.http[method](path).set(m.auth).send(body).expect(403);
    }
    const notes = await stack.http.get(`/api/users/${a.id}/notifications`).set(a.auth).expect(200);
    const res = await stack.http.put(`/api/notifications/${notes.body.notifications[0].id}/read`).set(m.auth).expect(404);
    expectSpecResponse(res, 'markNotificationRead');
  });

  it('serves a per-day earnings series with zeros and pages history with a cursor', async () => {
    const u = await newUser(stack, 'earner');
    const res = await stack.http.get(`/api/wallet/${u.id}/earnings?days=7`).set(u.auth).expect(200);
    expectSpecResponse(res, 'getEarnings');
    expect(res.body.days).toBe(7);
    expect(res.body.earnings).toHaveLength(7);
    expect(res.body.earnings.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(res.body.total).toBe(0);
    await stack.http.get(`/api/wallet/${u.id}/earnings?days=366`).set(u.auth).expect(400);

    const other = await newUser(stack, 'friend');
    await buyStarter(stack, u);
    for (let i = 1; i <= 3; i++)
      await stack.http.post(`/api/wallet/${u.id}/transfer`).set(u.auth).send({ to_address: other.address, amount: i }).expect(201);
    const p1 = await stack.http.get(`/api/users/${u.id}/transactions?limit=2`).set(u.auth).expect(200);
    expect(p1.body.transactions.map((t: { amount: number }) => t.amount)).toEqual([3, 2]);
    const p2 = await stack.http.get(`/api/users/${u.id}/transactions?limit=3&cursor=${p1.body.next_cursor}`).set(u.auth).expect(200);
    expect(p2.body.transactions.map((t: { amount: number; type: string }) => [t.amount, t.type])).toEqual([
      [1, 'transfer'],
      [1000, 'purchase'],
      [1000, 'welcome_bonus'],
    ]);
    expect(p2.body.next_cursor).toBeNull();
    await stack.http.get(`/api/users/${u.id}/transactions?cursor=garbage`).set(u.auth).expect(400);
  });

  it('reserves, settles and releases holds exactly', async () => {
    const u = await newUser(stack, 'holder');
    const ledger = stack.app.get(LedgerService);
    const h1 = await ledger.reserve(u.id, 300_000, 'AI reply', 'stream-1');
    expect(h1.reserved).toBe(300_000);
    let bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body).toMatchObject({ balance: 1000, pending_balance: 300, available_balance: 700 });
    const h2 = await ledger.reserve(u.id, 5_000_000, 'AI reply', 'stream-2');
    expect(h2.reserved).toBe(700_000); // no more than what is free
    await expect(ledger.reserve(u.id, 1, 'AI reply', 'stream-3')).rejects.toThrow(/insufficient tokens/);
    await ledger.settle(h1.holdId, 12_345);
    await ledger.settle(h1.holdId, 12_345); // settling twice charges once
    await ledger.release(h2.holdId);
    bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body).toMatchObject({ balance: 987.655, pending_balance: 0, available_balance: 987.655 });
    const tx = await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200);
    expect(tx.body.transactions.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'spending', status: 'failed', reference: 'stream-2' }),
      expect.objectContaining({ type: 'spending', status: 'completed', amount: 12.345, direction: 'debit', reference: 'stream-1' }),
    ]);
    const stats = await stack.http.get(`/api/wallet/${u.id}/stats`).set(u.auth).expect(200);
    expect(stats.body.total_spent).toBe(12.345);
    await expectReconciled(stack);
  });

  it("settles a reply's charge and its rewards share in one statement: exact, once however often at once, never beyond the hold", async () => {
    const u = await newUser(stack, 'reply-payer');
    await buyStarter(stack, u); // 2000 GLOB, 1000 of them welcome bonus
    const ledger = stack.app.get(LedgerService);
    const rewards = stack.app.get(RewardsService);
    const transactions = stack.app.get(Transactions);
    const wallet = (await ledger.walletOf(u.id)).id;
    const [spending, rewardsAccount] = [await ledger.platformAccount('platform:spending'), await ledger.platformAccount('platform:rewards')];
    const platform = async (id: string) =>
      Number(((await stack.db.query(`SELECT balance FROM ledger_accounts WHERE id = $1`, [id])) as Array<{ balance: string }>)[0]!.balance);
    const spendingBefore = await platform(spending);

    // Five settlements of one hold at once: one charges (the bonus first, then bought GLOB), the rest of the hold is released.
    const hold = await ledger.reserve(u.id, 1_500_000, 'AI reply', 'stream-share');
    const taskId = randomUUID();
    const charged = await Promise.all(
      Array.from({ length: 5 }, () => transactions.run((tx) => rewards.settleCharge(hold.holdId, 1_100_000, taskId, tx))),
    );
    expect(charged.sort((a, b) => a - b)).toEqual([0, 0, 0, 0, 1_100_000]);
    expect(await ledger.walletOf(u.id)).toMatchObject({ balance: 900_000, held: 0, bonus: 0 });
    const share = Math.floor((1_100_000 * stack.config.rewards.sharePercent) / 100);
    expect(share).toBeGreaterThan(0);
    // Two balanced transactions, as when they were two statements: the completed hold, then the share it funds.
    const entries = (await stack.db.query(
      `SELECT t.type, t.status, t.amount::int, e.account_id, e.amount::int AS entry, e.bonus::int FROM ledger_transactions t
       JOIN ledger_entries e ON e.transaction_id = t.id WHERE t.id = $1 OR (t.type = 'reward' AND t.reference = $2) ORDER BY t.type, e.amount`,
      [hold.holdId, taskId],
    )) as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.type, e.status, e.amount, e.account_id, e.entry, e.bonus])).toEqual([
      ['reward', 'completed', share, spending, -share, 0],
      ['reward', 'completed', share, rewardsAccount, share, 0],
      ['spending', 'completed', 1_100_000, wallet, -1_100_000, -1_000_000],
      ['spending', 'completed', 1_100_000, spending, 1_100_000, 0],
    ]);
    expect(await platform(spending)).toBe(spendingBefore + 1_100_000 - share);

    // Asked for more than its hold, a settlement charges the hold and not a unit beyond: the payer has nothing else.
    const all = await ledger.reserve(u.id, 5_000_000, 'AI reply', 'stream-all');
    expect(all.reserved).toBe(900_000);
    expect(await transactions.run((tx) => rewards.settleCharge(all.holdId, 5_000_000, randomUUID(), tx))).toBe(900_000);
    expect(await ledger.walletOf(u.id)).toMatchObject({ balance: 0, held: 0, bonus: 0 });

    // Written as a statement the services never send, a hold charging more than it reserves from a payer with
    // nothing free is refused, and nothing of it is written.
    const v = await newUser(stack, 'overdraw');
    const [vWallet, vHold] = [(await ledger.walletOf(v.id)).id, await ledger.reserve(v.id, 5_000_000, 'AI reply', 'stream-over')];
    expect(vHold.reserved).toBe(1_000_000);
    const over = await transactions.run((tx) =>
      stack.app.get(LedgerRepository).post(
        [
          {
            id: vHold.holdId,
            hold: true,
            type: 'spending',
            amount: 1_000_001,
            description: '',
            reference: null,
            lines: [
              { accountId: vWallet, amount: -1_000_001, bonus: null, release: 1_000_000 },
              { accountId: spending, amount: 1_000_001, bonus: 0, release: 0 },
            ].sort((a, b) => a.accountId.localeCompare(b.accountId)),
          },
        ],
        tx,
      ),
    );
    expect(over).toMatchObject({ ok: false, refused: [vWallet] });
    // A settlement whose rewards share cannot be paid is refused whole: the hold stays pending, then is released.
    await expect(
      transactions.run((tx) =>
        ledger.settleWith(
          vHold.holdId,
          500_000,
          () => [
            {
              type: 'reward',
              description: 'more than spending holds',
              reference: randomUUID(),
              lines: [
                { accountId: spending, amount: -1_000_000_000_000_000 },
                { accountId: rewardsAccount, amount: 1_000_000_000_000_000 },
              ],
            },
          ],
          tx,
        ),
      ),
    ).rejects.toThrow(/insufficient/i);
    expect(await ledger.walletOf(v.id)).toMatchObject({ balance: 1_000_000, held: 1_000_000, bonus: 1_000_000 });
    await ledger.release(vHold.holdId);
    expect(await ledger.walletOf(v.id)).toMatchObject({ balance: 1_000_000, held: 0, bonus: 1_000_000 });
    await expectReconciled(stack);
    expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
  }, 60_000);
});

describe('wallet under concurrency', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { WELCOME_BONUS_GLOB: '0', DATABASE_POOL_SIZE: '10' } });
  });
  afterAll(async () => {
    await expectReconciled(stack);
    await stack.close();
  });

  it('50 parallel spends of 100 against 1000: exactly 10 succeed, balance 0', async () => {
    const a = await newUser(stack, 'spender');
    const b = await newUser(stack, 'sink');
    await buyStarter(stack, a);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 100 })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(40);
    const bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body.balance).toBe(0);
    const bb = await stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth).expect(200);
    expect(bb.body.balance).toBe(1000);
  });

  it('2×500 opposite transfers between two wallets end where they started, without deadlock', async () => {
    const a = await newUser(stack, 'ping');
    const b = await newUser(stack, 'pong');
    await Promise.all([buyStarter(stack, a), buyStarter(stack, b)]);
    // 1,000 transfers, 40 in flight at any moment, alternating directions: opposite transfers constantly
    // lock the same two rows at once.
    const jobs = Array.from(
      { length: 1000 },
      (_, i) => () =>
        i % 2 === 0
          ? stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 1 })
          : stack.http.post(`/api/wallet/${b.id}/transfer`).set(b.auth).send({ to_address: a.address, amount: 1 }),
    );
    const results: Array<{ status: number }> = [];
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        for (let job = jobs.shift(); job; job = jobs.shift()) results.push(await job());
      }),
    );
    expect(results).toHaveLength(1000);
    expect(results.filter((r) => r.status >= 500)).toHaveLength(0);
    expect(results.every((r) => r.status === 201)).toBe(true);
    const [ba, bb] = await Promise.all([
      stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth),
      stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth),
    ]);
    expect([ba.body.balance, bb.body.balance]).toEqual([1000, 1000]);
  }, 120_000);

  it('a batch with one transfer the sender cannot pay: the others are written, that one is refused alone', async () => {
    const a = await newUser(stack, 'payer');
    const poor = await newUser(stack, 'poor');
    const b = await newUser(stack, 'payee');
    await buyStarter(stack, a);
    const before = (await stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth).expect(200)).body.balance as number;
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).send({ to_address: b.address, amount: 1 })),
      stack.http.post(`/api/wallet/${poor.id}/transfer`).set(poor.auth).send({ to_address: b.address, amount: 1 }),
    ]);
    expect(results.map((r) => r.status)).toEqual([...Array(20).fill(201), 402]);
    const bal = await stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth).expect(200);
    expect(bal.body.balance).toBe(before + 20);
  });

  it('transfers written in one statement: each checked after the ones before it, all of them or none', async () => {
    const a = await newUser(stack, 'first');
    const b = await newUser(stack, 'second');
    await buyStarter(stack, b);
    const ledger = stack.app.get(LedgerService);
    const transactions = stack.app.get(Transactions);
    const [wa, wb] = [await ledger.walletOf(a.id), await ledger.walletOf(b.id)];
    const transfer = (from: { id: string }, to: { id: string }, units: number) => ({
      id: randomUUID(),
      type: 'transfer' as const,
      description: 'batched',
      lines: [
        { accountId: from.id, amount: -units },
        { accountId: to.id, amount: units },
      ],
    });
    // a pays before it is paid: the first posting is refused, so nothing of the two is written.
    expect(await transactions.run((tx) => ledger.tryPostMany([transfer(wa, wb, 5_000), transfer(wb, wa, 5_000)], tx))).toBeNull();
    // a is paid first, then pays part of it on: both written, each answering the balances it left.
    const posted = await transactions.run((tx) => ledger.tryPostMany([transfer(wb, wa, 5_000), transfer(wa, wb, 3_000)], tx));
    expect(posted!.map((p) => [p.after.get(wa.id)!.balance, p.after.get(wb.id)!.balance])).toEqual([
      [5_000, 995_000],
      [2_000, 998_000],
    ]);
    const history = await stack.http.get(`/api/users/${a.id}/transactions`).set(a.auth).expect(200);
    // One database transaction: both have its time, so their order in the history is not told apart.
    expect(history.body.transactions.map((t: { amount: number; direction: string }) => `${t.direction} ${t.amount}`).sort()).toEqual([
      'credit 5',
      'debit 3',
    ]);
    const [ba, bb] = await Promise.all([
      stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200),
      stack.http.get(`/api/wallet/${b.id}/balance`).set(b.auth).expect(200),
    ]);
    expect([ba.body.balance, bb.body.balance]).toEqual([2, 998]);
    await expectReconciled(stack);
  });

  it('the same Idempotency-Key 20 times in parallel: one effect, identical responses; another body is 422', async () => {
    const a = await newUser(stack, 'retry');
    const b = await newUser(stack, 'target');
    await buyStarter(stack, a);
    const send = (amount: number) =>
      stack.http.post(`/api/wallet/${a.id}/transfer`).set(a.auth).set('Idempotency-Key', 'order-42').send({ to_address: b.address, amount });
    const results = await Promise.all(Array.from({ length: 20 }, () => send(7)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const bal = await stack.http.get(`/api/wallet/${a.id}/balance`).set(a.auth).expect(200);
    expect(bal.body.balance).toBe(993);
    const clash = await send(8).expect(422);
    expectSpecResponse(clash, 'transferTokens');
    expect(clash.body.message).toBe('This Idempotency-Key was already used with a different request body');
  });
});

describe('wallet without a payment provider', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { PAYMENTS_TEST_MODE: 'false' } });
  });
  afterAll(async () => {
    await expectReconciled(stack);
    await stack.close();
  });

  it('refuses purchases (503) and credits nothing, however many arrive at once', async () => {
    const u = await newUser(stack, 'freeloader');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'enterprise', amount: 60000, price: 400 }),
      ),
    );
    for (const r of results) {
      expect(r.status).toBe(503);
      expectSpecResponse(r, 'purchaseTokens');
      expect(r.body.message).toBe('Purchases are not available right now: no payment provider is configured.');
    }
    const bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body.balance).toBe(1000);
    const rows = (await stack.db.query(`SELECT count(*)::int AS n FROM purchases`)) as Array<{ n: number }>;
    expect(rows[0]!.n).toBe(0);
  });
});

describe('wallet with Stripe', () => {
  let stack: TestStack;
  let stripeApi: Server;
  const sessions: Array<Record<string, string>> = [];
  const webhookSecret = 'whsec_test_secret';
  const stripe = new Stripe('sk_test_dummy');

  beforeAll(async () => {
    // Stripe's API is a third-party edge: a local stand-in answers checkout.sessions.create.
    stripeApi = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const params = Object.fromEntries(new URLSearchParams(body));
        sessions.push(params);
        const id = `cs_test_${sessions.length}`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id,
            object: 'checkout.session',
            url: `https://checkout.stripe.com/c/pay/${id}`,
            client_reference_id: params.client_reference_id,
          }),
        );
      });
    });
    await new Promise<void>((r) => stripeApi.listen(0, '127.0.0.1', r));
    stack = await startStack({
      env: {
        STRIPE_SECRET_KEY: 'sk_test_dummy',
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_BASE: `http://127.0.0.1:${(stripeApi.address() as AddressInfo).port}`,
      },
    });
  });
  afterAll(async () => {
    await expectReconciled(stack);
    await stack.close();
    await new Promise<void>((r) => stripeApi.close(() => r()));
  });

  const deliver = (payload: object, secret = webhookSecret) => {
    const body = JSON.stringify(payload);
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    return stack.http.post('/api/payments/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', header).send(body);
  };

  it('creates a Checkout session, then credits exactly once however often Stripe delivers the event', async () => {
    const u = await newUser(stack, 'stripe');
    const res = await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'basic', amount: 5500, price: 45 }).expect(201);
    expectSpecResponse(res, 'purchaseTokens');
    expect(res.body).toMatchObject({ status: 'pending', test_mode: false, transaction: null, balance: 1000 });
    expect(res.body.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(sessions.at(-1)).toMatchObject({
      mode: 'payment',
      client_reference_id: res.body.purchase_id,
      'line_items[0][price_data][unit_amount]': '4500',
    });

    const event = {
      id: 'evt_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { id: 'cs_test_1', object: 'checkout.session', client_reference_id: res.body.purchase_id, payment_status: 'paid' } },
    };
    const deliveries = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
    for (const d of deliveries) {
      expect(d.status).toBe(200);
      expectSpecResponse(d, 'stripeWebhook');
    }
    const bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body.balance).toBe(6500);
  });

  it('refuses an event with a bad signature (400) and credits nothing', async () => {
    const u = await newUser(stack, 'forger');
    const res = await stack.http
      .post(`/api/wallet/${u.id}/purchase`)
      .set(u.auth)
      .send({ package_id: 'starter', amount: 1000, price: 10 })
      .expect(201);
    const event = {
      id: 'evt_2',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { client_reference_id: res.body.purchase_id, payment_status: 'paid' } },
    };
    const bad = await deliver(event, 'whsec_wrong').expect(400);
    expectSpecResponse(bad, 'stripeWebhook');
    expect(bad.body.message).toBe('Invalid Stripe signature');
    const bal = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(bal.body.balance).toBe(1000);
  });
});
