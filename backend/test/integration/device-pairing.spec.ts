import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAgent, startAgent, TEST_AGENT_ARGS, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { newUser } from '../support/users';

/**
 * Pairing without a token to copy (RFC 8628's device flow), end to end: the project's agent runs without a join token
 * (and without a browser), shows a code, its owner looks the machine up and confirms it as a signed-in user, and the
 * agent pairs itself with the join token its poll is answered with, then comes online in its owner's list.
 */
const MODEL = 'glob-tiny-chat';
const HOST = { hostname: 'device-pc', os: 'linux', arch: 'x64', cpu_cores: 8, memory_bytes: 34359738368, gpu: null, vram_bytes: null };

describe('pairing by device code: the real agent without a join token', () => {
  let stack: TestStack;
  let owner: Awaited<ReturnType<typeof newUser>>;
  let dataDir: string;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    stack = await startStack();
    owner = await newUser(stack, 'device-owner');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-device-pairing-'));
  }, 60_000);
  afterAll(async () => {
    await killAgent(agent);
    await stack?.close();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('shows a code; its owner sees the machine and confirms; the agent pairs itself and is online in their list', async () => {
    agent = startAgent(['--api', stack.url, '--no-browser', '--name', 'test-device-pc', '--data-dir', dataDir, ...TEST_AGENT_ARGS]);
    const shown = await agent.waitFor(/To pair this machine, open (\S+) and confirm the code ([B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4})/, 90_000);
    const [, uri, userCode] = shown as unknown as [string, string, string];
    expect(uri).toBe(`${stack.config.publicWebUrl}/app/pair?code=${userCode}`);
    // Its JSON line carries the code and the address for log collectors.
    expect(agent.lines().find((l) => l.msg.startsWith('To pair this machine'))).toMatchObject({
      user_code: userCode,
      verification_uri: `${stack.config.publicWebUrl}/app/pair`,
    });

    // The confirmation page shows which machine asks: its name and host facts.
    const pending = await stack.http.get(`/api/nodes/device-codes/${userCode}`).set(owner.auth);
    expect(pending.status).toBe(200);
    expectSpecResponse(pending, 'getPendingDevice');
    expect(pending.body).toMatchObject({
      user_code: userCode,
      name: 'test-device-pc',
      host: { os: process.platform, arch: process.arch, gpu: null },
    });
    // Nothing is paired before the owner confirms.
    expect(agent.output()).not.toContain('Paired as');

    const approved = await stack.http.post(`/api/nodes/device-codes/${userCode}`).set(owner.auth);
    expect(approved.status).toBe(200);
    expectSpecResponse(approved, 'approvePendingDevice');

    await agent.waitFor(/Confirmed in the web app; pairing…/, 30_000);
    await agent.waitFor(/Paired as test-device-pc \(node [0-9a-f]{4}…\)/, 60_000);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    // The same credential storage as pairing with --join-token.
    const path = join(dataDir, 'credential.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as { api: string; node_id: string; credential: string; name: string };
    expect(stored).toMatchObject({ api: stack.url, name: 'test-device-pc' });
    expect(stored.credential).toMatch(/^glb_node_/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const deadline = Date.now() + 15_000;
    let node: Record<string, unknown> | undefined;
    for (;;) {
      const res = await stack.http.get('/api/nodes').set(owner.auth).expect(200);
      node = (res.body.nodes as Array<Record<string, unknown>>).find((n) => n.id === stored.node_id);
      if (node?.status === 'online' && (node.models as string[]).includes(MODEL)) break;
      if (Date.now() > deadline) throw new Error(`node never online: ${JSON.stringify(node)}\n${agent.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(node).toMatchObject({ name: 'test-device-pc', status: 'online', models: [MODEL], host: { os: process.platform, arch: process.arch } });
    expect(agent.output()).not.toMatch(/Pairing failed|expired/);

    // The code is used up: the confirmation page no longer finds it.
    await stack.http.get(`/api/nodes/device-codes/${userCode}`).set(owner.auth).expect(404);

    // Ctrl-C: a clean stop; the next run would start from the stored credential.
    agent.kill('SIGINT');
    expect(await agent.exited).toBe(0);
  }, 150_000);

  it('after the grant, another exchange of the same device code answers expired_token', async () => {
    const created = await stack.http.post('/api/nodes/device-codes').send({ name: 'device-pc', host: HOST });
    expect(created.status).toBe(201);
    expectSpecResponse(created, 'createDeviceCode');
    const { device_code: deviceCode, user_code: userCode, interval } = created.body as { device_code: string; user_code: string; interval: number };
    const exchange = async () => {
      const res = await stack.http.post('/api/nodes/device-codes/token').send({ device_code: deviceCode });
      expectSpecResponse(res, 'exchangeDeviceCode');
      return res;
    };

    expect((await exchange()).body).toMatchObject({ statusCode: 400, error: 'authorization_pending' });
    // Case and the dash do not matter to the confirmation.
    await stack.http
      .post(`/api/nodes/device-codes/${userCode.toLowerCase().replace('-', '')}`)
      .set(owner.auth)
      .expect(200);

    await new Promise((r) => setTimeout(r, interval * 1000 + 200));
    const grant = await exchange();
    expect(grant.status).toBe(200);
    expect(grant.body.join_token).toMatch(/^glb_join_/);

    const again = await exchange();
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ statusCode: 400, error: 'expired_token' });
  }, 30_000);
});
