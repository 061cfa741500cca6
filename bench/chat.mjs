#!/usr/bin/env node
// Conversation list and search latency (p50/p99) for one user with 5,000 conversations of 20 messages
// (100,000 messages), through a real API process on loopback. Prints; asserts nothing.
// Usage: node bench/chat.mjs [conversations=5000] [requests=200]
import pg from 'pg';
import { benchUser, startBackend, table } from './lib.mjs';

const conversations = Number(process.argv[2] ?? 5000);
const requests = Number(process.argv[3] ?? 200);
const backend = await startBackend();
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

try {
  const { id: userId, auth } = await benchUser(backend);
  const db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
  await db.connect();
  const t0 = performance.now();
  await db.query(
    `INSERT INTO conversations (user_id, title, model_id, is_pinned, total_messages, updated_at)
     SELECT $1, 'Conversation ' || i || ' about ' || (ARRAY['GPUs','tokens','rewards','llamas','shards'])[1 + i % 5], 'glob-tiny-chat', i % 250 = 0, 20,
            now() - make_interval(secs => i)
     FROM generate_series(1, $2) AS i`,
    [userId, conversations],
  );
  await db.query(
    `INSERT INTO messages (conversation_id, role, content, status, tokens)
     SELECT c.id, CASE WHEN j % 2 = 0 THEN 'user' ELSE 'assistant' END,
            'Message ' || j || ' of ' || c.title || CASE WHEN random() < 0.001 THEN ' mentions zeppelin' ELSE '' END, 'sent', 10
     FROM conversations c, generate_series(1, 20) AS j WHERE c.user_id = $1`,
    [userId],
  );
  await db.query('ANALYZE conversations; ANALYZE messages');
  await db.end();
  console.log(`seeded ${conversations} conversations × 20 messages in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

  const cases = [
    ['list, first page (50)', '/api/chat/conversations?limit=50'],
    ['search title word ("llamas")', '/api/chat/conversations?search=llamas&limit=50'],
    ['search message text ("zeppelin")', '/api/chat/conversations?search=zeppelin&limit=50'],
    ['search, no match', '/api/chat/conversations?search=nothing-like-this&limit=50'],
  ];
  const rows = [];
  for (const [name, path] of cases) {
    const times = [];
    let count = 0;
    for (let i = 0; i < requests; i++) {
      const s = performance.now();
      const res = await fetch(backend.base + path, { headers: auth });
      count = (await res.json()).conversations.length;
      times.push(performance.now() - s);
    }
    rows.push({ case: name, results: count, 'p50 ms': pct(times, 50).toFixed(1), 'p99 ms': pct(times, 99).toFixed(1) });
  }
  table(rows);
} finally {
  await backend.stop();
}
