#!/usr/bin/env node
// Transfers per second and p50/p99 latency at 1, 8 and 32 concurrent clients through a real API process
// on loopback (own database). Each transfer is one ledger transaction of two entries with row locks in
// a fixed order. Prints; asserts nothing. Usage: node bench/wallet.mjs [seconds=5]
import autocannon from 'autocannon';
import { benchUser, startBackend, table } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 5);
// The welcome bonus cannot be transferred: the sender buys GLOB, which needs test-mode payments (never in production).
const backend = await startBackend({ NODE_ENV: 'development', PAYMENTS_TEST_MODE: 'true', LOG_LEVEL: 'log', DATABASE_POOL_SIZE: '20' });

try {
  const a = await benchUser(backend, 'alice');
  const b = await benchUser(backend, 'bob');
  const bought = await fetch(`${backend.base}/api/wallet/${a.id}/purchase`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...a.auth },
    body: JSON.stringify({ package_id: 'enterprise', amount: 60000, price: 400 }),
  });
  if (bought.status !== 201) throw new Error(`purchase answered ${bought.status}: ${await bought.text()}`);
  const rows = [];
  for (const connections of [1, 8, 32]) {
    const r = await autocannon({
      url: `${backend.base}/api/wallet/${a.id}/transfer`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...a.auth },
      body: JSON.stringify({ to_address: b.address, amount: 0.001 }),
      duration: seconds,
      connections,
    });
    rows.push({
      connections,
      'transfers/s': r.requests.average.toFixed(0),
      'p50 ms': r.latency.p50,
      'p99 ms': r.latency.p99,
      'non-2xx': r.non2xx,
      errors: r.errors,
    });
  }
  table(rows);
  const check = await (await fetch(`${backend.base}/api/wallet/${a.id}/balance`, { headers: a.auth })).json();
  console.log(`\nsender balance after the run: ${check.balance} GLOB`);
} finally {
  await backend.stop();
}
