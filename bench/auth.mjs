#!/usr/bin/env node
// Sign-in cost: argon2id hash/verify time with the production parameters, and login throughput with
// p50/p99 latency through the real API on loopback (rate limits lifted for the run). Prints; asserts nothing.
// Usage: node bench/auth.mjs [seconds=5]
import autocannon from 'autocannon';
import argon2 from 'argon2';
import { startBackend, table } from './lib.mjs';

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
console.log(`argon2id m=19MiB t=2 p=1: hash p50 ${times[10].toFixed(1)} ms, p99 ${times[19].toFixed(1)} ms; verify mean ${((performance.now() - verifyStart) / 20).toFixed(1)} ms\n`);

const backend = await startBackend({ LOGIN_RATE_LIMIT: '1000000000' });
try {
  const body = { email: 'bench@example.com', password: 'purple elephants dance quietly', username: 'bench' };
  const reg = await fetch(`${backend.base}/api/users/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}`);
  const rows = [];
  for (const connections of [1, 4, 16]) {
    for (const [name, password] of [['login ok', body.password], ['login wrong password', 'not the password at all']]) {
      const r = await autocannon({
        url: `${backend.base}/api/users/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: body.email, password }),
        duration: seconds,
        connections,
      });
      rows.push({ case: name, connections, 'req/s': r.requests.average.toFixed(1), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, errors: r.errors + r.non2xx - (name === 'login ok' ? 0 : r.non2xx) });
    }
  }
  table(rows);
} finally {
  await backend.stop();
}
