import { spec } from '../support/contract';
import { newUser } from '../support/users';
import { readSse, replyText, SseEvent, startReply, taskOf } from '../support/worker';
import { startStack, TestStack } from '../support/app';
import { provingHeartbeat } from '../support/scripted-node';
import { TokenCounter } from '../../src/modules/catalog/token-counter';

const TINY = 'glob-tiny-chat';
/** A model only the test that needs it declares, so no other node of this file takes its jobs. */
const LONE = 'llama-3-8b-instruct';
let seq = 0;
const streamId = () => `n_${Date.now().toString(36)}_${++seq}`;

type User = Awaited<ReturnType<typeof newUser>>;
interface Node {
  id: string;
  auth: { Authorization: string };
}

const HOST = { hostname: 'test-box', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 2 ** 30, gpu: null, vram_bytes: null };

/** Long enough that a busy machine's pauses (parallel test stages on 2 cores) do not cost a node its job. */
const JOB_LOCK_MS = 8000;

describe('provider nodes over the public API', () => {
  let stack: TestStack;
  let owner: User;

  async function joinToken(user: User): Promise<string> {
    const res = spec(await stack.http.post('/api/nodes/join-tokens').set(user.auth), 'createJoinToken');
    expect(res.status).toBe(201);
    return res.body.join_token as string;
  }

  async function register(token: string, name = 'test-node') {
    return stack.http
      .post('/api/nodes/register')
      .send({ join_token: token, name, host: HOST, models: [TINY], benchmark: { model_id: TINY, tokens_per_second: 500 } });
  }

  async function pair(user: User, models: string[] = [TINY], name = `node-${++seq}`): Promise<Node> {
    const res = spec(await register(await joinToken(user), name), 'registerNode');
    expect(res.status).toBe(201);
    const node = { id: res.body.node_id as string, auth: { Authorization: `Bearer ${res.body.credential as string}` } };
    await heartbeat(node, models);
    return node;
  }

  const heartbeat = async (node: Node, models: string[] = [TINY], battery: number | null = null) =>
    spec(await provingHeartbeat(stack, node.auth, { models, running_jobs: 0, cpu_load: 0.1, battery_percent: battery }), 'nodeHeartbeat');

  const claim = async (node: Node, wait = 0) =>
    spec(await stack.http.post('/api/nodes/jobs/claim').set(node.auth).send({ wait_seconds: wait }), 'claimNodeJob');

  const send = async (node: Node, jobId: string, events: object[]) =>
    spec(await stack.http.post(`/api/nodes/jobs/${jobId}/events`).set(node.auth).send({ events }), 'sendNodeJobEvents');

  const start = (user: User, id: string, model = TINY, maxTokens = 32) =>
    startReply(stack, user.auth, { streamId: id, modelId: model, prompt: 'Hello there', params: { max_tokens: maxTokens } });

  const balance = async (u: User) =>
    (await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body as { balance: number; pending_balance: number };

  /** Claims until the job with this id comes (the queue may hold others' jobs of earlier tests only if they failed). */
  async function claimJob(node: Node, id: string) {
    const res = await claim(node, 5);
    expect(res.status).toBe(200);
    expect(res.body.job_id).toBe(id);
    return res.body as { job_id: string; params: { max_tokens: number }; lock_ms: number; max_bytes: number; first_token_ms: number };
  }

  beforeAll(async () => {
    stack = await startStack({
      env: {
        JOIN_TOKEN_RATE_LIMIT: '30',
        // Live for three beats: 9 s, so a test process starved of CPU for seconds on a loaded machine (between two of
        // its node's calls) is not taken for a node gone silent. A silent node still loses its job within the lock time.
        HEARTBEAT_SECONDS: '3',
        JOB_LOCK_MS: String(JOB_LOCK_MS),
        JOB_STALLED_INTERVAL_MS: '1000',
        REAPER_INTERVAL_MS: '500',
        REPLY_TIMEOUT_SECONDS: '120',
      },
    });
    owner = await newUser(stack, 'provider');
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  describe('pairing', () => {
    it('counts uptime from pairing: a node that has called in since it paired is up all that time, not only until its last call', async () => {
      const node = await pair(owner);
      await new Promise((r) => setTimeout(r, 1_500));
      const nodes = (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes as Array<{ id: string; uptime_30d: number }>;
      expect(nodes.find((n) => n.id === node.id)!.uptime_30d).toBeGreaterThanOrEqual(0.9);
      await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
    });

    it('a join token pairs once: a second use, a late use or an unknown token gets 401 and creates nothing', async () => {
      const res = spec(await stack.http.post('/api/nodes/join-tokens').set(owner.auth), 'createJoinToken');
      const token = res.body.join_token as string;
      expect(token).toMatch(/^glb_join_[A-Za-z0-9_-]{32}$/);
      // This stack serves no agent package (the packed agent's test serves one): the command names the package.
      expect(res.body.agent).toBeNull();
      expect(res.body.command).toBe(`npx --yes glob-node --api ${stack.config.publicApiUrl} --join-token ${token}`);
      expect(new Date(res.body.expires_at as string).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
      const rows = (await stack.db.query(`SELECT token_hash FROM node_join_tokens`)) as Array<{ token_hash: string }>;
      expect(rows.map((r) => r.token_hash)).not.toContain(token);

      const count = async () => Number(((await stack.db.query(`SELECT count(*) FROM nodes`)) as Array<{ count: string }>)[0]!.count);
      const first = spec(await register(token), 'registerNode');
      expect(first.status).toBe(201);
      expect(first.body.credential).toMatch(/^glb_node_[A-Za-z0-9_-]{32}$/);
      expect(first.body.allocation).toEqual({ cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 });
      const before = await count();

      const again = spec(await register(token), 'registerNode');
      expect(again.status).toBe(401);
      expect(again.body.message).toBe('This join token is invalid or has expired. Create a new one in the web app.');

      const late = await joinToken(owner);
      await stack.db.query(`UPDATE node_join_tokens SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
      expect(spec(await register(late), 'registerNode').status).toBe(401);
      expect(spec(await register('glb_join_nothing-like-a-real-token-000000'), 'registerNode').status).toBe(401);
      expect(await count()).toBe(before);
    });

    it('join tokens are limited per account (429 beyond)', async () => {
      const u = await newUser(stack, 'eager');
      for (let i = 0; i < 30; i++) await joinToken(u);
      const res = spec(await stack.http.post('/api/nodes/join-tokens').set(u.auth), 'createJoinToken');
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('a node credential works only on node operations, and a user token never on them', async () => {
      const node = await pair(owner);
      expect((await stack.http.get('/api/nodes').set(node.auth)).status).toBe(401);
      expect((await stack.http.get(`/api/wallet/${owner.id}/balance`).set(node.auth)).status).toBe(401);
      const asUser = spec(await stack.http.post('/api/nodes/heartbeat').set(owner.auth).send({ models: [], running_jobs: 0 }), 'nodeHeartbeat');
      expect(asUser.status).toBe(401);
      expect(asUser.body.message).toBe('This node credential is invalid or has been revoked. Pair the node again.');
      expect(spec(await stack.http.post('/api/nodes/jobs/claim').send({ wait_seconds: 0 }), 'claimNodeJob').status).toBe(401);
      const ok = await heartbeat(node);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ node_id: node.id, paused: false, earned: 0, pending: 0 });

      const list = spec(await stack.http.get('/api/nodes').set(owner.auth), 'listNodes');
      expect(list.body.nodes.find((n: { id: string }) => n.id === node.id)).toMatchObject({ status: 'online', models: [TINY], tasks_served: 0 });
      const models = (await stack.http.get('/api/inference/models').set(owner.auth).expect(200)).body.models as Array<{ id: string; nodes: number }>;
      expect(models.find((m) => m.id === TINY)!.nodes).toBeGreaterThan(0);
    });

    it("another user's node is not found; the owner renames, pauses and sets its allocation", async () => {
      const node = await pair(owner);
      const other = await newUser(stack, 'other');
      expect(spec(await stack.http.patch(`/api/nodes/${node.id}`).set(other.auth).send({ paused: true }), 'updateNode').status).toBe(404);
      expect(spec(await stack.http.delete(`/api/nodes/${node.id}`).set(other.auth), 'revokeNode').status).toBe(404);
      const res = spec(
        await stack.http
          .patch(`/api/nodes/${node.id}`)
          .set(owner.auth)
          .send({ name: 'renamed', allocation: { cpu_percent: 80, memory_percent: 20, gpu_percent: 0 } }),
        'updateNode',
      );
      expect(res.body).toMatchObject({ name: 'renamed', status: 'online', allocation: { cpu_percent: 80, memory_percent: 20, gpu_percent: 0 } });
      expect(
        spec(
          await stack.http
            .patch(`/api/nodes/${node.id}`)
            .set(owner.auth)
            .send({ allocation: { cpu_percent: 90, memory_percent: 20, gpu_percent: 0 } }),
          'updateNode',
        ).status,
      ).toBe(400);
      expect((await heartbeat(node)).body).toMatchObject({ name: 'renamed', allocation: { cpu_percent: 80 } });
      await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
    });
  });

  describe('jobs', () => {
    it('a remote node serves a reply: claim → tokens → done; the requester streams it, the task names the node, the charge is exact', async () => {
      const node = await pair(owner);
      const u = await newUser(stack, 'requester');
      const id = streamId();
      const reading = start(u, id).then((res) => readSse(res));
      const job = await claimJob(node, id);
      expect(job.lock_ms).toBe(JOB_LOCK_MS);
      expect(job.params.max_tokens).toBe(32);

      expect((await send(node, id, [{ type: 'token', text: 'Hi' }])).body).toEqual({ stop: false });
      await new Promise((r) => setTimeout(r, 50));
      await send(node, id, [
        { type: 'token', text: ' there' },
        { type: 'token', text: '!' },
        { type: 'done', usage: { prompt_tokens: 12, completion_tokens: 3 }, stop_reason: 'stop' },
      ]);
      const events: SseEvent[] = await reading;
      expect(replyText(events)).toBe('Hi there!');
      // Billed by the platform's own count of the prompt it sent and the text it relayed, not by the node's report.
      const counter = stack.app.get(TokenCounter);
      const prompt = await counter.countPrompt(TINY, [{ role: 'user', content: 'Hello there' }]);
      const completion = await counter.countText(TINY, 'Hi there!');
      expect([prompt, completion]).not.toEqual([12, 3]);
      expect(events.at(-1)!.data).toMatchObject({
        type: 'done',
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        stop_reason: 'stop',
      });

      const t = await taskOf(stack, id);
      expect(t).toMatchObject({ status: 'completed', node_id: node.id, prompt_tokens: prompt, completion_tokens: completion });
      expect(t).toMatchObject({ reported_prompt_tokens: 12, reported_completion_tokens: 3 });
      expect(Number(t.charged_units)).toBe((prompt + completion) * Number(t.price_units));
      expect((await balance(u)).pending_balance).toBe(0);

      const mine = spec(await stack.http.get('/api/nodes').set(owner.auth), 'listNodes').body.nodes.find((n: { id: string }) => n.id === node.id);
      expect(mine).toMatchObject({ tasks_served: 1 });
      expect(mine.measured_tokens_per_second).toBeGreaterThan(0);

      // After the end: 409; from a node that never held it: 403.
      const late = await send(node, id, [{ type: 'token', text: 'more' }]);
      expect(late.status).toBe(409);
      expect(late.body.message).toBe(`Job ${id} has already ended`);
      const stranger = await pair(owner, []);
      const notHeld = await send(stranger, id, [{ type: 'token', text: 'x' }]);
      expect(notHeld.status).toBe(403);
      expect(notHeld.body.message).toBe(`This node does not hold job ${id}`);
      expect(spec(await stack.http.post(`/api/nodes/jobs/${id}/return`).set(stranger.auth), 'returnNodeJob').status).toBe(403);
    });

    it("refuses oversized batches (413); a stop ends the reply at the API at once, charged by the platform's count", async () => {
      const node = await pair(owner);
      const u = await newUser(stack, 'stopper');
      const id = streamId();
      const reading = start(u, id, TINY, 8).then((res) => readSse(res));
      await claimJob(node, id);

      const many = await send(
        node,
        id,
        Array.from({ length: 513 }, () => ({ type: 'token', text: 'a' })),
      );
      expect(many.status).toBe(413);
      expect(many.body).toEqual({ statusCode: 413, message: 'At most 512 events and 256 KiB per call', error: 'Payload Too Large' });
      const big = await send(node, id, [
        { type: 'token', text: 'x'.repeat(60_000) },
        ...Array.from({ length: 4 }, () => ({ type: 'token', text: 'y'.repeat(60_000) })),
      ]);
      expect(big.status).toBe(413);
      expect(big.body.message).toBe('At most 512 events and 256 KiB per call');
      const notLast = await send(node, id, [
        { type: 'error', message: 'x' },
        { type: 'token', text: 'y' },
      ]);
      expect(notLast.status).toBe(400);
      expect(await taskOf(stack, id)).toMatchObject({ status: 'running', charged_units: null });

      expect((await send(node, id, [{ type: 'token', text: 'Stopping' }])).body).toEqual({ stop: false });
      await stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
      // The reply ends without waiting for the node: what it sends next is not relayed, it is told to stop, and its
      // done event (its commitment) is taken; after that the job has ended.
      const events = await reading;
      expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
      expect((await send(node, id, [{ type: 'token', text: ' more' }])).body).toEqual({ stop: true });
      const done = { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 1 }, stop_reason: 'abort' };
      expect((await send(node, id, [done])).body).toEqual({ stop: true });
      expect((await send(node, id, [{ type: 'token', text: ' more' }])).status).toBe(409);
      expect(replyText(events)).toBe('Stopping');
      const t = await taskOf(stack, id);
      const counter = stack.app.get(TokenCounter);
      const used = (await counter.countPrompt(TINY, [{ role: 'user', content: 'Hello there' }])) + (await counter.countText(TINY, 'Stopping'));
      expect(Number(t.charged_units)).toBe(used * Number(t.price_units));
    });

    it('never gives a job for a model the node did not declare, nor any job to a paused node', async () => {
      const tinyOnly = await pair(owner, [TINY]);
      const lone = await pair(owner, [LONE]);
      const u = await newUser(stack, 'choosy');
      const id = streamId();
      const reading = start(u, id, LONE).then((res) => readSse(res));
      await new Promise((r) => setTimeout(r, 200));
      expect((await claim(tinyOnly, 1)).status).toBe(204);

      await stack.http.patch(`/api/nodes/${lone.id}`).set(owner.auth).send({ paused: true }).expect(200);
      expect((await heartbeat(lone, [LONE])).body.paused).toBe(true);
      expect((await claim(lone, 1)).status).toBe(204);
      await stack.http.patch(`/api/nodes/${lone.id}`).set(owner.auth).send({ paused: false }).expect(200);

      // A node on battery below 20 % pauses itself.
      expect((await heartbeat(lone, [LONE], 15)).body.paused).toBe(true);
      expect((await claim(lone, 1)).status).toBe(204);
      await heartbeat(lone, [LONE], null);

      await claimJob(lone, id);
      await send(lone, id, [{ type: 'error', message: 'out of memory' }]);
      const events = await reading;
      expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'INTERNAL_ERROR' });
      expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
      expect((await balance(u)).pending_balance).toBe(0);
    });

    it('a node that hangs up while its claim waits is never handed a job: the next node gets it', async () => {
      const gone = await pair(owner, [TINY]);
      const next = await pair(owner, [TINY]);
      const hangUp = new AbortController();
      const waiting = fetch(`${stack.url}/api/nodes/jobs/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...gone.auth },
        body: JSON.stringify({ wait_seconds: 10 }),
        signal: hangUp.signal,
      }).catch((err: Error) => err.name);
      await new Promise((r) => setTimeout(r, 300));
      hangUp.abort();
      expect(await waiting).toBe('AbortError');
      await new Promise((r) => setTimeout(r, 100));
      const u = await newUser(stack, 'after-hang-up');
      const id = streamId();
      const reading = start(u, id).then((res) => readSse(res));
      // A claim still waiting for the node that left would take the job within these 300 ms; the next node must get
      // it at once (had it gone to the node that left, it would wait out its 2 s lock first).
      await new Promise((r) => setTimeout(r, 300));
      const res = await claim(next, 1);
      expect(res.status).toBe(200);
      expect(res.body.job_id).toBe(id);
      await send(next, id, [
        { type: 'token', text: 'Hi' },
        { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 1 }, stop_reason: 'stop' },
      ]);
      expect((await reading).at(-1)!.data).toMatchObject({ type: 'done' });
      expect(await taskOf(stack, id)).toMatchObject({ status: 'completed', node_id: next.id });
    });

    it('a claim waiting for work wakes as soon as a job is queued', async () => {
      const node = await pair(owner, [TINY]);
      const u = await newUser(stack, 'prompt');
      const id = streamId();
      const claimed = claim(node, 10);
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      const reading = start(u, id).then((res) => readSse(res));
      const res = await claimed;
      expect(res.status).toBe(200);
      expect(res.body.job_id).toBe(id);
      expect(Date.now() - t0).toBeLessThan(1000);
      await send(node, id, [{ type: 'done', usage: { prompt_tokens: 4, completion_tokens: 0 }, stop_reason: 'stop' }]);
      await reading;
    });

    it('a claim waiting while its node has no model loaded, or is paused, wakes at the change and takes the job waiting', async () => {
      const node = await pair(owner, [TINY]);
      const u = await newUser(stack, 'woken-by-change');
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const done = [{ type: 'done', usage: { prompt_tokens: 4, completion_tokens: 0 }, stop_reason: 'stop' }];
      // Each claim waits 3 s, less than a claim's own look again (5 s): only the node's change can hand it the job.
      await heartbeat(node, []);
      const loading = claim(node, 3);
      await sleep(300);
      const first = streamId();
      const firstReading = start(u, first).then((res) => readSse(res));
      await sleep(300);
      await heartbeat(node, [TINY]);
      const loaded = await loading;
      expect(loaded.status).toBe(200);
      expect(loaded.body.job_id).toBe(first);
      await send(node, first, done);
      await firstReading;

      await stack.http.patch(`/api/nodes/${node.id}`).set(owner.auth).send({ paused: true }).expect(200);
      const paused = claim(node, 3);
      await sleep(300);
      const second = streamId();
      const secondReading = start(u, second).then((res) => readSse(res));
      await sleep(300);
      await stack.http.patch(`/api/nodes/${node.id}`).set(owner.auth).send({ paused: false }).expect(200);
      const resumed = await paused;
      expect(resumed.status).toBe(200);
      expect(resumed.body.job_id).toBe(second);
      await send(node, second, done);
      await secondReading;
    });

    it('revoking a node mid-job: its next call is 401 and the job goes to another node', async () => {
      const doomed = await pair(owner, [TINY]);
      const u = await newUser(stack, 'patient');
      const id = streamId();
      const reading = start(u, id).then((res) => readSse(res));
      await claimJob(doomed, id);
      await stack.http.delete(`/api/nodes/${doomed.id}`).set(owner.auth).expect(204);
      expect((await heartbeat(doomed)).status).toBe(401);
      expect(
        spec(
          await stack.http
            .post(`/api/nodes/jobs/${id}/events`)
            .set(doomed.auth)
            .send({ events: [{ type: 'token', text: 'x' }] }),
          'sendNodeJobEvents',
        ).status,
      ).toBe(401);
      expect(
        (spec(await stack.http.get('/api/nodes').set(owner.auth), 'listNodes').body.nodes as Array<{ id: string }>).map((n) => n.id),
      ).not.toContain(doomed.id);

      const rescuer = await pair(owner, [TINY]);
      await claimJob(rescuer, id);
      await send(rescuer, id, [
        { type: 'token', text: 'Saved' },
        { type: 'done', usage: { prompt_tokens: 4, completion_tokens: 1 }, stop_reason: 'stop' },
      ]);
      const events = await reading;
      expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
      expect(await taskOf(stack, id)).toMatchObject({ status: 'completed', node_id: rescuer.id });
    });

    it('a node returning a job it started ends the reply cleanly, at no charge', async () => {
      const node = await pair(owner, [TINY]);
      const u = await newUser(stack, 'returned');
      const id = streamId();
      const reading = start(u, id).then((res) => readSse(res));
      await claimJob(node, id);
      await send(node, id, [{ type: 'token', text: 'Half' }]);
      expect(spec(await stack.http.post(`/api/nodes/jobs/${id}/return`).set(node.auth), 'returnNodeJob').status).toBe(204);
      const events = await reading;
      expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
      expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
      expect(spec(await stack.http.post(`/api/nodes/jobs/${id}/return`).set(node.auth), 'returnNodeJob').status).toBe(409);
    });

    it('a node that goes silent mid-reply loses the job: the reply ends with WORKER_FAILED within the lock time, nothing charged', async () => {
      const node = await pair(owner, [LONE]);
      const u = await newUser(stack, 'abandoned');
      const id = streamId();
      const reading = start(u, id, LONE).then((res) => readSse(res));
      await claimJob(node, id);
      await send(node, id, [{ type: 'token', text: 'Once upon' }]);
      const t0 = Date.now();
      const events = await reading;
      expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
      // The lock's time (or the node's three beats, 9 s, if later), and the stalled-job check and the reaper that act on it.
      expect(Date.now() - t0).toBeLessThan(JOB_LOCK_MS + 7_000);
      expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
      expect(await balance(u)).toEqual(expect.objectContaining({ pending_balance: 0 }));
      // The node comes back: the job is no longer its own.
      expect((await send(node, id, [{ type: 'token', text: ' a time' }])).status).toBe(409);
    }, 30_000);
  });
});
