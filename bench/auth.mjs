#!/usr/bin/env node
// Sign-in cost: argon2id hash/verify time with the production parameters; login throughput with p50/p99 latency
// through the real API on loopback (rate limits lifted for the run); and what a sign-in flood does to everything
// else: /api/health latency while 300 logins arrive in waves, with argon2 unbounded (as before the bound) and with
// the default bound (cores − 1 at once, 32 waiting, beyond that 503). Prints; asserts nothing.
// Usage: node bench/auth.mjs [seconds=5]
import autocannon from 'autocannon';
import argon2 from 'argon2';
import { benchUser, startBackend, table } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 5);
const params = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 };

const times = [];
let hash;
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  hash = await argon2.hash('purple elephants dance quietly', params);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const verifyStart = performance.now();
for (let i = 0; i < 20; i++) await argon2.verify(hash, 'purple elephants dance quietly');
console.log(
  `argon2id m=19MiB t=2 p=1: hash p50 ${times[10].toFixed(1)} ms, p99 ${times[19].toFixed(1)} ms; verify mean ${((performance.now() - verifyStart) / 20).toFixed(1)} ms\n`,
);

const pct = (xs, p) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))].toFixed(1) : '-');

/** GET /api/health back to back (2 at a time) until `until()` is true; the latencies in ms. */
async function healthLatencies(base, until) {
  const out = [];
  await Promise.all(
    [0, 1].map(async () => {
      while (!until()) {
        const t = performance.now();
        await fetch(`${base}/api/health`).then((r) => r.arrayBuffer());
        out.push(performance.now() - t);
      }
    }),
  );
  return out;
}

/** 300 wrong-password logins for 300 addresses, in waves of 60 at once, while /api/health is measured. */
async function flood(base) {
  const statuses = {};
  const logins = [];
  let done = false;
  const health = healthLatencies(base, () => done);
  const started = performance.now();
  for (let wave = 0; wave < 5; wave++) {
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const t = performance.now();
        const res = await fetch(`${base}/api/users/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: `flood-${wave}-${i}@bench.example.com`, password: 'not the password at all' }),
        });
        await res.arrayBuffer();
        logins.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }),
    );
  }
  const duration = performance.now() - started;
  done = true;
  return { health: await health, logins, statuses, duration };
}

const rows = [];
const floodRows = [];
for (const [name, env] of [
  ['argon2 unbounded (before)', { PASSWORD_HASH_CONCURRENCY: '64', PASSWORD_HASH_QUEUE: '100000' }],
  ['argon2 bounded (default)', {}],
]) {
  const backend = await startBackend(env);
  try {
    let idleUntil = performance.now() + 2_000;
    const idle = await healthLatencies(backend.base, () => performance.now() > idleUntil);
    const f = await flood(backend.base);
    floodRows.push({
      case: name,
      'health p50 idle': pct(idle, 50),
      'health p99 idle': pct(idle, 99),
      'health p50 flood': pct(f.health, 50),
      'health p99 flood': pct(f.health, 99),
      'login p50': pct(f.logins, 50),
      'login p99': pct(f.logins, 99),
      'logins 401/503': `${f.statuses[401] ?? 0}/${f.statuses[503] ?? 0}`,
      'flood s': (f.duration / 1000).toFixed(1),
    });
    idleUntil = 0;
    if (name.includes('default')) {
      const user = await benchUser(backend, 'bench');
      for (const connections of [1, 4, 16]) {
        for (const [what, password] of [
          ['login ok', 'a quiet mountain stream'],
          ['login wrong password', 'not the password at all'],
        ]) {
          const r = await autocannon({
            url: `${backend.base}/api/users/login`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: user.email, password }),
            duration: seconds,
            connections,
          });
          rows.push({
            case: what,
            connections,
            'req/s': r.requests.average.toFixed(1),
            'p50 ms': r.latency.p50,
            'p99 ms': r.latency.p99,
            'shed (5xx)': r['5xx'] ?? 0,
            errors: r.errors,
          });
        }
      }
    }
  } finally {
    await backend.stop();
  }
}
console.log('Login throughput (bounded argon2; 503 = shed by the bound):');
table(rows);
console.log('\n/api/health latency (ms) during a flood of 300 logins (5 waves of 60):');
table(floodRows);
