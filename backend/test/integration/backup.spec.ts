import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDatabase, databaseUrl, dropDatabase, randomName } from '@glob/testing';
import { Client } from 'pg';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, type WorkerProcess } from '../support/worker';

const root = resolve(__dirname, '..', '..', '..');
const MODEL = 'glob-tiny-chat';
/** Put into every URL the commands get; trust authentication ignores it, and no output may show it. */
const PASSWORD = 'not-for-the-logs-4711';
type User = Awaited<ReturnType<typeof newUser>>;
type Tx = { id: string; type: string; status: string; amount: string; entries: string };

const withPassword = (url: string) => {
  const u = new URL(url);
  u.password = PASSWORD;
  return u.toString();
};

/** `npm run <script> -- <args>` from the repository root, as an operator runs it; resolves with its exit code and output. */
async function npmRun(script: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, output };
}

/** The completed ledger transactions of a database, each with its entries (account and amount) in a canonical order. */
async function completedTransactions(url: string): Promise<Map<string, Tx>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Tx>(
      `SELECT t.id, t.type, t.status, t.amount::text AS amount,
              string_agg(e.account_id || ' ' || e.amount, ', ' ORDER BY e.account_id, e.amount) AS entries
       FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
       WHERE t.status = 'completed' GROUP BY t.id`,
    );
    return new Map(rows.map((r) => [r.id, r]));
  } finally {
    await client.end();
  }
}

describe('db:backup and db:restore while the platform runs', () => {
  let stack: TestStack;
  let worker: WorkerProcess | undefined;
  let senders: User[];
  let chatters: User[];
  let dir: string;
  const target = `${process.env.GLOB_TEST_TEMPLATE_DB}_${randomName('restore')}`.slice(0, 63);

  beforeAll(async () => {
    stack = await startStack();
    const provider = await newUser(stack, 'provider');
    worker = await startWorker(stack, { WORKER_OWNER_EMAIL: provider.email }, `backup-worker-${Date.now()}`);
    senders = [];
    for (let i = 0; i < 4; i++) senders.push(await newUser(stack, `sender${i}`));
    // Bought GLOB can be sent (the welcome bonus cannot).
    for (const u of senders) {
      await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    }
    chatters = [await newUser(stack, 'chatter0'), await newUser(stack, 'chatter1')];
    dir = await mkdtemp(join(tmpdir(), 'glob-backup-'));
    await createDatabase(target);
  }, 120_000);

  afterAll(async () => {
    try {
      await worker?.stop();
      await dropDatabase(target);
    } finally {
      // The source's ledger reconciles after the load too (ledger:check), then the stack, its database and the dump go.
      await closeChecked(stack, dir);
    }
  }, 60_000);

  it('takes a consistent snapshot under load: every transaction completed before it is restored as it was, and the copy reconciles', async () => {
    let running = true;
    const done = { transfers: 0, replies: 0 };
    // Each sender pays the next one, in a ring, amounts to the milli-GLOB.
    const transfers = senders.map(async (u, i) => {
      const to = senders[(i + 1) % senders.length]!;
      for (let n = 1; running; n++) {
        await stack.http
          .post(`/api/wallet/${u.id}/transfer`)
          .set(u.auth)
          .send({ to_address: to.address, amount: ((n % 9) * 1000 + 125 * (i + 1) + 1) / 1000, note: `load ${n}` })
          .expect(201);
        done.transfers++;
      }
    });
    // Replies through the real worker: holds opened, settled, charged and rewarded while the dump runs.
    let seq = 0;
    const replies = chatters.map(async (u) => {
      while (running) {
        const res = await startReply(stack, u.auth, {
          streamId: `s_backup_${Date.now().toString(36)}_${++seq}`,
          modelId: MODEL,
          prompt: 'Tell me about backups',
          params: { max_tokens: 12 },
        });
        expect(res.status).toBe(200);
        expect((await readSse(res)).at(-1)!.data).toMatchObject({ type: 'done' });
        done.replies++;
      }
    });
    const load = Promise.all([...transfers, ...replies]);
    try {
      const warm = Date.now() + 30_000;
      while ((done.transfers < 20 || done.replies < 2) && Date.now() < warm) await new Promise((r) => setTimeout(r, 50));
      expect(done.replies).toBeGreaterThanOrEqual(2);

      const before = await completedTransactions(stack.config.database.url);
      const atStart = { ...done };
      const file = join(dir, 'under-load.dump');
      const backup = await npmRun('db:backup', [file], { DATABASE_URL: withPassword(stack.config.database.url) });
      expect(backup).toMatchObject({ code: 0 });
      expect(backup.output).toContain(`Backup written: ${file} (`);
      expect(backup.output).not.toContain(PASSWORD);
      // The platform kept working while the dump ran.
      expect(done.transfers).toBeGreaterThan(atStart.transfers);

      // The load goes on a little after the backup, then stops.
      const after = done.transfers + 10;
      while (done.transfers < after) await new Promise((r) => setTimeout(r, 50));
      running = false;
      await load;

      const restored = await npmRun('db:restore', [file, '--target', withPassword(databaseUrl(target))]);
      expect(restored.output).toMatch(/Ledger reconciles: \d+ accounts, \d+ transactions\./);
      expect(restored).toMatchObject({ code: 0 });
      expect(restored.output).not.toContain(PASSWORD);

      const copy = await completedTransactions(databaseUrl(target));
      const source = await completedTransactions(stack.config.database.url);
      expect(before.size).toBeGreaterThan(senders.length + chatters.length + 20);
      for (const tx of before.values()) expect(copy.get(tx.id)).toEqual(tx);
      // Nothing in the copy that the source does not have, as it has it; what came after the snapshot is not in it.
      for (const tx of copy.values()) expect(source.get(tx.id)).toEqual(tx);
      expect(copy.size).toBeLessThan(source.size);
    } finally {
      running = false;
      await load.catch(() => undefined);
    }
  }, 180_000);

  it('refuses to restore into a database that has tables, unless --clean', async () => {
    const file = join(dir, 'again.dump');
    expect(await npmRun('db:backup', [file], { DATABASE_URL: stack.config.database.url })).toMatchObject({ code: 0 });
    const count = async () => (await completedTransactions(databaseUrl(target))).size;
    const unchanged = await count();

    const refused = await npmRun('db:restore', [file, '--target', withPassword(databaseUrl(target))]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/already has \d+ table\(s\); refusing to restore over them/);
    expect(refused.output).not.toContain(PASSWORD);
    expect(await count()).toBe(unchanged);

    const replaced = await npmRun('db:restore', [file, '--target', databaseUrl(target), '--clean']);
    expect(replaced.output).toMatch(/Ledger reconciles/);
    expect(replaced.code).toBe(0);
    expect(await count()).toBe((await completedTransactions(stack.config.database.url)).size);
  }, 120_000);
});
