// Shared by scripts/dev.mjs and scripts/serve.mjs: find or start PostgreSQL and Redis, run children.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');
const colors = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m'];
const reset = '\x1b[0m';

export function log(msg) {
  console.log(`\x1b[1m[glob]\x1b[0m ${msg}`);
}

export function fail(msg) {
  console.error(`\x1b[31m[glob] ${msg}\x1b[0m`);
  process.exit(1);
}

/** Resolves true when something accepts TCP connections on host:port. */
export function canConnect(host, port, timeoutMs = 1000) {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const end = (ok) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => end(false));
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
  });
}

/** Whether this process can listen on host:port now (then it lets go at once). */
function portFree(port, host) {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

/** The program listening on a TCP port, as the OS tells it ("node (pid 4242)"), or null where it does not say. */
export function portHolder(port) {
  const ss = spawnSync('ss', ['-H', '-ltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /users:\(\("([^"]+)",pid=(\d+)/.exec(ss.stdout ?? '');
  if (m) return `${m[1]} (pid ${m[2]})`;
  const lsof = spawnSync('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fcp'], { encoding: 'utf8' });
  const pid = /^p(\d+)$/m.exec(lsof.stdout ?? '')?.[1];
  const command = /^c(.+)$/m.exec(lsof.stdout ?? '')?.[1];
  return pid ? `${command ?? 'a process'} (pid ${pid})` : null;
}

/** Whether something listens on the port, on every interface or on loopback alone (the start scripts' processes bind both). */
export async function portInUse(port) {
  // Both the wildcard and loopback: something bound to 127.0.0.1 alone does not always block the wildcard.
  return !((await portFree(Number(port))) && (await portFree(Number(port), '127.0.0.1')));
}

/**
 * Before anything starts: each port this run listens on must be free, or the run stops with one line naming the
 * port, what holds it and the setting that moves it (rather than a child failing later with EADDRINUSE).
 * `ports`: [{ port, what, setting }], checked on every interface (as the processes listen).
 */
export async function checkPorts(ports) {
  for (const { port, what, setting } of ports) {
    if (!(await portInUse(port))) continue;
    const holder = portHolder(port);
    fail(`Port ${port} (${what}) is already in use${holder ? ` by ${holder}` : ''}: stop that, or set ${setting} to another port.`);
  }
}

async function waitFor(host, port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await canConnect(host, port, 300)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/**
 * Writes nginx's configuration for several API processes (ops/nginx/api-proxy.conf) into `dir`, listening on `listen`
 * and round robin over `ports` on 127.0.0.1; answers the arguments that run nginx with it in the foreground.
 */
export function nginxForApis(dir, listen, ports) {
  mkdirSync(dir, { recursive: true });
  const conf = readFileSync(join(root, 'ops', 'nginx', 'api-proxy.conf'), 'utf8')
    .replaceAll('{{DIR}}', dir)
    .replaceAll('{{LISTEN}}', String(listen))
    .replaceAll('{{UPSTREAMS}}', ports.map((p) => `    server 127.0.0.1:${p};`).join('\n'));
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'];
}

/** Whether `cmd` runs (it is installed and on the PATH). */
export function has(cmd, args = ['--version']) {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/**
 * REDIS_URL if set; else a Redis already on 127.0.0.1:6379; else redis-server from PATH (no
 * persistence, stopped with the dev session); else `docker compose up -d redis`; else a clear stop.
 */
export async function ensureRedis(children) {
  if (process.env.REDIS_URL) {
    log(`Redis: ${process.env.REDIS_URL} (REDIS_URL)`);
    return process.env.REDIS_URL;
  }
  const url = 'redis://127.0.0.1:6379';
  if (await canConnect('127.0.0.1', 6379)) {
    log(`Redis: ${url} (already running)`);
    return url;
  }
  if (has('redis-server')) {
    log('Redis: starting redis-server on 127.0.0.1:6379 (in memory)');
    const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    children.push({ name: 'redis', child });
    if (await waitFor('127.0.0.1', 6379, 5000)) return url;
    fail('redis-server did not start on 127.0.0.1:6379');
  }
  if (has('docker', ['compose', 'version']) && has('docker', ['info'])) {
    log('Redis: docker compose up -d redis');
    spawnSync('docker', ['compose', 'up', '-d', 'redis'], { cwd: root, stdio: 'inherit' });
    if (await waitFor('127.0.0.1', 6379, 20000)) return url;
  }
  fail(
    'No Redis found. Set REDIS_URL, or install Redis (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), ' +
      'or start Docker and run `docker compose up -d redis`.',
  );
}

/**
 * Where make dev and make serve serve their embedded database (PGlite over the PostgreSQL protocol), and where it keeps
 * its data: .data/pglite on the default port; a copy moved to another PGLITE_PORT (a second copy beside the first) keeps
 * its own, .data/pglite-<port>, since two databases can never share one directory. PGLITE_DIR names another.
 */
export function embeddedDatabase() {
  const port = Number(process.env.PGLITE_PORT ?? DEFAULT_PGLITE_PORT);
  const dir = process.env.PGLITE_DIR ?? join(root, '.data', port === DEFAULT_PGLITE_PORT ? 'pglite' : `pglite-${port}`);
  return { port, dir, url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` };
}
const DEFAULT_PGLITE_PORT = 54329;

/**
 * The Redis key prefix of a local run: REDIS_PREFIX, else one per checkout and API port, so a second copy (another
 * clone, or this one on another PORT) never takes the first one's queued jobs from a Redis they share.
 */
export function localRedisPrefix(apiPort) {
  return process.env.REDIS_PREFIX ?? `glob-${createHash('sha256').update(root).digest('hex').slice(0, 8)}-${apiPort}`;
}

/**
 * DATABASE_URL if set; else an embedded PostgreSQL (PGlite, PostgreSQL compiled to WebAssembly) served
 * over the Postgres wire protocol, with its data in .data/pglite. All its connections share one session.
 */
export async function ensureDatabase() {
  if (process.env.DATABASE_URL) {
    log(`PostgreSQL: ${new URL(process.env.DATABASE_URL).host} (DATABASE_URL)`);
    return { url: process.env.DATABASE_URL, poolSize: process.env.DATABASE_POOL_SIZE, stop: async () => {} };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const { port, url, dir: dataDir } = embeddedDatabase();
  mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs the chat search index (CREATE EXTENSION in the migrations).
  const db = await PGlite.create(dataDir, { extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 16 });
  await server.start();
  log(`PostgreSQL: embedded PGlite on 127.0.0.1:${port}, data in ${relative(root, dataDir) || dataDir} (set DATABASE_URL to use your own server)`);
  return {
    url,
    poolSize: '2',
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * The node agent package the API serves to pairing machines (npm pack of node-agent/, its bundle built first, about
 * a second), in .data/node-agent; answers the file's path. Packed at every start, so it is the agent of this checkout.
 */
export async function packNodeAgent() {
  const dest = join(root, '.data', 'node-agent');
  // Packed beside, then renamed over the served file: an API of another run serving it never reads half a package.
  const scratch = join(dest, `.pack-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  const cwd = join(root, 'node-agent');
  // The bundle is built first and packed without scripts, so npm pack's stdout is only its JSON (the build's own
  // output, which under CI=true prints lines such as "[log] …", never mixes with it).
  const build = spawn('npm', ['run', '--silent', 'build'], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if ((await new Promise((done) => build.once('exit', done))) !== 0) fail('Building the node agent (npm run build in node-agent/) failed');
  const child = spawn('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) fail('Packing the node agent (npm pack in node-agent/) failed');
  const [{ filename }] = JSON.parse(out);
  renameSync(join(scratch, filename), join(dest, filename));
  rmSync(scratch, { recursive: true, force: true });
  return join(dest, filename);
}

/**
 * Runs a command to completion with inherited output; exits on failure. Asynchronous on purpose:
 * the embedded database lives in this process and must keep answering meanwhile.
 */
export async function runOrFail(label, cmd, args, env) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) fail(`${label} failed`);
}

/**
 * Starts a long-running child whose output lines are prefixed with its name. With `restart`, a child that dies
 * (crash, OOM kill, SIGKILL) is started again after a backoff (1 s, doubling to 30 s; back to 1 s once it has
 * run for a minute), until shutdown.
 */
export function start(children, name, cmd, args, env, { restart = false, cwd = root } = {}) {
  const color = colors[children.length % colors.length];
  const prefix = `${color}${name.padEnd(6)}${reset}| `;
  const entry = { name, child: null };
  let backoff = 1_000;
  let quickExits = 0;
  const launch = () => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env, FORCE_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const startedAt = Date.now();
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream.on('data', (chunk) => {
        buf += chunk;
        const lines = buf.split('\n');
        buf = lines.pop();
        for (const line of lines) process.stdout.write(prefix + line + '\n');
      });
    }
    child.on('exit', (code, signal) => {
      if (shuttingDown) return;
      log(`${name} exited (${signal ?? code})`);
      if (!restart) return;
      // A process that cannot even start (a port taken since the check, a bad setting) is not started forever.
      quickExits = Date.now() - startedAt < QUICK_EXIT_MS ? quickExits + 1 : 0;
      if (quickExits >= QUICK_EXITS) {
        console.error(
          `\x1b[31m[glob] ${name} stopped ${QUICK_EXITS} times within ${QUICK_EXIT_MS / 1000} s of starting (its last lines are above): stopping.\x1b[0m`,
        );
        failedRun = true;
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      if (Date.now() - startedAt > 60_000) backoff = 1_000;
      log(`${name}: restarting in ${backoff / 1000} s`);
      setTimeout(() => {
        if (!shuttingDown) launch();
      }, backoff);
      backoff = Math.min(backoff * 2, 30_000);
    });
    entry.child = child;
  };
  launch();
  children.push(entry);
  return entry.child;
}

/**
 * A workspace's package.json script as a command to spawn: { cmd, args, cwd }. `npm run` exits on Ctrl-C without
 * waiting for the process it started, so a shutdown that waits for npm could end while that process still holds its
 * port; the script's own command, started directly, is waited for. The scripts this reads are plain words (no quotes,
 * no shell syntax); their programs are `node` or a package's bin.
 */
export function scriptCommand(workspace, script, extraArgs = []) {
  const cwd = join(root, workspace);
  const line = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')).scripts?.[script];
  if (!line || /["'$|&;<>`]/.test(line)) throw new Error(`${workspace}: script ${script} is missing or not plain words`);
  const [program, ...args] = line.trim().split(/\s+/);
  const cmd =
    program === 'node'
      ? process.execPath
      : [join(cwd, 'node_modules', '.bin', program), join(root, 'node_modules', '.bin', program)].find(existsSync);
  if (!cmd) throw new Error(`${workspace}: script ${script}: ${program} is not installed (run npm ci)`);
  return { cmd, args: [...args, ...extraArgs], cwd };
}

let shuttingDown = false;
/** A child kept failing at start: the run ends with exit status 1. */
let failedRun = false;
/** Exits this soon after a start, this many in a row, end the whole run instead of another restart. */
const QUICK_EXIT_MS = 10_000;
const QUICK_EXITS = 3;

/** Ctrl-C / SIGTERM: stop every child (SIGTERM, then SIGKILL after 10 s) and the embedded database. */
export function onShutdown(children, cleanup) {
  const stop = async () => {
    if (shuttingDown) return;
    shuttingDown = true;
    log('Stopping…');
    const alive = children.filter(({ child }) => child.exitCode === null && child.signalCode === null);
    for (const { child } of alive) child.kill('SIGTERM');
    await Promise.race([Promise.all(alive.map(({ child }) => new Promise((r) => child.once('exit', r)))), new Promise((r) => setTimeout(r, 10_000))]);
    for (const { child } of alive) if (child.exitCode === null) child.kill('SIGKILL');
    await cleanup();
    process.exit(failedRun ? 1 : 0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return stop;
}
