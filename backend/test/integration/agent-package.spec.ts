import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@glob/testing';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { type AgentProcess, killAgent, startAgentCommand } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { testCatalog } from '../support/catalog';
import { newUser } from '../support/users';
import { readSse, startReply, taskOf } from '../support/worker';

const run = promisify(execFile);
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};
const AGENT_PACKAGE = resolve(__dirname, '..', '..', '..', 'node-agent');

/**
 * The node agent as a provider gets it: `npm pack` of the node-agent package, served by the API, and the pairing
 * command exactly as the web app's "Pair a new node" dialog shows it (`npx --yes --package <the API's URL for the
 * package> glob-node --api … --join-token …`), run in an empty directory outside the repository, in a home of its own
 * and an environment that knows nothing of the platform (the API's own models under a dot directory, as in `make
 * serve`). npx fetches the package from the API and its dependencies from npm's cache or registry. The agent pulls the
 * tiny model from the API's own copy (SHA-256 checked), pairs and serves a reply.
 */
describe('the packed node agent, run by the pairing command on a machine that never saw the repository', () => {
  let stack: TestStack;
  let dir: string;
  let app: string;
  let home: string;
  let agent: AgentProcess | undefined;
  let packed: { filename: string; files: Array<{ path: string }> };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-packed-'));
    app = join(dir, 'app');
    home = join(dir, 'home');
    await mkdir(app);
    await mkdir(home);
    // The bundle built from the sources under test, then packed without scripts (npm pack's stdout is then only its JSON).
    await run('npm', ['run', '--silent', 'build'], { cwd: AGENT_PACKAGE });
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: AGENT_PACKAGE });
    packed = (JSON.parse(stdout) as Array<typeof packed>)[0]!;
    // The installed package, for a look at what it brings (from npm's cache when it holds the packages).
    await mkdir(join(dir, 'look'));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed.filename)], { cwd: join(dir, 'look') });
    // The API's models directory under a dot directory, as `make serve`'s .data/models is.
    const apiModels = join(dir, '.data', 'models');
    await mkdir(apiModels, { recursive: true });
    await copyFile(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(apiModels, TINY_MODEL_FILE));
    // A port free now on loopback: the API's public URL must be known before it starts.
    const port = await freePort();
    stack = await startStack({
      port,
      env: {
        MODELS_DIR: apiModels,
        MODEL_CATALOG: testCatalog(apiModels),
        PUBLIC_API_URL: `http://127.0.0.1:${port}`,
        NODE_AGENT_PACKAGE: join(dir, packed.filename),
      },
    });
  }, 300_000);

  afterAll(async () => {
    await killAgent(agent);
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('ships one bundled file, the desktop app’s built panel and the pool build script, and installs none of the server’s packages', async () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files.filter((f) => !f.startsWith('dist/panel/'))).toEqual(['README.md', 'dist/glob-node.cjs', 'llama-rpc.mjs', 'package.json']);
    // The panel as Vite built it: its page and hashed assets, no source.
    expect(files).toContain('dist/panel/index.html');
    expect(
      files
        .filter((f) => f.startsWith('dist/panel/') && f !== 'dist/panel/index.html')
        .every((f) => /^dist\/panel\/assets\/[\w.-]+\.(js|css)$/.test(f)),
    ).toBe(true);
    const manifest = JSON.parse(await readFile(join(dir, 'look', 'node_modules', 'glob-node', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['ipull', 'node-llama-cpp', 'systray2']);
    const installed = await readdir(join(dir, 'look', 'node_modules'));
    for (const server of ['@nestjs', 'typeorm', 'pg', 'bullmq', 'ioredis', 'react', '@glob']) expect(installed).not.toContain(server);
  });

  it('serves the package at a versioned URL; the join token names it with its SHA-256 and size', async () => {
    const owner = await newUser(stack, 'packed-looker');
    const token = await stack.http.post('/api/nodes/join-tokens').set(owner.auth).expect(201);
    const bytes = await readFile(join(dir, packed.filename));
    const url = `${stack.url}/api/nodes/agent/${packed.filename}`;
    expect(packed.filename).toMatch(/^glob-node-\d+\.\d+\.\d+\.tgz$/);
    expect(token.body.agent).toEqual({
      version: packed.filename.slice('glob-node-'.length, -'.tgz'.length),
      url,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size_bytes: bytes.length,
    });
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const other = await stack.http.get('/api/nodes/agent/glob-node-9.9.9.tgz');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ statusCode: 404, message: 'No such node agent package', error: 'Not Found' });
    expect((await stack.http.get('/api/nodes/agent/..%2Fpackage.json')).status).toBe(400);
  });

  it('pairs with exactly the dialog’s command, pulls and verifies the tiny model into ~/.glob-network, and serves a reply', async () => {
    const owner = await newUser(stack, 'packed-owner');
    const token = await stack.http.post('/api/nodes/join-tokens').set(owner.auth).expect(201);
    const command = (token.body.command as string).split(' ');
    expect(command.slice(0, 5)).toEqual(['npx', '--yes', '--package', `${stack.url}/api/nodes/agent/${packed.filename}`, 'glob-node']);
    expect(command.slice(5)).toEqual(['--api', stack.url, '--join-token', token.body.join_token]);
    // A fresh home; npm's cache stays the machine's (npx fetches the package from the API, its dependencies from there).
    const npmCache = (await run('npm', ['config', 'get', 'cache'], { cwd: app })).stdout.trim();
    agent = startAgentCommand([...command, '--name', 'packed-pc', '--models', 'glob-tiny-chat', '--threads', '1', '--gpu', 'off'], {
      cwd: app,
      env: { HOME: home, USERPROFILE: home, npm_config_cache: npmCache, npm_config_prefer_offline: 'true' },
    });
    await agent.waitFor(/Pulled and verified glob-tiny-chat/, 120_000);
    await agent.waitFor(/Paired as packed-pc/, 60_000);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/, 60_000);

    const nodeHome = join(home, '.glob-network');
    const sha = async (p: string) =>
      createHash('sha256')
        .update(await readFile(p))
        .digest('hex');
    expect(await sha(join(nodeHome, 'models', TINY_MODEL_FILE))).toBe(await sha(join(process.env.MODELS_DIR!, TINY_MODEL_FILE)));
    expect((await stat(join(nodeHome, 'node', 'credential.json'))).mode & 0o777).toBe(0o600);

    const node = async () =>
      ((await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes as Array<{ id: string; status: string; models: string[] }>)[0];
    const deadline = Date.now() + 30_000;
    while ((await node())?.models.join() !== 'glob-tiny-chat') {
      if (Date.now() > deadline) throw new Error(`never offered the model:\n${agent.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const asker = await newUser(stack, 'packed-asker');
    const streamId = `s_packed_${Date.now().toString(36)}`;
    const res = await startReply(stack, asker.auth, { streamId, modelId: 'glob-tiny-chat', prompt: 'Hello', params: { max_tokens: 8 } });
    expect(res.status).toBe(200);
    expect((await readSse(res)).at(-1)!.data).toMatchObject({ type: 'done', success: true });
    expect(await taskOf(stack, streamId)).toMatchObject({ status: 'completed', node_id: (await node())!.id });

    // Stopped as a terminal's Ctrl-C stops it: the signal reaches npx and the agent alike; the agent stops cleanly.
    const group = agent.child.pid!;
    agent.kill('SIGINT');
    for (const until = Date.now() + 20_000; groupAlive(group) && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(group)).toBe(false);
    expect(agent.output()).toContain('Stopping…');
    expect(agent.output()).not.toMatch(/Error|at .*glob-node\.cjs/);
  }, 240_000);
});
