// Shared by the bench scripts: a real API process on loopback with a database of its own.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';

export const root = resolve(import.meta.dirname, '..');
const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function freePort() {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/** Builds the backend if needed, creates a database, migrates, starts the API; stop() undoes it all. */
export async function startBackend(env = {}) {
  if (!existsSync(join(root, 'backend/dist/main.js'))) {
    spawnSync('npm', ['run', 'build', '-w', 'backend'], { cwd: root, stdio: 'inherit' });
  }
  const db = `glob_bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${db}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${db}`;
  const port = await freePort();
  const fullEnv = {
    ...process.env,
    NODE_ENV: 'production',
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    DATABASE_URL: url.toString(),
    REDIS_PREFIX: `bench:${db}`,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...env,
  };
  spawnSync('node', ['backend/dist/database/cli.js', 'migrate'], { cwd: root, env: fullEnv, stdio: 'ignore' });
  const api = spawn('node', ['backend/dist/main.js'], { cwd: root, env: fullEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    env: fullEnv,
    async stop() {
      api.kill('SIGTERM');
      await new Promise((r) => api.once('exit', r));
      await admin(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    },
  };
}

export function table(rows) {
  const widths = Object.keys(rows[0]).map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (values) => values.map((v, i) => String(v).padStart(widths[i])).join('  ');
  console.log(line(Object.keys(rows[0])));
  for (const r of rows) console.log(line(Object.values(r)));
}

/** A signed-up user of the bench backend: its id, bearer header and wallet address. */
export async function benchUser(base, name = 'bench') {
  const res = await fetch(`${base}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}@bench.example.com`, password: 'a quiet mountain stream', username: name }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}`);
  const body = await res.json();
  const auth = { authorization: `Bearer ${body.access_token}` };
  const wallet = await (await fetch(`${base}/api/wallet/${body.user.id}`, { headers: auth })).json();
  return { id: body.user.id, auth, address: wallet.address };
}
