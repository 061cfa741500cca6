#!/usr/bin/env node
// Throughput and latency of the public API on loopback: requests/s, p50 and p99 in ms. Prints, asserts nothing.
// Usage: start the platform (make serve or make dev), then `node bench/api.mjs [base URL] [seconds] [connections]`.
import autocannon from 'autocannon';

const base = process.argv[2] ?? process.env.API_URL ?? 'http://localhost:3000';
const duration = Number(process.argv[3] ?? 5);
const connections = Number(process.argv[4] ?? 16);
const url = new URL(base);
if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
  console.error('bench/api.mjs only targets loopback addresses');
  process.exit(2);
}

const cases = [
  { title: 'GET /api/health', path: '/api/health' },
  { title: 'GET /api/stats/platform', path: '/api/stats/platform' },
  { title: 'GET /api/releases/latest', path: '/api/releases/latest' },
  { title: 'POST /api/contact/submit (400: validation only)', path: '/api/contact/submit', method: 'POST', body: '{"name":"x"}' },
];

console.log(`${base}, ${duration}s each, ${connections} connections\n`);
console.log('case'.padEnd(50), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'non-2xx'.padStart(8));
for (const c of cases) {
  const r = await autocannon({
    url: base + c.path,
    method: c.method ?? 'GET',
    body: c.body,
    headers: c.body ? { 'content-type': 'application/json' } : {},
    duration,
    connections,
  });
  console.log(
    c.title.padEnd(50),
    r.requests.average.toFixed(0).padStart(9),
    String(r.latency.p50).padStart(8),
    String(r.latency.p99).padStart(8),
    String(r.non2xx).padStart(8),
  );
}
