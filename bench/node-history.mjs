#!/usr/bin/env node
// What a node's calls cost as its history grows: a paired node (the bench itself, speaking the node API, its model
// proven) is given a history of N completed tasks with a reward each (written straight into its database: tasks
// served, shares pending), then its heartbeat (POST /api/nodes/heartbeat, what every node sends every few seconds) is
// timed, p50/p99 over sequential calls, as is the owner's node list (GET /api/nodes, what the Nodes page polls); at
// 0 and at each size. With --prev DIR the same against a previous build (see bench/README, "the ledger's
// throughput", for how DIR is made), the two alternating size by size. Prints figures; asserts nothing.
// Usage: node bench/node-history.mjs [sizes=0,10000,100000] [calls=40] [--prev DIR]
import pg from 'pg';
import { benchNode, benchUser, pct, prepareNodeBench, root, startBackend, table } from './lib.mjs';

const args = process.argv.slice(2);
const prevAt = args.indexOf('--prev');
const prevDir = prevAt >= 0 ? args.splice(prevAt, 2)[1] : undefined;
const sizes = (args[0] ?? '0,10000,100000').split(',').map(Number);
const calls = Number(args[1] ?? 40);
const MODEL = 'glob-tiny-chat';
const { modelsDir, modelPath } = prepareNodeBench();
const builds = [{ name: 'this tree', dir: root }, ...(prevDir ? [{ name: 'previous', dir: prevDir }] : [])];

/** A paired node with a proven model on a backend of its own, and a way to grow its history. */
async function setUp(build) {
  const backend = await startBackend({ MODELS_DIR: modelsDir, WORKER_MODELS: 'none', NODE_RATE_LIMIT: '1000000000' }, { dir: build.dir });
  const db = new pg.Client({ connectionString: backend.env.DATABASE_URL });
  await db.connect();
  const owner = await benchUser(backend, `history-${build.name.replace(/\W/g, '')}`);
  const node = await benchNode(backend, owner, { name: 'history-node', model: MODEL, modelPath });
  let size = 0;
  return {
    ...build,
    backend,
    owner,
    node,
    /** Completed tasks with their (pending) rewards, up to `target` in all. */
    async grow(target) {
      if (target <= size) return;
      await db.query(
        `WITH t AS (INSERT INTO inference_tasks (model_id, status, node_id, completion_tokens)
                    SELECT $2, 'completed', $1, 10 FROM generate_series(1, $3) RETURNING id),
              r AS (INSERT INTO node_rewards (task_id, node_id, owner_id, difficulty, hardware_score, units, tokens, payable_at)
                    SELECT t.id, $1, $4, 1, 1, 100, 10, now() + interval '30 days' FROM t RETURNING task_id)
         INSERT INTO node_reward_shares (task_id, node_id, units) SELECT task_id, $1, 100 FROM r`,
        [node.id, MODEL, target - size, owner.id],
      );
      await db.query('ANALYZE');
      size = target;
    },
    async stop() {
      await db.end();
      await backend.stop();
    },
  };
}

/** p50 and p99 ms of `calls` sequential calls of `call`. */
async function timed(call) {
  const ms = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

const sides = [];
try {
  for (const build of builds) sides.push(await setUp(build));
  const rows = [];
  for (const size of sizes) {
    for (const side of size % 2 === 0 ? sides : [...sides].reverse()) {
      await side.grow(size);
      const beat = await timed(() => side.node.heartbeat());
      const list = await timed(async () => {
        const res = await fetch(`${side.backend.base}/api/nodes`, { headers: side.owner.auth });
        if (!res.ok) throw new Error(`GET /api/nodes answered ${res.status}`);
        await res.arrayBuffer();
      });
      rows.push({
        'tasks served': size,
        build: side.name,
        'heartbeat p50 ms': beat.p50.toFixed(1),
        'heartbeat p99 ms': beat.p99.toFixed(1),
        'node list p50 ms': list.p50.toFixed(1),
        'node list p99 ms': list.p99.toFixed(1),
      });
      console.error(`${side.name}: ${size} done`);
    }
  }
  console.log(`\n${calls} sequential calls per cell; each task served with one pending reward of the node\n`);
  table(rows);
} finally {
  for (const side of sides) await side.stop();
}
