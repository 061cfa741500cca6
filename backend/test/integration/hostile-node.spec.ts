import OpenAI from 'openai';
import { SLOW_NODE } from '../../src/modules/nodes/node-job-holds.service';
import { TokenCounter } from '../../src/modules/catalog/token-counter';
import { LOWEST_HARDWARE_SCORE } from '../../src/modules/rewards/rewards';
import { startStack, TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { ledgerCheckCli } from '../support/ledger-check';
import { modelsProof, ScriptedNode, TEST_HOST } from '../support/scripted-node';
import { newUser, walletUnits } from '../support/users';
import { readSse, startReply, taskOf } from '../support/worker';

/** Each attack on a model of its own, so no job of one test waits in another's queue. */
const MODELS = {
  usage: 'glob-tiny-chat',
  flood: 'llama-3.2-1b-instruct',
  hoard: 'llama-3-8b-instruct',
  key: 'llama-3.3-70b-instruct',
  speed: 'llama-3-70b-instruct',
};
const PROMPT = 'Tell me about rivers';
let seq = 0;
const streamId = () => `h_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/**
 * A node is a stranger: a script that speaks the node API (not the project's agent) tries each lie and abuse a
 * modified agent could, and the platform must neither bill, pay nor slow down because of it.
 */
// Each test pairs a scripted node whose model proof runs the tiny model in a child process: on a loaded machine that
// alone can take most of the default 30 s.
jest.setTimeout(90_000);

describe('a hostile node', () => {
  let stack: TestStack;
  let owner: User;
  let counter: TokenCounter;

  const balanceUnits = (u: User) => walletUnits(stack, u);
  const start = (u: User, id: string, modelId: string, maxTokens: number) =>
    startReply(stack, u.auth, { streamId: id, modelId, prompt: PROMPT, params: { max_tokens: maxTokens } }).then((res) => readSse(res));
  const promptTokens = () => counter.countPrompt(MODELS.usage, [{ role: 'user', content: PROMPT }]);

  beforeAll(async () => {
    stack = await startStack({
      env: {
        HEARTBEAT_SECONDS: '5',
        JOB_LOCK_MS: '10000',
        JOB_STALLED_INTERVAL_MS: '1000',
        REAPER_INTERVAL_MS: '500',
        // Short enough for the hoarding test to see three misses, long enough that a scripted node's claim-then-send
        // never misses it on a loaded machine (CI's, with every stage running, once took over 10 s).
        NODE_FIRST_TOKEN_SECONDS: '20',
        JOIN_TOKEN_RATE_LIMIT: '50',
      },
    });
    owner = await newUser(stack, 'hostile-owner');
    counter = stack.app.get(TokenCounter);
  }, 60_000);
  afterAll(async () => {
    try {
      if (stack) expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
    } finally {
      await stack?.close();
    }
  }, 60_000);

  it('a model is offered only once proven: claiming every catalog model without its file makes none available, in either list', async () => {
    const everything = Object.values(MODELS).filter((m, i, all) => all.indexOf(m) === i);
    const pretender = await ScriptedNode.pair(stack, owner, { models: [] });
    const u = await newUser(stack, 'model-lister');
    const key = (await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'lister' })).body.key as string;
    const client = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const offered = async () => {
      const models = (await stack.http.get('/api/inference/models').set(u.auth).expect(200)).body.models as Array<{ id: string; status: string }>;
      return { app: models.filter((m) => m.status === 'available').map((m) => m.id), v1: (await client.models.list()).data.map((m) => m.id) };
    };
    // It answers every challenge with made-up hashes, heartbeat after heartbeat.
    for (let beat = 0; beat < 3; beat++) {
      const res = await pretender.heartbeat(everything);
      const challenges = res.body.challenges as Array<{ challenge_id: string; model_id: string }>;
      expect(challenges.map((c) => c.model_id).sort()).toEqual([...everything].sort());
      await stack.http
        .post('/api/nodes/heartbeat')
        .set(pretender.auth)
        .send({
          models: everything,
          running_jobs: 0,
          proofs: challenges.map((c) => ({ challenge_id: c.challenge_id, range_hashes: ['0'.repeat(64)], text: 'x' })),
        })
        .expect(200);
    }
    expect(await offered()).toEqual({ app: [], v1: [] });
    const mine = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === pretender.id);
    expect(mine).toMatchObject({ models: [], proven_models: [] });

    // With the file at hand it proves one (no trusted generator runs here to judge its text): that one only.
    await pretender.prove([MODELS.usage]);
    expect(await offered()).toEqual({ app: [MODELS.usage], v1: [MODELS.usage] });
    const proven = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === pretender.id);
    expect(proven.proven_models).toEqual([{ model_id: MODELS.usage, proven_at: expect.any(String) }]);
    await stack.http.delete(`/api/nodes/${pretender.id}`).set(owner.auth).expect(204);
  });

  it('inflated usage is billed by the platform’s count: one character reported as 34 + 2,048 tokens costs one token', async () => {
    const liar = await ScriptedNode.pair(stack, owner, { models: [MODELS.usage], write: modelsProof });
    const u = await newUser(stack, 'usage-victim');
    const before = await balanceUnits(u);
    const id = streamId();
    const reading = start(u, id, MODELS.usage, 2048);
    const job = (await liar.claim())!;
    expect(job.job_id).toBe(id);
    await liar.send(id, [
      { type: 'token', text: 'x' },
      { type: 'done', usage: { prompt_tokens: 34, completion_tokens: 2048 }, stop_reason: 'length' },
    ]);
    const done = (await reading).at(-1)!.data;
    const used = (await promptTokens()) + (await counter.countText(MODELS.usage, 'x'));
    expect(done).toMatchObject({ type: 'done', usage: { total_tokens: used } });
    const t = await taskOf(stack, id);
    expect(Number(t.charged_units)).toBe(used * Number(t.price_units));
    expect(t).toMatchObject({ reported_prompt_tokens: 34, reported_completion_tokens: 2048 });
    const after = await balanceUnits(u);
    expect(before.balance - after.balance).toBe(used * Number(t.price_units));
    expect(after.held).toBe(0);
  });

  it('through /v1 with max_tokens 8,192, a two-character reply reported as 8,192 tokens does not empty the wallet', async () => {
    const liar = await ScriptedNode.pair(stack, owner, { models: [MODELS.usage], write: modelsProof });
    const u = await newUser(stack, 'v1-victim');
    const key = await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'victim key' });
    expectSpecResponse(key, 'createApiKey');
    const client = new OpenAI({ apiKey: key.body.key as string, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const before = await balanceUnits(u);
    const asking = client.chat.completions.create({ model: MODELS.usage, messages: [{ role: 'user', content: PROMPT }], max_tokens: 8192 });
    const job = (await liar.claim())!;
    await liar.send(job.job_id, [
      { type: 'token', text: 'ok' },
      { type: 'done', usage: { prompt_tokens: 20, completion_tokens: 8192 }, stop_reason: 'length' },
    ]);
    const answer = await asking;
    expect(answer.choices[0]!.message.content).toBe('ok');
    const used = (await promptTokens()) + (await counter.countText(MODELS.usage, 'ok'));
    expect(answer.usage?.total_tokens).toBe(used);
    expect(before.balance - (await balanceUnits(u)).balance).toBe(used * 125);
  });

  it('a flood is cut at the job’s byte cap: the job fails at no charge, the stream holds no more than the cap, health answers', async () => {
    const flooder = await ScriptedNode.pair(stack, owner, { models: [MODELS.flood], write: modelsProof });
    const u = await newUser(stack, 'flood-victim');
    const before = await balanceUnits(u);
    const id = streamId();
    const reading = start(u, id, MODELS.flood, 16);
    const job = (await flooder.claim())!;
    expect(job.params.max_tokens).toBe(16);
    expect(job.max_bytes).toBe(16 * (await counter.maxTokenBytes(MODELS.flood)) + 256);
    const chunk = 'y'.repeat(60_000);
    let sent = 0;
    let status = 200;
    const health: number[] = [];
    while (status === 200 && sent < 10 * job.max_bytes + 1e6) {
      const res = await flooder.send(id, [{ type: 'token', text: chunk }]);
      status = res.status;
      if (status === 200) sent += chunk.length;
      health.push((await stack.http.get('/api/health')).status);
    }
    expect(status).toBe(413);
    expect(sent).toBeLessThanOrEqual(job.max_bytes);
    expect(health.every((s) => s === 200)).toBe(true);
    const events = await reading;
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    const relayed = events.filter((e) => e.data.type === 'token').reduce((n, e) => n + Buffer.byteLength(e.data.text as string), 0);
    expect(relayed).toBeLessThanOrEqual(job.max_bytes);
    expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
    expect(await balanceUnits(u)).toEqual(before);
    expect((await flooder.send(id, [{ type: 'token', text: 'more' }])).status).toBe(409);
  });

  it('more token events than a job’s completion cap end it as failed, whatever their size', async () => {
    const chatty = await ScriptedNode.pair(stack, owner, { models: [MODELS.flood], write: modelsProof });
    const u = await newUser(stack, 'events-victim');
    const id = streamId();
    const reading = start(u, id, MODELS.flood, 4);
    const job = (await chatty.claim())!;
    const res = await chatty.send(
      job.job_id,
      Array.from({ length: 4 + 17 }, () => ({ type: 'token', text: 'z' })),
    );
    expect(res.status).toBe(413);
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'error' });
    expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
  });

  it('a hoarder holds no more jobs than its slots, loses each at the first-token deadline, is paused after three misses, and another node serves the replies', async () => {
    const hoarder = await ScriptedNode.pair(stack, owner, { models: [MODELS.hoard], slots: 1 });
    const honest = await ScriptedNode.pair(stack, owner, { models: [MODELS.hoard], slots: 4 });
    const u = await newUser(stack, 'hoard-victim');
    const ids = [streamId(), streamId(), streamId()];
    const readings = ids.map((id) => start(u, id, MODELS.hoard, 8));
    await new Promise((r) => setTimeout(r, 300));

    // One slot: holding a job, it gets no other, at once. It sits on each (heartbeating, no token) until the
    // deadline takes it back and frees the slot.
    let job = await hoarder.claim(5);
    for (let miss = 1; miss <= 3; miss++) {
      expect(job).not.toBeNull();
      const t0 = Date.now();
      expect(await hoarder.claim(5)).toBeNull();
      expect(Date.now() - t0).toBeLessThan(4_000);
      const held = job!.job_id;
      let next: typeof job = null;
      while (!next) {
        await hoarder.heartbeat([MODELS.hoard], 1);
        await honest.heartbeat([MODELS.hoard], 0); // stays online, waiting its turn
        if (miss === 3) {
          const nodes = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes as Array<{ id: string; status: string }>;
          if (nodes.find((n) => n.id === hoarder.id)!.status === 'paused') break;
        } else next = await hoarder.claim(0);
        await new Promise((r) => setTimeout(r, 200));
      }
      // Its one slot is free again only because the deadline took the job back (it may be offered the same one).
      if (next && next.job_id !== held) expect((await hoarder.send(held, [{ type: 'token', text: 'late' }])).status).toBe(403);
      job = next;
    }
    const mine = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes as Array<{
      id: string;
      status: string;
      paused_reason: string | null;
    }>;
    expect(mine.find((n) => n.id === hoarder.id)).toMatchObject({ status: 'paused', paused_reason: SLOW_NODE });
    expect(mine.find((n) => n.id === honest.id)).toMatchObject({ paused_reason: null });
    expect(await hoarder.claim(1)).toBeNull();

    for (let i = 0; i < ids.length; i++) {
      const job = (await honest.claim(5))!;
      await honest.send(job.job_id, [
        { type: 'token', text: 'Served' },
        { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop' },
      ]);
    }
    for (const [i, r] of readings.entries()) {
      expect((await r).at(-1)!.data).toMatchObject({ type: 'done' });
      expect(await taskOf(stack, ids[i]!)).toMatchObject({ status: 'completed', node_id: honest.id });
    }

    // The owner resumes it: it is a node again, its misses forgotten.
    await stack.http.patch(`/api/nodes/${hoarder.id}`).set(owner.auth).send({ paused: false }).expect(200);
    const resumed = (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === hoarder.id);
    expect(resumed).toMatchObject({ paused_reason: null });
  }, 240_000);

  it('a faked benchmark gives the lowest score, and a dumped reply does not raise it: the platform’s clock and count decide', async () => {
    const braggart = await ScriptedNode.pair(stack, owner, {
      models: [MODELS.speed],
      tokensPerSecond: 1_000_000,
      host: { ...TEST_HOST, gpu: 'Imaginary RTX 9090', vram_bytes: 80 * 2 ** 30 },
    });
    const score = async () =>
      (await stack.http.get('/api/nodes').set(owner.auth)).body.nodes.find((n: { id: string }) => n.id === braggart.id) as {
        hardware_score: number;
        measured_tokens_per_second: number | null;
      };
    expect(await score()).toMatchObject({ hardware_score: LOWEST_HARDWARE_SCORE, measured_tokens_per_second: null });

    const u = await newUser(stack, 'speed-victim');
    const id = streamId();
    const reading = start(u, id, MODELS.speed, 64);
    const job = (await braggart.claim())!;
    await new Promise((r) => setTimeout(r, 500));
    const text = 'word '.repeat(60);
    await braggart.send(job.job_id, [
      { type: 'token', text },
      { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 60 }, stop_reason: 'stop' },
    ]);
    await reading;
    const after = await score();
    expect(after.hardware_score).toBe(LOWEST_HARDWARE_SCORE);
    // Everything came at once after half a second: the platform timed it from the claim.
    const counted = Math.min(64, await counter.countText(MODELS.speed, text));
    expect(after.measured_tokens_per_second).toBeLessThanOrEqual(counted / 0.5);
    const [reward] = (await stack.db.query(
      `SELECT hardware_score FROM node_rewards r JOIN inference_tasks t ON t.id = r.task_id WHERE t.stream_id = $1`,
      [id],
    )) as Array<{ hardware_score: string }>;
    expect(Number(reward!.hardware_score)).toBe(LOWEST_HARDWARE_SCORE);
  });

  it('a revoked API key’s stream ends at the API at once, whatever the node does, charged for what was relayed', async () => {
    const slowpoke = await ScriptedNode.pair(stack, owner, { models: [MODELS.key], write: modelsProof });
    const u = await newUser(stack, 'key-revoker');
    const created = await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'revoked soon' });
    const client = new OpenAI({ apiKey: created.body.key as string, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: MODELS.key,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
    const job = (await slowpoke.claim())!;
    await slowpoke.send(job.job_id, [{ type: 'token', text: 'Before' }]);
    const chunks: string[] = [];
    let usage: number | undefined;
    const reading = (async () => {
      for await (const c of stream) {
        if (c.choices[0]?.delta.content) chunks.push(c.choices[0].delta.content);
        if (c.usage) usage = c.usage.total_tokens;
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    await stack.http
      .delete(`/api/api-keys/${created.body.api_key.id as string}`)
      .set(u.auth)
      .expect(204);
    // The node never obeys: the stream ends anyway, and what it sends next is not relayed (it is told to stop).
    await reading;
    expect(chunks.join('')).toBe('Before');
    expect((await slowpoke.send(job.job_id, [{ type: 'token', text: ' after' }])).body).toEqual({ stop: true });
    const used = (await counter.countPrompt(MODELS.key, [{ role: 'user', content: PROMPT }])) + (await counter.countText(MODELS.key, 'Before'));
    expect(usage).toBe(used);
    expect(Number((await taskOf(stack, job.job_id)).charged_units)).toBe(used * 250);
  });

  it('numeric fields at 10^20 get 400 in the Error shape, never a 500, and create nothing', async () => {
    const token = (await stack.http.post('/api/nodes/join-tokens').set(owner.auth)).body.join_token as string;
    const huge = 1e20;
    const register = await stack.http.post('/api/nodes/register').send({
      join_token: token,
      name: 'huge',
      host: { ...TEST_HOST, memory_bytes: huge },
      models: [],
      benchmark: { model_id: MODELS.usage, tokens_per_second: 1 },
    });
    expectSpecResponse(register, 'registerNode');
    expect(register.status).toBe(400);
    expect(register.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    // The token was not used up by the refused registration.
    expect(
      (
        await stack.http
          .post('/api/nodes/register')
          .send({ join_token: token, name: 'sane', host: TEST_HOST, models: [], benchmark: { model_id: MODELS.usage, tokens_per_second: 1 } })
      ).status,
    ).toBe(201);

    const node = await ScriptedNode.pair(stack, owner, { models: [MODELS.usage], write: modelsProof });
    const beat = await stack.http
      .post('/api/nodes/heartbeat')
      .set(node.auth)
      .send({ models: [], running_jobs: 0, files: [{ model_id: MODELS.usage, bytes: huge, layers: 4 }] });
    expectSpecResponse(beat, 'nodeHeartbeat');
    expect(beat.status).toBe(400);
    const usage = await node.send('h_nothing', [{ type: 'done', usage: { prompt_tokens: huge, completion_tokens: huge }, stop_reason: 'stop' }]);
    expect(usage.status).toBe(400);
    expect(usage.body).toMatchObject({ statusCode: 400 });
  });
});
