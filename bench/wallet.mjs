#!/usr/bin/env node
// The ledger's throughput: transfers/s through a real API process (POST /api/wallet/{id}/transfer, one sender to one
// receiver: the hottest pair of rows there is) and holds + settlements/s (a reply's hold taken and settled, through
// the built backend's LedgerService and RewardsService in a driver process: bench/wallet-holds.mjs, since no HTTP
// operation takes a hold on its own), at 1, 8 and 32 concurrent clients, each on its own database. With --prev DIR
// the same against a previous release's built backend (DIR holds its backend/dist, engine/dist and generated/, see
// bench/README.md), alternating the two round by round. Then `ledger:check` on every database. Prints; asserts
// nothing. Usage: node bench/wallet.mjs [seconds=5] [rounds=2] [--prev DIR]
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { benchUser, root, startBackend, table } from './lib.mjs';

const args = process.argv.slice(2);
const prevAt = args.indexOf('--prev');
const prevDir = prevAt >= 0 ? args.splice(prevAt, 2)[1] : undefined;
const seconds = Number(args[0] ?? 5);
const rounds = Number(args[1] ?? 2);
const CLIENTS = [1, 8, 32];

// The welcome bonus cannot be transferred: the senders buy GLOB, which needs test-mode payments (never in production).
const env = { NODE_ENV: 'development', PAYMENTS_TEST_MODE: 'true', LOG_LEVEL: 'log', DATABASE_POOL_SIZE: '20', VALIDATE_RESPONSES: 'false' };
const releases = [{ name: 'this tree', dir: root }, ...(prevDir ? [{ name: 'previous', dir: prevDir }] : [])];

async function buy(backend, user) {
  const res = await fetch(`${backend.base}/api/wallet/${user.id}/purchase`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...user.auth },
    body: JSON.stringify({ package_id: 'enterprise', amount: 60000, price: 400 }),
  });
  if (res.status !== 201) throw new Error(`purchase answered ${res.status}: ${await res.text()}`);
}

async function transfers(r, connections) {
  const out = await autocannon({
    url: `${r.backend.base}/api/wallet/${r.alice.id}/transfer`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...r.alice.auth },
    body: JSON.stringify({ to_address: r.bob.address, amount: 0.001 }),
    duration: seconds,
    connections,
  });
  return { perSecond: out.requests.average, p50: out.latency.p50, p99: out.latency.p99, errors: out.non2xx + out.errors };
}

function holds(r, clients) {
  return new Promise((done, fail) => {
    const child = spawn('node', [join(root, 'bench/wallet-holds.mjs'), r.dir, r.carol.id, String(clients), String(seconds)], {
      cwd: r.dir,
      env: r.backend.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.on('exit', (code) => {
      const line = text.trim().split('\n').at(-1);
      if (code === 0 && line) done(JSON.parse(line));
      else fail(new Error(`holds driver exited ${code}: ${text}`));
    });
  });
}

const started = [];
try {
  for (const release of releases) {
    const backend = await startBackend(env, { dir: release.dir });
    const r = { ...release, backend };
    started.push(r);
    [r.alice, r.bob, r.carol] = [await benchUser(backend, 'alice'), await benchUser(backend, 'bob'), await benchUser(backend, 'carol')];
    await buy(backend, r.alice);
    await buy(backend, r.carol);
  }
  const results = [];
  for (let round = 0; round < rounds; round++) {
    for (const clients of CLIENTS) {
      // Alternate which release goes first, round by round.
      const order = round % 2 ? [...started].reverse() : started;
      for (const what of ['transfers', 'holds + settlements']) {
        for (const r of order) {
          const m = what === 'transfers' ? await transfers(r, clients) : await holds(r, clients);
          results.push({ release: r.name, what, clients, ...m });
          console.error(`round ${round + 1} ${r.name} ${what} @${clients}: ${m.perSecond.toFixed(0)}/s p50 ${m.p50.toFixed(1)} ms`);
        }
      }
    }
  }
  const rows = [];
  for (const what of ['transfers', 'holds + settlements']) {
    for (const clients of CLIENTS) {
      for (const r of started) {
        const ms = results.filter((x) => x.release === r.name && x.what === what && x.clients === clients);
        const mean = (k) => ms.reduce((s, x) => s + x[k], 0) / ms.length;
        rows.push({
          what,
          clients,
          release: r.name,
          'per second': mean('perSecond').toFixed(0),
          'per round': ms.map((x) => x.perSecond.toFixed(0)).join(' / '),
          'p50 ms': mean('p50').toFixed(1),
          'p99 ms': mean('p99').toFixed(1),
          'non-2xx/errors': ms.reduce((s, x) => s + x.errors, 0),
        });
      }
    }
  }
  console.log(`\n${seconds} s per measurement, ${rounds} round(s), releases alternating; ${new Date().toISOString().slice(0, 10)}`);
  table(rows);
  for (const r of started) {
    const check = spawnSync('node', ['backend/dist/ledger-check.cli.js'], { cwd: r.dir, env: r.backend.env, encoding: 'utf8' });
    console.log(`\nledger:check (${r.name}): exit ${check.status}; ${(check.stdout + check.stderr).trim().split('\n').slice(-3).join(' | ')}`);
  }
} finally {
  for (const r of started) await r.backend.stop();
}
