import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import OpenAI from 'openai';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { killAgent, startAgent, TEST_AGENT_ARGS, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { newUser } from '../support/users';
import { atFirstToken, readSse, startReply, taskOf } from '../support/worker';

/**
 * The node agent as a provider runs it: a separate process (`npm run node`'s command) whose environment has no
 * DATABASE_URL or REDIS_URL, talking HTTP to a real API on real PostgreSQL and Redis, running llama.cpp on the
 * tiny model. The API runs no in-cluster inference worker (the test stack's WORKER_MODELS is `none`), so every
 * reply here is the agent's. Loopback only: the agent knows nothing but the API's URL.
 */
const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = () => `s_na_${Date.now().toString(36)}_${++seq}`;

describe('node agent: a separate process serving the network over HTTP only', () => {
  let stack: TestStack;
  let provider: Awaited<ReturnType<typeof newUser>>;
  let dataDir: string;
  let agent: AgentProcess | undefined;
  let nodeId: string;

  beforeAll(async () => {
    stack = await startStack();
    provider = await newUser(stack, 'node-owner');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-node-agent-'));
  }, 60_000);
  afterAll(async () => {
    await killAgent(agent);
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    await stack.close();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** Greedy decoding: this prompt runs to max_tokens without the tiny model ending on its own. */
  const longReply = (u: { auth: { Authorization: string } }, id: string) =>
    startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'A long answer please', params: { max_tokens: 1500, temperature: 0 } });

  it('pairs with a join token from the API and stores its credential (mode 0600)', async () => {
    const token = await stack.http.post('/api/nodes/join-tokens').set(provider.auth).expect(201);
    agent = startAgent([
      '--api',
      stack.url,
      '--join-token',
      token.body.join_token as string,
      '--name',
      'test-living-room-pc',
      '--data-dir',
      dataDir,
      ...TEST_AGENT_ARGS,
    ]);
    await agent.waitFor(/Paired as test-living-room-pc \(node [0-9a-f]{4}…\)/);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    // Not in a pool: nothing listens for pool members.
    expect(agent.output()).not.toContain('Pool tunnel');
    const path = join(dataDir, 'credential.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as { api: string; node_id: string; credential: string; name: string };
    expect(stored).toMatchObject({ api: stack.url, name: 'test-living-room-pc' });
    expect(stored.credential).toMatch(/^glb_node_/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    nodeId = stored.node_id;
    // Its environment held neither the database nor Redis: everything above went over HTTP.
    expect(agent.output()).not.toMatch(/DATABASE_URL|REDIS_URL/);
  }, 90_000);

  it('its heartbeat makes it online in its owner’s list, with its host facts and loaded model', async () => {
    const deadline = Date.now() + 15_000;
    let node: Record<string, unknown> | undefined;
    for (;;) {
      const res = await stack.http.get('/api/nodes').set(provider.auth).expect(200);
      node = (res.body.nodes as Array<Record<string, unknown>>).find((n) => n.id === nodeId);
      if (node?.status === 'online' && (node.models as string[]).includes(MODEL)) break;
      if (Date.now() > deadline) throw new Error(`node never online: ${JSON.stringify(node)}\n${agent!.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(node).toMatchObject({
      name: 'test-living-room-pc',
      status: 'online',
      models: [MODEL],
      allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60 },
      host: { os: process.platform, arch: process.arch, gpu: null },
    });
    const models = await stack.http.get('/api/inference/models').set(provider.auth).expect(200);
    expect(models.body.models.find((m: { id: string }) => m.id === MODEL)).toMatchObject({ status: 'available' });
  }, 30_000);

  it('serves a streamed reply: tokens in order, then done; the task names the node', async () => {
    const u = await newUser(stack, 'node-chatter');
    const id = streamId();
    const requestId = `agent-${id}`;
    const res = await startReply(
      stack,
      { ...u.auth, 'X-Request-Id': requestId },
      {
        streamId: id,
        modelId: MODEL,
        prompt: 'Hello there, how are you today?',
        params: { max_tokens: 40 },
      },
    );
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.data.type === 'token').length).toBeGreaterThan(0);
    const done = events.at(-1)!;
    expect(done.data).toMatchObject({ type: 'done', success: true });
    expect(['stop', 'length']).toContain(done.data.stop_reason);
    expect(done.data.usage!.completion_tokens).toBeGreaterThan(0);
    expect(done.data.usage!.completion_tokens).toBeLessThanOrEqual(40);
    expect(await taskOf(stack, id)).toMatchObject({ status: 'completed', node_id: nodeId, completion_tokens: done.data.usage!.completion_tokens });
    const line = await agent!.waitFor(/Job (\S+): (\d+) tokens? in [\d.]+ s/);
    expect(Number(line[2])).toBe(done.data.usage!.completion_tokens);
    // Its JSON lines about the job carry the id of the request that asked for the reply.
    const jobLines = agent!.lines().filter((l) => l.job_id === id);
    expect(jobLines.map((l) => l.msg)).toEqual([expect.stringMatching(/^Claimed job/), expect.stringContaining(line[0])]);
    for (const l of jobLines) expect(l).toMatchObject({ level: 'info', request_id: requestId, time: expect.any(String) });
  }, 60_000);

  it('a stop sequence and a seed from the OpenAI-compatible API reach the node: the answer ends before it, charged for what was generated', async () => {
    const u = await newUser(stack, 'node-developer');
    const key = (await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'node test' }).expect(201)).body.key as string;
    const openai = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const ask = (stop?: string) =>
      openai.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Count with me please' }],
        max_tokens: 60,
        temperature: 0.8,
        seed: 11,
        ...(stop ? { stop } : {}),
      });
    const full = await ask();
    const text = full.choices[0]!.message.content!;
    // The seed makes the sampled answer repeatable: the same request gives the same text.
    expect((await ask()).choices[0]!.message.content).toBe(text);
    let at = Math.floor(text.length / 2);
    while (at > 0 && text.indexOf(text.slice(at, at + 3)) !== at) at--;
    const stop = text.slice(at, at + 3);
    const cut = await ask(stop);
    expect(cut.choices[0]!.message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(cut.usage!.completion_tokens).toBeLessThan(full.usage!.completion_tokens);
    // The node itself stopped at the sequence (stop reason stop), rather than being stopped by the API after it (abort).
    const [task] = (await stack.db.query(
      `SELECT node_id, stop_reason, charged_units, price_units FROM inference_tasks WHERE completion_tokens = $1 AND user_id = $2`,
      [cut.usage!.completion_tokens, u.id],
    )) as Array<{ node_id: string; stop_reason: string; charged_units: string; price_units: string }>;
    expect(task!).toMatchObject({ node_id: nodeId, stop_reason: 'stop' });
    expect(Number(task!.charged_units)).toBe(cut.usage!.total_tokens * Number(task!.price_units));
  }, 60_000);

  it('a stop from the requester reaches the node: done with stop_reason abort', async () => {
    const u = await newUser(stack, 'node-stopper');
    const id = streamId();
    const res = await longReply(u, id);
    const events = await readSse(
      res,
      atFirstToken(() => {
        // supertest sends only once awaited (then).
        void stack.http
          .post(`/api/inference/stream/${id}/stop`)
          .set(u.auth)
          .then((r) => expect(r.status).toBe(200));
      }),
    );
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    expect(events.at(-1)!.data.usage!.completion_tokens).toBeLessThan(1500);
  }, 60_000);

  it('Ctrl-C mid-reply: the agent returns its job, says so and exits 0; the reply ends with an error', async () => {
    const u = await newUser(stack, 'node-interrupted');
    const id = streamId();
    const res = await longReply(u, id);
    const events = await readSse(
      res,
      atFirstToken(() => agent!.child.kill('SIGINT')),
    );
    expect(await agent!.exited).toBe(0);
    if (process.env.NODE_AGENT_LOG) console.log(agent!.output());
    const jobLine = await agent!.waitFor(/Returned job (\S+) to the network/, 1000);
    expect(jobLine[1]).toBeTruthy();
    // Part of the reply was out already, so it cannot move to another node: it ends with an error, at no charge.
    expect(events.at(-1)!.data).toMatchObject({ type: 'error' });
    expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: expect.anything() });
    expect(Number((await taskOf(stack, id)).charged_units)).toBe(0);
    const b = await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200);
    expect(b.body.pending_balance).toBe(0);
  }, 60_000);

  it('a later run needs no join token: the stored credential and API', async () => {
    agent = startAgent(['--data-dir', dataDir, ...TEST_AGENT_ARGS]);
    await agent.waitFor(new RegExp(`Starting node test-living-room-pc \\(node ${nodeId.slice(0, 4)}…\\) on ${stack.url.replace(/[.]/g, '\\.')}`));
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  }, 60_000);

  it('revoked by its owner: says so in plain words, exits 2 and sets its credential aside', async () => {
    agent = startAgent(['--data-dir', dataDir, ...TEST_AGENT_ARGS]);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    await stack.http.delete(`/api/nodes/${nodeId}`).set(provider.auth).expect(204);
    expect(await agent.exited).toBe(2);
    expect(agent.output()).toContain('This node was revoked by its owner; pair it again with a new join token.');
    await expect(stat(join(dataDir, 'credential.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stat(join(dataDir, 'credential.json.revoked'))).isFile()).toBe(true);
    if (process.env.NODE_AGENT_LOG) console.log(agent.output());
  }, 60_000);
});
