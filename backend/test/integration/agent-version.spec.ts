import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_VERSION } from '../../../node-agent/src/agent';
import { killAgent, pairAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startReply } from '../support/worker';

const MODEL = 'glob-tiny-chat';
type User = Awaited<ReturnType<typeof newUser>>;

/**
 * A minimum agent version (NODE_MIN_VERSION): an older agent, or one that does not say, is told in plain words how to
 * update and takes no jobs, and its models are not offered; the project's agent says so and stops claiming until the
 * platform accepts its version again.
 */
describe('agent versions: the platform may require a newer node agent', () => {
  let stack: TestStack;
  let owner: User;
  let requester: User;
  let agent: AgentProcess | undefined;
  let dataDir: string;
  const available = async () =>
    ((await stack.http.get('/api/inference/models').set(requester.auth).expect(200)).body.models as Array<{ id: string; status: string }>).find(
      (m) => m.id === MODEL,
    )!.status === 'available';

  beforeAll(async () => {
    stack = await startStack({ env: { NODE_MIN_VERSION: '99.0.0', HEARTBEAT_SECONDS: '1', SPOT_CHECK_FIRST: '0', SPOT_CHECK_PERCENT: '0' } });
    owner = await newUser(stack, 'version-owner');
    requester = await newUser(stack, 'version-requester');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-version-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await stack?.close();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('an agent older than the minimum, or one that does not say, is told how to update, takes no jobs and offers no model', async () => {
    const node = await ScriptedNode.pair(stack, owner, { models: [] });
    for (const version of [{}, { agent_version: '1.2.3' }]) {
      const beat = await node.heartbeat([MODEL], 1, version);
      expect(beat.status).toBe(200);
      expect(beat.body.update_required).toEqual({
        minimum_version: '99.0.0',
        message: expect.stringMatching(/older than the network accepts \(99\.0\.0 or later\)/),
      });
      expect(beat.body.update_required.message).toContain('npx glob-node@latest');
    }
    const listed = (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes.find((n: { id: string }) => n.id === node.id);
    expect(listed).toMatchObject({ agent_version: '1.2.3', update_required: true, models: [] });
    expect(await available()).toBe(false);
    expect(await node.claim(1)).toBeNull();
    // What it computes on, as it reports it; a heartbeat that does not say leaves the last report standing.
    await node.heartbeat([MODEL], 1, { agent_version: '1.2.3', compute: { backend: 'cuda', vram_bytes: 24 * 2 ** 30 } });
    await node.heartbeat([MODEL], 1, { agent_version: '1.2.3' });
    const gpu = (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes.find((n: { id: string }) => n.id === node.id);
    expect(gpu.compute).toEqual({ backend: 'cuda', vram_bytes: 24 * 2 ** 30 });
    expect((await node.heartbeat([MODEL], 1, { compute: { backend: 'tpu', vram_bytes: null } })).status).toBe(400);
    // A version that is not semver is refused by the spec.
    expect((await node.heartbeat([MODEL], 1, { agent_version: 'banana' })).status).toBe(400);

    // New enough: its models count and it takes jobs.
    await node.heartbeat([MODEL], 1, { agent_version: '99.0.1' });
    const current = await node.heartbeat([MODEL], 1, { agent_version: '99.0.1' });
    expect(current.body.update_required).toBeNull();
    await node.heartbeat([MODEL], 1, { agent_version: '99.0.1' });
    expect(await available()).toBe(true);
    const id = `s_ver_${Date.now().toString(36)}`;
    const reading = startReply(stack, requester.auth, { streamId: id, modelId: MODEL, prompt: 'Hello', params: { max_tokens: 4 } }).then((r) =>
      readSse(r),
    );
    const job = (await node.claim())!;
    expect(job.job_id).toBe(id);
    await node.finish(job.job_id, 'Hello there');
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'done' });
    // Reporting an older version again, it stops being offered.
    await node.heartbeat([MODEL], 1, { agent_version: '0.0.1' });
    expect(await available()).toBe(false);
  });

  it('the project’s agent reports its version; when too old it says how to update and takes no jobs, then resumes once accepted', async () => {
    agent = await pairAgent(stack, owner, 'versioned-box', dataDir);
    await agent.waitFor(/older than the network accepts \(99\.0\.0 or later\)/);
    const row = (await stack.db.query(`SELECT id, agent_version FROM nodes WHERE name = 'versioned-box'`)) as Array<{
      id: string;
      agent_version: string;
    }>;
    expect(row[0]!.agent_version).toBe(AGENT_VERSION);
    // Started with --gpu off: it computes on the CPU, and says so.
    const listed = (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes.find((n: { id: string }) => n.id === row[0]!.id);
    expect(listed).toMatchObject({ agent_version: AGENT_VERSION, update_required: true, compute: { backend: 'cpu', vram_bytes: null } });
    expect(await available()).toBe(false);

    // The operator lowers the minimum: the agent's next heartbeat is accepted, and it serves again.
    stack.config.inference.nodeMinVersion = AGENT_VERSION;
    await agent.waitFor(new RegExp(`Version ${AGENT_VERSION.replace(/\./g, '\\.')} is accepted again: taking jobs`));
    for (const deadline = Date.now() + 30_000; !(await available()); await new Promise((r) => setTimeout(r, 200))) {
      if (Date.now() > deadline) throw new Error(`the agent's model never became available:\n${agent.output()}`);
    }
    const events = await readSse(
      await startReply(stack, requester.auth, {
        streamId: `s_ver_agent_${Date.now().toString(36)}`,
        modelId: MODEL,
        prompt: 'Hi',
        params: { max_tokens: 8 },
      }),
    );
    expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
  }, 120_000);
});
