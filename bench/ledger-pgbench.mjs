#!/usr/bin/env node
// The ledger against PostgreSQL's own pace: transfers/s and holds + settlements/s at 1, 8 and 32 clients through the
// built backend's services in this process (WalletService.transfer, group commit included; LedgerService.reserve then
// RewardsService.settleCharge, as bench/wallet-holds.mjs runs them), side by side with pgbench running the very
// statements those services issued (captured by wrapping pg's Client.prototype.query while two operations of each kind
// ran), with the same parameters, at the same number of clients, and beside them the same statements run by plain pg
// clients in this process (node-pg: what Node.js and the driver cost without the services), alternating round by round.
// With the API (default; --no-api skips it) the same transfers through a real API process (autocannon, as
// bench/wallet.mjs) for what HTTP adds. Then `ledger:check` on the database, which is dropped. Prints; asserts nothing.
// With --statements, each statement's mean latency at 1 client on both sides (pgbench -r), to see where a gap is.
// --dir DIR: another copy of the repository whose built backend runs instead (as bench/wallet.mjs's --prev).
// Usage: node bench/ledger-pgbench.mjs [seconds=4] [rounds=2] [--no-api] [--statements] [--dir DIR] [--pgbench /usr/bin/pgbench]
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUser, root, startBackend, table } from './lib.mjs';

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 1).length > 0 : false;
};
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const withApi = !flag('--no-api');
const perStatement = flag('--statements');
const pgbenchBin = option('--pgbench', '/usr/bin/pgbench');
const dir = option('--dir', root);
const seconds = Number(args[0] ?? 4);
const rounds = Number(args[1] ?? 2);
const CLIENTS = [1, 8, 32];
const HOLD = 600; // a reply's hold (units), as bench/wallet-holds.mjs
const USED = 350; // what the reply used

// As bench/wallet.mjs (test-mode purchases fund the senders), and no welcome bonus: a settlement's bonus part is
// computed from the locked wallet, which a fixed pgbench parameter could not follow once the bonus ran out.
const env = {
  NODE_ENV: 'development',
  PAYMENTS_TEST_MODE: 'true',
  LOG_LEVEL: 'log',
  DATABASE_POOL_SIZE: '20',
  VALIDATE_RESPONSES: 'false',
  WELCOME_BONUS_GLOB: '0',
};

const backend = await startBackend(env, { dir });
let ctx;
const work = mkdtempSync(join(tmpdir(), 'ledger-pgbench-'));
try {
  const [alice, bob, carol] = [await benchUser(backend, 'alice'), await benchUser(backend, 'bob'), await benchUser(backend, 'carol')];
  for (const u of [alice, carol]) {
    const res = await fetch(`${backend.base}/api/wallet/${u.id}/purchase`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...u.auth },
      body: JSON.stringify({ package_id: 'enterprise', amount: 60000, price: 400 }),
    });
    if (res.status !== 201) throw new Error(`purchase answered ${res.status}: ${await res.text()}`);
  }

  // The built backend's services in this process, on the bench database, with the API's own pool settings.
  Object.assign(process.env, backend.env);
  const req = createRequire(join(dir, 'backend', 'package.json'));
  req('reflect-metadata');
  const pg = req('pg');
  const { prepareValue } = req('pg/lib/utils');
  const { Module } = req('@nestjs/common');
  const { NestFactory } = req('@nestjs/core');
  const dist = (p) => req(join(dir, 'backend/dist', p));
  const { CoreModule } = dist('app.module.js');
  const { RewardsModule } = dist('modules/rewards/rewards.module.js');
  const { WalletModule } = dist('modules/wallet/wallet.module.js');
  const { WalletService } = dist('modules/wallet/wallet.service.js');
  const { LedgerService } = dist('modules/wallet/ledger.service.js');
  const { RewardsService } = dist('modules/rewards/rewards.service.js');
  const { Transactions } = dist('database/repository.js');
  const { loadConfig } = dist('config/config.js');
  class LedgerBench {}
  Module({ imports: [CoreModule.forRoot(loadConfig()), WalletModule, RewardsModule] })(LedgerBench);
  ctx = await NestFactory.createApplicationContext(LedgerBench, { logger: ['error'] });
  const wallet = ctx.get(WalletService);
  const ledger = ctx.get(LedgerService);
  const rewards = ctx.get(RewardsService);
  const transactions = ctx.get(Transactions);

  const ops = {
    transfers: () => wallet.transfer(alice.id, alice.id, { to_address: bob.address, amount: 0.001 }),
    'holds + settlements': async () => {
      const { holdId } = await ledger.reserve(carol.id, HOLD, 'AI reply (bench)', `bench_${randomUUID()}`);
      await transactions.run((tx) => rewards.settleCharge(holdId, USED, randomUUID(), tx));
    },
  };

  // Every statement an operation sends, as pg receives it: its text, its parameters as sent, its first row back.
  let captured = null;
  // At 1 client with --statements: each statement's latency by its place in the operation.
  let timing = null;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const t = performance.now();
    const result = query.call(this, config, values, callback);
    const tm = timing;
    if (tm && result && typeof result.then === 'function') {
      const at = tm.next++;
      result.then(
        () => (tm.sums[at] = (tm.sums[at] ?? 0) + performance.now() - t),
        () => {},
      );
    }
    if (captured && typeof config === 'string' && result && typeof result.then === 'function') {
      const statement = { text: config, values: (values ?? []).map((v) => prepareValue(v)), row: undefined };
      captured.push(statement);
      result.then(
        (r) => (statement.row = r?.rows?.[0]),
        () => {},
      );
    }
    return result;
  };
  const capture = async (op) => {
    captured = [];
    await op();
    const out = captured;
    captured = null;
    return out;
  };

  /**
   * How to run again the statements that `a` and `b` (two runs of one operation) sent, each parameter being: the same
   * in both runs (a constant); a value an earlier statement answered (read from its row); fresh uuids where they are
   * cast as such (new transactions' ids, made anew each time), in an array each element either read from an earlier
   * answer (a settlement's postings: the hold it completes, then its rewards share's new id) or fresh; anything else
   * that differs (a stream id, a task id in a description, a notification's data) run a's value.
   */
  function plan(name, a, b) {
    if (a.length !== b.length || a.some((s, i) => s.text !== b[i].text)) throw new Error(`${name}: the two runs sent different statements`);
    const chainOf = (i, va, vb) => {
      for (let k = i - 1; k >= 0; k--) {
        const col = Object.keys(a[k].row ?? {}).find((c) => String(a[k].row[c]) === va && String(b[k].row?.[c]) === vb);
        if (col) return { kind: 'chain', from: k, col };
      }
      return null;
    };
    return a.map((s, i) => ({
      text: s.text,
      params: s.values.map((va, j) => {
        const vb = b[i].values[j];
        if (va === vb) return va === null ? { kind: 'null' } : { kind: 'const', value: va };
        const chain = chainOf(i, va, vb);
        if (chain) return chain;
        const [ia, ib] = [uuids(va), uuids(vb)];
        if (ia && ib?.length === ia.length && new RegExp(`\\$${j + 1}::uuid`).test(s.text)) {
          // In SQL each occurrence would make its own: one only.
          if (s.text.match(new RegExp(`\\$${j + 1}(?!\\d)`, 'g')).length !== 1)
            throw new Error(`${name}: fresh ids $${j + 1} used twice in statement ${i}`);
          if (!Array.isArray(ia)) return { kind: 'fresh' };
          return { kind: 'ids', items: ia.map((x, n) => chainOf(i, x, ib[n]) ?? { kind: 'fresh' }) };
        }
        return { kind: 'const', value: va };
      }),
    }));
  }

  /** One uuid (a string), or an array of uuids (as pg sends them), else null. */
  function uuids(value) {
    const uuid = /^"?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"?$/;
    if (typeof value !== 'string') return null;
    if (uuid.test(value)) return value;
    const items = /^\{(.*)\}$/.exec(value)?.[1].split(',');
    return items?.every((x) => uuid.test(x)) ? items.map((x) => uuid.exec(x)[1]) : null;
  }

  /**
   * The plan as a pgbench script: constants are variables set with -D, answers are read with \gset, fresh uuids are the
   * server's gen_random_uuid(), a null is NULL.
   */
  function pgbenchScript(name, steps) {
    const defines = [];
    const chains = (s) => s.params.flatMap((p) => (p.kind === 'ids' ? p.items : [p])).filter((p) => p.kind === 'chain');
    const chained = new Set(steps.flatMap((s) => chains(s).map((p) => p.from)));
    const lines = steps.map((s, i) => {
      if (/[;\\]/.test(s.text) || /(^|[^:]):[A-Za-z_]/.test(s.text)) throw new Error(`${name}: statement ${i} cannot go into a pgbench script`);
      const text = s.text.replace(/\$(\d+)(?!\d)/g, (_, n) => {
        const j = Number(n) - 1;
        const p = s.params[j];
        if (p.kind === 'null') return 'NULL';
        if (p.kind === 'chain') return `:g${p.from}_${p.col}`;
        if (p.kind === 'fresh') return 'gen_random_uuid()';
        if (p.kind === 'ids')
          return `ARRAY[${p.items.map((x) => (x.kind === 'chain' ? `:g${x.from}_${x.col}::uuid` : 'gen_random_uuid()')).join(', ')}]`;
        defines.push(`s${i}_${j}=${p.value}`);
        return `:s${i}_${j}`;
      });
      const sql = text.replace(/\s*\n\s*/g, '\n  ');
      return chained.has(i) ? `${sql} \\gset g${i}_` : `${sql};`;
    });
    const script = lines.join('\n') + '\n';
    const file = join(work, `${name.replace(/\W+/g, '-')}.sql`);
    writeFileSync(file, script);
    return { file, defines: [...new Set(defines)], statements: steps.length, script };
  }

  const scripts = {};
  const plans = {};
  for (const [what, op] of Object.entries(ops)) {
    await op(); // the first run fills the services' caches (platform account ids)
    const a = await capture(op);
    const b = await capture(op);
    plans[what] = plan(what, a, b);
    scripts[what] = pgbenchScript(what, plans[what]);
    console.error(`\n${what}: ${a.length} statements per operation, as pgbench runs them (${scripts[what].file}):\n${scripts[what].script}`);
  }
  const dbUrl = new URL(backend.env.DATABASE_URL);

  async function platform(what, clients) {
    if (perStatement && clients === 1) timing = { next: 0, sums: [], ops: 0 };
    const latencies = [];
    let errors = 0;
    const until = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          const t = performance.now();
          if (timing) timing.next = 0;
          try {
            await ops[what]();
            latencies.push(performance.now() - t);
            if (timing) timing.ops++;
          } catch (err) {
            if (errors++ === 0) console.error(err);
          }
        }
      }),
    );
    const m = summary(latencies, performance.now() - t0, errors);
    if (timing) m.statements = timing.sums.slice(0, scripts[what].statements).map((ms) => ms / timing.ops);
    timing = null;
    return m;
  }

  /** The plan run by `clients` plain pg clients (a connection each, no services): what Node.js and pg alone cost. */
  async function nodePg(what, clients) {
    const conns = await Promise.all(
      Array.from({ length: clients }, async () => {
        const c = new pg.Client({ connectionString: backend.env.DATABASE_URL });
        await c.connect();
        return c;
      }),
    );
    const latencies = [];
    let errors = 0;
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    await Promise.all(
      conns.map(async (c) => {
        while (performance.now() < until) {
          const t = performance.now();
          const rows = [];
          try {
            for (const s of plans[what]) {
              const value = (p) =>
                p.kind === 'const' ? p.value : p.kind === 'null' ? null : p.kind === 'chain' ? rows[p.from][p.col] : randomUUID();
              const values = s.params.map((p) => (p.kind === 'ids' ? p.items.map(value) : value(p)));
              rows.push((await query.call(c, s.text, values)).rows[0]);
            }
            latencies.push(performance.now() - t);
          } catch (err) {
            if (errors++ === 0) console.error(err);
            await query.call(c, 'ROLLBACK').catch(() => {});
          }
        }
      }),
    );
    const m = summary(latencies, performance.now() - t0, errors);
    await Promise.all(conns.map((c) => c.end()));
    return m;
  }

  function pgbench(what, clients) {
    const s = scripts[what];
    const logDir = mkdtempSync(join(work, 'log-'));
    const argv = [
      '-n',
      '-M',
      'extended',
      '-c',
      String(clients),
      '-j',
      '1',
      '-T',
      String(seconds),
      '-f',
      s.file,
      ...(perStatement && clients === 1 ? ['-r'] : []),
      '-l',
      '--log-prefix',
      join(logDir, 'tx'),
      ...s.defines.flatMap((d) => ['-D', d]),
      '-h',
      dbUrl.hostname,
      '-p',
      dbUrl.port || '5432',
      '-U',
      decodeURIComponent(dbUrl.username || 'postgres'),
      dbUrl.pathname.slice(1),
    ];
    return new Promise((done, fail) => {
      const child = spawn(pgbenchBin, argv, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PGPASSWORD: decodeURIComponent(dbUrl.password) },
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.on('exit', (code) => {
        const latencies = [];
        for (const f of readdirSync(logDir)) {
          for (const line of readFileSync(join(logDir, f), 'utf8').split('\n')) {
            const us = Number(line.split(' ')[2]);
            if (line && Number.isFinite(us)) latencies.push(us / 1000);
          }
        }
        rmSync(logDir, { recursive: true, force: true });
        const aborted = /aborted in command|client \d+ aborted/.test(out);
        if (code !== 0 && !latencies.length) return fail(new Error(`pgbench exited ${code}: ${out}`));
        if (aborted)
          console.error(
            out
              .split('\n')
              .filter((l) => /abort|ERROR/.test(l))
              .slice(0, 3)
              .join('\n'),
          );
        const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? NaN);
        const m = summary(latencies, seconds * 1000, aborted ? 1 : 0);
        const perCommand = out.split(/statement latencies in milliseconds.*\n/)[1];
        if (perCommand) m.statements = [...perCommand.matchAll(/^\s+([\d.]+)\s+\d+\s/gm)].map((x) => Number(x[1]));
        done({ ...m, perSecond: Number.isFinite(tps) ? tps : m.perSecond });
      });
    });
  }

  async function api(clients) {
    const out = await autocannon({
      url: `${backend.base}/api/wallet/${alice.id}/transfer`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...alice.auth },
      body: JSON.stringify({ to_address: bob.address, amount: 0.001 }),
      duration: seconds,
      connections: clients,
    });
    return { perSecond: out.requests.average, p50: out.latency.p50, p99: out.latency.p99, errors: out.non2xx + out.errors };
  }

  const results = [];
  for (let round = 0; round < rounds; round++) {
    for (const clients of CLIENTS) {
      for (const what of Object.keys(ops)) {
        // Alternate the sides' order round by round, so the machine's other work falls on all of them.
        const sides = ['platform', ...(what === 'transfers' && withApi ? ['API'] : []), 'node-pg', 'pgbench'];
        if (round % 2) sides.reverse();
        for (const side of sides) {
          const run = { platform, 'node-pg': nodePg, pgbench, API: (_, c) => api(c) }[side];
          const m = await run(what, clients);
          results.push({ what, clients, side, ...m });
          console.error(
            `round ${round + 1} ${what} @${clients} ${side}: ${m.perSecond.toFixed(0)}/s p50 ${m.p50.toFixed(1)} ms p99 ${m.p99.toFixed(1)} ms`,
          );
        }
      }
    }
  }

  const rows = [];
  const mean = (ms, k) => ms.reduce((s, x) => s + x[k], 0) / ms.length;
  const rounded = (ms) => ms.map((x) => x.perSecond.toFixed(0)).join(' / ');
  for (const what of Object.keys(ops)) {
    for (const clients of CLIENTS) {
      const of = (side) => results.filter((x) => x.what === what && x.clients === clients && x.side === side);
      const [g, n] = [of('pgbench'), of('node-pg')];
      for (const [label, ms] of [
        [what, of('platform')],
        [`${what} via API`, of('API')],
      ]) {
        if (!ms.length) continue;
        rows.push({
          what: label,
          clients,
          'platform ops/s': mean(ms, 'perSecond').toFixed(0),
          'pgbench ops/s': mean(g, 'perSecond').toFixed(0),
          ratio: (mean(ms, 'perSecond') / mean(g, 'perSecond')).toFixed(2),
          'node-pg ops/s (ratio)':
            label === what ? `${mean(n, 'perSecond').toFixed(0)} (${(mean(n, 'perSecond') / mean(g, 'perSecond')).toFixed(2)})` : '',
          'per round: platform | pgbench': `${rounded(ms)} | ${rounded(g)}`,
          'p50 ms: platform | pgbench': `${mean(ms, 'p50').toFixed(1)} | ${mean(g, 'p50').toFixed(1)}`,
          'p99 ms: platform | pgbench': `${mean(ms, 'p99').toFixed(1)} | ${mean(g, 'p99').toFixed(1)}`,
          errors: [...ms, ...g, ...(label === what ? n : [])].reduce((s, x) => s + x.errors, 0),
        });
      }
    }
  }
  console.log(
    `\n${seconds} s per measurement, ${rounds} round(s), sides alternating; pgbench -M extended -j 1, statements per operation: ` +
      Object.entries(scripts)
        .map(([w, s]) => `${w} ${s.statements}`)
        .join(', ') +
      `; ${new Date().toISOString().slice(0, 10)}`,
  );
  table(rows);
  if (perStatement) {
    for (const what of Object.keys(ops)) {
      const of = (side) => results.filter((x) => x.what === what && x.clients === 1 && x.side === side && x.statements);
      const [p, g] = [of('platform'), of('pgbench')];
      const at = (ms, i) => ms.reduce((s, x) => s + (x.statements[i] ?? NaN), 0) / ms.length;
      console.log(`\n${what}, 1 client: mean ms per statement (the platform's from pg's query call to its answer; pgbench -r)`);
      const texts = scripts[what].script.split(/;\n|\\gset \S+\n/).filter(Boolean);
      table(
        texts.map((text, i) => ({
          statement: text.replace(/\s+/g, ' ').slice(0, 60),
          platform: at(p, i).toFixed(3),
          pgbench: at(g, i).toFixed(3),
        })),
      );
    }
  }
  await ctx.close();
  ctx = undefined;
  const check = spawnSync('node', ['backend/dist/ledger-check.cli.js'], { cwd: dir, env: backend.env, encoding: 'utf8' });
  console.log(`\nledger:check: exit ${check.status}; ${(check.stdout + check.stderr).trim().split('\n').slice(-3).join(' | ')}`);
} finally {
  if (ctx) await ctx.close();
  await backend.stop();
  rmSync(work, { recursive: true, force: true });
}

function summary(latencies, ms, errors) {
  latencies.sort((x, y) => x - y);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { perSecond: (latencies.length * 1000) / ms, p50: q(0.5), p99: q(0.99), errors };
}
