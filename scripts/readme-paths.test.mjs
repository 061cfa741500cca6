// The README's first-hour paths, followed as a newcomer follows them, on a machine where another copy of the platform
// may already hold the default ports: `make dev` answers on its ports, and "Try it on one machine" (`WORKER_MODELS=none
// make serve`, sign up with the code from the log, pair this machine with the dialog's command, chat as a second
// account, the node's row shows the task and its pending reward), then Ctrl-C releases everything within 2 s.
// Run by `make test-readme` (a stage of `make test`, after the builds: it starts `scripts/serve.mjs --no-build`, which
// is `make serve` less the build the e2e build stage already made).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { freePort as freePortOn } from '@glob/testing';
import { Redis } from 'ioredis';
import { localRedisPrefix, portInUse, root } from './lib.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on now, on every interface (as make dev's and make serve's processes listen). */
const freePort = () => freePortOn({ everyInterface: true });

/**
 * A command started as a terminal starts it: in its own process group, so Ctrl-C (SIGINT to the group) reaches it and
 * every process it started, as a terminal's does. Its output is kept for waitFor.
 */
function startInTerminal(cmd, args, { env, cwd = root }) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (d) => (output += stripVTControlCharacters(d.toString())));
  const exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  return {
    child,
    exited,
    output: () => output,
    /** The first match of `pattern` in the output, waiting up to `ms`. */
    async waitFor(pattern, ms, what = String(pattern)) {
      for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode) break;
      }
      throw new Error(`${what}: not seen within ${ms / 1000} s. Output:\n${output.slice(-6000)}`);
    },
    ctrlC: () => process.kill(-child.pid, 'SIGINT'),
    /** True while any process of its group runs. */
    groupAlive: () => {
      try {
        process.kill(-child.pid, 0);
        return true;
      } catch {
        return false;
      }
    },
    kill: () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

const running = [];
after(() => {
  for (const r of running) r.kill();
});

async function json(url, { method = 'GET', body, token } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Signs up as the web app does, reading the code where the README says it is: the `api` log. */
async function signUp(api, platform, email) {
  const sent = await json(`${api}/api/users/send-otp`, { method: 'POST', body: { email, purpose: 'signup' } });
  assert.equal(sent.status, 202);
  // The web app's code step says the code is in the log (no mail server configured).
  assert.equal(sent.body.delivery, 'server_log');
  const escaped = email.replace(/[.+]/g, '\\$&');
  const [, code] = await platform.waitFor(
    new RegExp(`api\\s*\\| .*To: ${escaped} \\| Subject: [^\\n]*?Your Glob Network verification code is: (\\d{6})`),
    15_000,
    `the sign-up code for ${email} in the api log`,
  );
  const verified = await json(`${api}/api/users/verify-otp`, { method: 'POST', body: { email, otp: code, purpose: 'signup' } });
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  const account = await json(`${api}/api/users/register-with-otp`, {
    method: 'POST',
    body: { email, password: 'a long enough passphrase 7', username: email.split('@')[0], verification_token: verified.body.verification_token },
  });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  return account.body.access_token;
}

/** Ctrl-C, then: the process is gone and every port it held (its children's too) is free again, within 2 s. */
async function ctrlCReleases(run, named) {
  const started = Date.now();
  run.ctrlC();
  const exit = await Promise.race([run.exited, sleep(2_000).then(() => 'still running')]);
  assert.notEqual(exit, 'still running', `still running 2 s after Ctrl-C:\n${run.output().slice(-3000)}`);
  let held = Object.entries(named);
  while (held.length && Date.now() - started < 2_000) {
    const next = [];
    for (const [name, port] of held) if (await portInUse(port)) next.push([name, port]);
    held = next;
    if (held.length) await sleep(50);
  }
  assert.deepEqual(held, [], 'ports still held 2 s after Ctrl-C');
  return exit;
}

test('make dev: the web app and the API docs answer on the ports given, codes are said to be in the log, Ctrl-C releases all', async () => {
  const [api, web, worker, pglite] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env = { PORT: String(api), WEB_PORT: String(web), WORKER_PORT: String(worker), PGLITE_PORT: String(pglite) };
  const dev = startInTerminal(process.execPath, [join(root, 'scripts', 'dev.mjs')], { env });
  running.push(dev);
  try {
    await dev.waitFor(/Ctrl-C stops everything\./, 240_000, 'the make dev banner');
    await dev.waitFor(/Nest application successfully started/, 120_000, 'the API started');
    let page = '';
    for (const until = Date.now() + 60_000; !page.includes('<div id="root">') && Date.now() < until; await sleep(500)) {
      page = await fetch(`http://localhost:${web}/app`)
        .then((r) => r.text())
        .catch(() => '');
    }
    assert.match(page, /<title>[^<]*Glob Network/);
    assert.equal((await fetch(`http://localhost:${api}/api/docs`)).status, 200);
    // The web dev server's proxy reaches the API, and codes go to the log.
    const sent = await json(`http://localhost:${web}/api/users/send-otp`, {
      method: 'POST',
      body: { email: 'dev-walk@example.com', purpose: 'signup' },
    });
    assert.equal(sent.status, 202);
    assert.equal(sent.body.delivery, 'server_log');
    await dev.waitFor(/Your Glob Network verification code is: \d{6}/, 15_000, 'the code in the log');
    await ctrlCReleases(dev, { api, web, worker, pglite });
  } finally {
    dev.kill();
    rmSync(join(root, '.data', `pglite-${pglite}`), { recursive: true, force: true });
    await dropRedisPrefix(localRedisPrefixFor(api));
  }
});

test('Try it on one machine: WORKER_MODELS=none make serve, pair this machine with the dialog’s command, a second account’s reply comes from it', async () => {
  const [api, worker, pglite] = [await freePort(), await freePort(), await freePort()];
  const env = { WORKER_MODELS: 'none', PORT: String(api), WORKER_PORT: String(worker), PGLITE_PORT: String(pglite) };
  const platform = startInTerminal(process.execPath, [join(root, 'scripts', 'serve.mjs'), '--no-build'], { env });
  running.push(platform);
  const home = mkdtempSync(join(tmpdir(), 'glob-readme-home-'));
  const empty = mkdtempSync(join(tmpdir(), 'glob-readme-cwd-'));
  let agent;
  try {
    const [, url] = await platform.waitFor(/Glob Network: (http:\/\/localhost:\d+)/, 180_000, 'the make serve banner');
    assert.equal(url, `http://localhost:${api}`);
    await platform.waitFor(/Nest application successfully started/, 60_000, 'the API started');
    // "Sign up at http://localhost:3000/app": the web app is served there.
    assert.match(await (await fetch(`${url}/app`)).text(), /<div id="root">/);

    const owner = await signUp(url, platform, 'readme-owner@example.com');
    const token = await json(`${url}/api/nodes/join-tokens`, { method: 'POST', token: owner });
    assert.equal(token.status, 201);
    // "run the shown command in a second terminal": exactly the dialog's text, in an empty directory, a new home. npm's
    // cache stays the machine's, so npx fetches only the agent (from the API) and takes its dependencies from there.
    const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
    agent = startInTerminal('sh', ['-c', token.body.command], {
      cwd: empty,
      env: { HOME: home, npm_config_cache: npmCache, npm_config_prefer_offline: 'true', GLOB_LOG_FORMAT: 'text' },
    });
    running.push(agent);
    await agent.waitFor(/Paired as /, 240_000, 'the agent paired');

    // "the node turns online", serving the tiny model.
    let node;
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(500)) {
      [node] = (await json(`${url}/api/nodes`, { token: owner })).body.nodes;
      if (node?.status === 'online' && node.models.includes('glob-tiny-chat')) break;
    }
    assert.equal(node?.status, 'online', agent.output().slice(-3000));
    assert.ok(node.models.includes('glob-tiny-chat'), `models: ${node?.models}`);

    // "chat as someone else": a second account's reply streams from this node.
    const asker = await signUp(url, platform, 'readme-asker@example.com');
    const res = await fetch(`${url}/api/inference/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${asker}` },
      body: JSON.stringify({
        streamId: `s_readme_${Date.now().toString(36)}`,
        modelId: 'glob-tiny-chat',
        prompt: 'Hello',
        params: { max_tokens: 16 },
      }),
    });
    assert.equal(res.status, 200);
    const stream = await res.text();
    assert.match(stream, /"type":"done"[^\n]*"success":true/, stream.slice(-2000));
    await agent.waitFor(/Job \S+: \d+ tokens/, 30_000, 'the job in the agent log');

    // "its row shows the task and the reward as pending".
    let row;
    for (const until = Date.now() + 30_000; Date.now() < until; await sleep(500)) {
      [row] = (await json(`${url}/api/nodes`, { token: owner })).body.nodes;
      if (row.tasks_served >= 1 && row.pending > 0) break;
    }
    assert.ok(row.tasks_served >= 1, `tasks_served ${row.tasks_served}`);
    assert.ok(row.pending > 0, `pending ${row.pending}`);
    assert.equal(row.earned, 0);

    // `npm run ledger:check` on the platform's database: the reply's charge and reward balance.
    const check = spawnSync('npm', ['run', '--silent', 'ledger:check'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${pglite}/postgres` },
      encoding: 'utf8',
    });
    assert.equal(check.status, 0, check.stdout + check.stderr);

    // Ctrl-C in the agent's terminal stops it cleanly; Ctrl-C in the platform's releases every port within 2 s.
    // (The shell standing in for the terminal's dies of the signal; what counts is that the agent stops cleanly.)
    agent.ctrlC();
    for (const until = Date.now() + 20_000; agent.groupAlive() && Date.now() < until;) await sleep(100);
    assert.equal(agent.groupAlive(), false, `the agent still runs 20 s after Ctrl-C:\n${agent.output().slice(-3000)}`);
    assert.match(agent.output(), /Stopping…/);
    assert.doesNotMatch(agent.output(), /Error|at .*glob-node\.cjs/);
    await ctrlCReleases(platform, { api, worker, pglite });
  } finally {
    agent?.kill();
    platform.kill();
    rmSync(home, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
    rmSync(join(root, '.data', `pglite-${pglite}`), { recursive: true, force: true });
    await dropRedisPrefix(localRedisPrefixFor(api));
  }
});

/** The prefix the start scripts gave a run on this API port. */
function localRedisPrefixFor(apiPort) {
  return process.env.REDIS_PREFIX ?? localRedisPrefix(String(apiPort));
}

/** The run's keys in the Redis the README's default uses (127.0.0.1:6379), so nothing stays behind. */
async function dropRedisPrefix(prefix) {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      if ((cursor = next) === '0') break;
    }
  } catch {
    // no Redis: nothing to drop
  } finally {
    redis.disconnect();
  }
}
