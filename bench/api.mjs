#!/usr/bin/env node
// Throughput and latency of the public API on loopback: requests/s, p50 and p99 in ms. Prints, asserts nothing.
// Usage: start the platform (make serve or make dev), then `node bench/api.mjs [base URL] [seconds] [connections]`.
// `node bench/api.mjs --observability [seconds] [connections] [rounds]`: the same workload against three API processes
// of its own (own databases): metrics and access logs on (METRICS_TOKEN set, LOG_LEVEL=log, scraped every 15 s as
// Prometheus does), metrics only (LOG_LEVEL=error) and both off (METRICS_TOKEN unset, LOG_LEVEL=error), the order
// rotating each round; requests/s, p50/p99 and the cost in % against off. Needs `npm run build -w backend`.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { startBackend, table } from './lib.mjs';

const cases = [
  { title: 'GET /api/health', path: '/api/health' },
  { title: 'GET /api/stats/platform', path: '/api/stats/platform' },
  { title: 'GET /api/releases/latest', path: '/api/releases/latest' },
  { title: 'POST /api/contact/submit (400: validation only)', path: '/api/contact/submit', method: 'POST', body: '{"name":"x"}' },
];

async function run(base, c, duration, connections) {
  const r = await autocannon({
    url: base + c.path,
    method: c.method ?? 'GET',
    body: c.body,
    headers: c.body ? { 'content-type': 'application/json' } : {},
    duration,
    connections,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, sent: r.requests.sent };
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

if (process.argv[2] === '--observability') await observability();
else await against(process.argv[2] ?? process.env.API_URL ?? 'http://localhost:3000');

async function against(base) {
  const duration = Number(process.argv[3] ?? 5);
  const connections = Number(process.argv[4] ?? 16);
  const url = new URL(base);
  if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    console.error('bench/api.mjs only targets loopback addresses');
    process.exit(2);
  }
  console.log(`${base}, ${duration}s each, ${connections} connections\n`);
  console.log('case'.padEnd(50), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'non-2xx'.padStart(8));
  for (const c of cases) {
    const r = await run(base, c, duration, connections);
    console.log(c.title.padEnd(50), r.rps.toFixed(0).padStart(9), String(r.p50).padStart(8), String(r.p99).padStart(8), String(r.non2xx).padStart(8));
  }
}

async function observability() {
  const duration = Number(process.argv[3] ?? 5);
  const connections = Number(process.argv[4] ?? 16);
  const rounds = Number(process.argv[5] ?? 2);
  const token = randomBytes(24).toString('base64url');
  const scrape = (backend) => fetch(`${backend.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  // The middle one tells the metrics' share of the cost from the access log's.
  const variants = [
    { name: 'on', env: { METRICS_TOKEN: token, LOG_LEVEL: 'log' }, metrics: true },
    { name: 'metrics only', env: { METRICS_TOKEN: token, LOG_LEVEL: 'error' }, metrics: true },
    { name: 'off', env: { METRICS_TOKEN: undefined, LOG_LEVEL: 'error' }, metrics: false },
  ];
  for (const v of variants) v.backend = await startBackend(v.env);
  const scrapers = [];
  try {
    for (const v of variants) {
      const status = (await scrape(v.backend)).status;
      if (status !== (v.metrics ? 200 : 404))
        throw new Error(`/metrics of "${v.name}" answered ${status}: rebuild the backend (npm run build -w backend)`);
      // Prometheus reads each process with metrics every 15 s, as compose's does.
      if (v.metrics)
        scrapers.push(
          setInterval(
            () =>
              void scrape(v.backend).then(
                (r) => r.text(),
                () => undefined,
              ),
            15_000,
          ),
        );
      v.sent = (await run(v.backend.base, cases[0], 2, connections)).sent; // warm-up
      v.total = 0;
    }
    console.log('on: METRICS_TOKEN set, LOG_LEVEL=log (metrics and one access line per request); metrics only: LOG_LEVEL=error;');
    console.log('off: METRICS_TOKEN unset, LOG_LEVEL=error. Processes with metrics are scraped every 15 s.');
    console.log(`${duration}s per run, ${connections} connections, ${rounds} round(s), the order rotating each round\n`);
    const rows = [];
    for (const c of cases) {
      const sums = new Map(variants.map((v) => [v, { rps: 0, p50: 0, p99: 0 }]));
      for (let round = 0; round < rounds; round++) {
        const order = [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)];
        for (const v of order) {
          const r = await run(v.backend.base, c, duration, connections);
          for (const k of ['rps', 'p50', 'p99']) sums.get(v)[k] += r[k] / rounds;
          v.sent += r.sent;
        }
      }
      const off = sums.get(variants[2]);
      const row = { case: c.title };
      for (const v of variants) {
        const m = sums.get(v);
        v.total += m.rps;
        row[`${v.name} req/s`] = m.rps.toFixed(0);
        row[`${v.name} p50/p99 ms`] = `${m.p50.toFixed(1)}/${m.p99.toFixed(1)}`;
        if (v !== variants[2]) row[`${v.name} cost`] = pct((off.rps - m.rps) / off.rps);
      }
      rows.push(row);
    }
    table(rows);
    const off = variants[2].total;
    console.log(
      `\nall cases, requests/s: on ${pct((off - variants[0].total) / off)} fewer than off, metrics only ${pct((off - variants[1].total) / off)} fewer`,
    );
    // What the processes with metrics recorded: their request histogram's count against what the bench sent them.
    for (const v of variants.filter((x) => x.metrics)) {
      const text = await (await scrape(v.backend)).text();
      const counted = [...text.matchAll(/^glob_http_request_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
      console.log(`"${v.name}": glob_http_request_duration_seconds_count ${counted}, the bench sent ${v.sent} requests (+ scrapes)`);
    }
  } finally {
    for (const s of scrapers) clearInterval(s);
    await Promise.all(variants.filter((v) => v.backend).map((v) => v.backend.stop()));
  }
}
