#!/usr/bin/env node
// Event-stream readers at scale: N readers (default 1,000) of one reply through a real API process (own database).
// Prints the Redis connections the deployment holds before and while they wait, /api/health p50/p99 latency idle
// and with the readers open, and how long the reply's last event takes to reach every reader. Asserts nothing.
// Usage: node bench/streams.mjs [readers=1000]
import Redis from 'ioredis';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { benchUser, startBackend, table } from './lib.mjs';

const readers = Number(process.argv[2] ?? 1000);
const backend = await startBackend({ STREAMS_PER_USER: String(readers + 10), JOB_LOCK_MS: '600000', REAPER_INTERVAL_MS: '600000' });
const redis = new Redis(backend.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
await db.connect();

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))].toFixed(1);
const clients = async () =>
  String(await redis.client('LIST'))
    .split('\n')
    .filter((l) => l.includes(` name=${backend.env.REDIS_PREFIX} `)).length;
async function health(ms) {
  const out = [];
  for (const end = performance.now() + ms; performance.now() < end;) {
    const t = performance.now();
    await fetch(`${backend.base}/api/health`).then((r) => r.arrayBuffer());
    out.push(performance.now() - t);
  }
  return out;
}

try {
  const user = await benchUser(backend, 'reader');
  // A reply in progress (as a worker would leave it), read by everyone.
  const streamId = `bench_${randomUUID()}`;
  await db.query(
    `INSERT INTO inference_tasks (id, user_id, model_id, status, stream_id, request_hash, max_tokens, price_units) VALUES ($1, $2, 'glob-tiny-chat', 'running', $3, 'bench', 10, 0)`,
    [randomUUID(), user.id, streamId],
  );
  const idleClients = await clients();
  const idle = await health(2_000);
  const opened = performance.now();
  const responses = await Promise.all(
    Array.from({ length: readers }, () => fetch(`${backend.base}/api/inference/stream/${streamId}`, { headers: user.auth })),
  );
  const openMs = performance.now() - opened;
  await new Promise((r) => setTimeout(r, 500));
  const busyClients = await clients();
  const busy = await health(2_000);

  const key = `${backend.env.REDIS_PREFIX}:stream:${streamId}`;
  const sent = performance.now();
  await redis.xadd(
    key,
    '0-1',
    'e',
    JSON.stringify({ type: 'done', success: true, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, stop_reason: 'stop' }),
  );
  const arrivals = await Promise.all(
    responses.map(async (r) => {
      await r.text();
      return performance.now() - sent;
    }),
  );
  table([
    {
      readers: 0,
      'redis clients': idleClients,
      'health p50 ms': pct(idle, 50),
      'health p99 ms': pct(idle, 99),
      'open all ms': '-',
      'end to all p50/max ms': '-',
    },
    {
      readers,
      'redis clients': busyClients,
      'health p50 ms': pct(busy, 50),
      'health p99 ms': pct(busy, 99),
      'open all ms': openMs.toFixed(0),
      'end to all p50/max ms': `${pct(arrivals, 50)}/${Math.max(...arrivals).toFixed(1)}`,
    },
  ]);
} finally {
  await db.end();
  await redis.quit();
  await backend.stop();
}
