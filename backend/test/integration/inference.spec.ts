import { randomUUID } from 'node:crypto';
import { ChatService } from '../../src/modules/chat/chat.service';
import { loadCatalog } from '../../src/modules/catalog/catalog';
import { TokenCounter } from '../../src/modules/catalog/token-counter';
import { RewardsService } from '../../src/modules/rewards/rewards.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { expectSpecResponse } from '../support/contract';
import { newUser, register } from '../support/users';
import { readSse, replyText, SseEvent, startReply, startWorker, taskOf, WorkerProcess } from '../support/worker';
import { startStack, TestStack } from '../support/app';

const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = () => `s_${Date.now().toString(36)}_${++seq}`;
/** The tiny model's price: 0.125 GLOB (125 units) per token. */
const PRICE = 125;

describe('inference on real BullMQ workers running llama.cpp (tiny model)', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let provider: Awaited<ReturnType<typeof newUser>>;

  beforeAll(async () => {
    stack = await startStack();
    provider = await newUser(stack, 'provider');
    worker = await startWorker(stack, { WORKER_OWNER_EMAIL: provider.email }, 'worker-a');
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    await stack.close();
  }, 60_000);

  const balance = async (u: { id: string; auth: Record<string, string> }) =>
    (await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body as { balance: number; pending_balance: number };

  it('lists the catalog with each model kind: the tiny model available on a live worker, the others unavailable with the reason', async () => {
    const u = await newUser(stack, 'lister');
    const res = await stack.http.get('/api/inference/models').set(u.auth).expect(200);
    expectSpecResponse(res, 'listModels');
    const byId = Object.fromEntries(res.body.models.map((m: { id: string }) => [m.id, m]));
    expect(byId[MODEL]).toMatchObject({ kind: 'chat', status: 'available', status_reason: null, nodes: 1 });
    for (const id of ['llama-3.3-70b-instruct', 'llama-3-70b-instruct', 'llama-3.2-1b-instruct', 'llama-3-8b-instruct']) {
      expect(byId[id]).toMatchObject({ kind: 'chat', status: 'unavailable', status_reason: 'No worker has this model loaded', nodes: 0 });
    }
    // The embedding model is listed as one, so a chat model chooser can leave it out.
    expect(byId['glob-tiny-embed']).toMatchObject({ kind: 'embedding' });
    expect(res.body.models.map((m: { id: string; kind: string }) => [m.id, m.kind])).toEqual(loadCatalog(stack.config).map((m) => [m.id, m.kind]));
    const anon = await stack.http.get('/api/inference/models').expect(401);
    expect(anon.body.message).toBe('Authentication required. Please login to use AI services.');
  });

  it('streams a reply token by token, in order, then done with usage; charges exactly what was used', async () => {
    const u = await newUser(stack, 'chatter');
    const id = streamId();
    const res = await startReply(stack, u.auth, {
      streamId: id,
      modelId: MODEL,
      prompt: 'Hello there, how are you today?',
      params: { max_tokens: 40 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const tokens = events.filter((e) => e.data.type === 'token');
    const done = events.at(-1)!;
    expect(tokens.length).toBeGreaterThan(0);
    expect(done.data).toMatchObject({ type: 'done', success: true });
    expect(['stop', 'length']).toContain(done.data.stop_reason);
    const usage = done.data.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeLessThanOrEqual(40);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);

    // 0.125 GLOB per token (catalog), settled from the hold; nothing stays reserved.
    const b = await balance(u);
    expect(b).toMatchObject({ pending_balance: 0, balance: (1000_000 - usage.total_tokens * PRICE) / 1000 });
    const t = await taskOf(stack, id);
    expect(t).toMatchObject({
      status: 'completed',
      completion_tokens: usage.completion_tokens,
      node_id: worker.nodeId,
      stop_reason: done.data.stop_reason,
    });
    const tx = await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200);
    expect(tx.body.transactions[0]).toMatchObject({
      type: 'spending',
      status: 'completed',
      amount: (usage.total_tokens * PRICE) / 1000,
      reference: id,
    });
  });

  it('gives a late reader and a reconnecting reader every event', async () => {
    const u = await newUser(stack, 'late');
    const id = streamId();
    const first = await startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Tell me a story', params: { max_tokens: 30 } });
    const all = await readSse(first);
    // Late: the whole stream again, identical.
    const late = await fetch(`${stack.url}/api/inference/stream/${id}`, { headers: u.auth });
    expect(late.status).toBe(200);
    expect(await readSse(late)).toEqual(all);
    // Reconnect after event 3: exactly the rest.
    const again = await fetch(`${stack.url}/api/inference/stream/${id}`, { headers: { ...u.auth, 'Last-Event-ID': '3' } });
    expect(await readSse(again)).toEqual(all.slice(3));
    // Reconnect after the final event: the stream ends at once, with nothing more (it used to wait for events).
    const after = await fetch(`${stack.url}/api/inference/stream/${id}`, { headers: { ...u.auth, 'Last-Event-ID': String(all.length) } });
    expect(after.status).toBe(200);
    expect(await readSse(after)).toEqual([]);
    // Another user's stream does not exist for them.
    const other = await newUser(stack, 'snoop');
    expect((await fetch(`${stack.url}/api/inference/stream/${id}`, { headers: other.auth })).status).toBe(404);
  });

  it('starting the same streamId twice does not start two generations; another request on it is 409', async () => {
    const u = await newUser(stack, 'twice');
    const id = streamId();
    const body = { streamId: id, modelId: MODEL, prompt: 'Same request', params: { max_tokens: 10 } };
    const [a, b] = await Promise.all([startReply(stack, u.auth, body), startReply(stack, u.auth, body)]);
    const [ea, eb] = await Promise.all([readSse(a), readSse(b)]);
    expect(eb).toEqual(ea);
    const rows = (await stack.db.query(`SELECT count(*)::int AS n FROM inference_tasks WHERE stream_id = $1`, [id])) as Array<{ n: number }>;
    expect(rows[0]!.n).toBe(1);
    const clash = await stack.http
      .post('/api/inference/stream/start')
      .set(u.auth)
      .send({ ...body, prompt: 'Different' })
      .expect(409);
    expectSpecResponse(clash, 'startStream');
  });

  it('stops a reply within 1 s: done with stop_reason abort, charged only for what was generated', async () => {
    const u = await newUser(stack, 'stopper');
    const id = streamId();
    // Greedy decoding: this prompt runs to max_tokens without the tiny model ending on its own.
    const res = await startReply(stack, u.auth, {
      streamId: id,
      modelId: MODEL,
      prompt: 'A long answer please',
      params: { max_tokens: 1500, temperature: 0 },
    });
    let stoppedAt = 0;
    const events = await readSse(res, (e) => {
      if (e.data.type === 'token' && !stoppedAt) {
        stoppedAt = Date.now();
        void stack.http
          .post(`/api/inference/stream/${id}/stop`)
          .set(u.auth)
          .then((r) => {
            expect(r.status).toBe(200);
            expectSpecResponse(r, 'stopStream');
          });
      }
    });
    const done = events.at(-1)!;
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    expect(done.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    const used = done.data.usage!.total_tokens;
    expect(done.data.usage!.completion_tokens).toBeLessThan(1500);
    expect((await balance(u)).balance).toBe((1000_000 - used * PRICE) / 1000);
    const again = await stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
    expect(again.body).toEqual({ stopped: false, stream_id: id });
    const stranger = await newUser(stack, 'stranger');
    await stack.http.post(`/api/inference/stream/${id}/stop`).set(stranger.auth).expect(404);
  });

  it('answers 402 INSUFFICIENT_TOKENS when the balance cannot pay for the prompt, and stops at the budget', async () => {
    const poor = await newUser(stack, 'poor');
    const sink = await newUser(stack, 'sink');
    // Spend all but 1.25 GLOB of the welcome bonus (it cannot be transferred away).
    const ledger = stack.app.get(LedgerService);
    const drain = await ledger.reserve(poor.id, 1000_000 - 10 * PRICE, 'earlier replies', `drain-${poor.id}`);
    await ledger.settle(drain.holdId, 1000_000 - 10 * PRICE);
    // 1.25 GLOB = 10 tokens of the tiny model: not enough for this prompt.
    const res = await stack.http
      .post('/api/inference/stream/start')
      .set(poor.auth)
      .send({ streamId: streamId(), modelId: MODEL, prompt: 'x'.repeat(400) })
      .expect(402);
    expectSpecResponse(res, 'startStream');
    expect(res.body.error).toBe('INSUFFICIENT_TOKENS');
    expect(res.body.message.toLowerCase()).toContain('insufficient tokens');
    // In a conversation, a refused prompt is not saved (retrying it must not store it twice).
    const conv = await stack.http.post('/api/chat/conversations').set(poor.auth).send({ title: 'Refused', model_id: MODEL }).expect(201);
    const cid = conv.body.conversation.id as string;
    for (let i = 0; i < 2; i++) {
      await stack.http
        .post('/api/inference/stream/start')
        .set(poor.auth)
        .send({ streamId: streamId(), modelId: MODEL, prompt: 'x'.repeat(400), conversation_id: cid })
        .expect(402);
    }
    const saved = await stack.http.get(`/api/chat/conversations/${cid}`).set(poor.auth).expect(200);
    expect(saved.body.conversation.messages).toEqual([]);

    // Enough for a short prompt and a few tokens only: generation ends with stop_reason budget.
    await stack.http.post(`/api/wallet/${sink.id}/purchase`).set(sink.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    await stack.http
      .post(`/api/wallet/${sink.id}/transfer`)
      .set(sink.auth)
      .send({ to_address: poor.address, amount: (30 * PRICE) / 1000 })
      .expect(201);
    const id = streamId();
    // Greedy decoding makes the tiny model's reply deterministic (it does not happen to end on its own here).
    const events = await readSse(
      await startReply(stack, poor.auth, { streamId: id, modelId: MODEL, prompt: 'Hi', params: { max_tokens: 500, temperature: 0 } }),
    );
    const done = events.at(-1)!;
    expect(done.data).toMatchObject({ type: 'done', stop_reason: 'budget' });
    expect(await balance(poor)).toMatchObject({ balance: 0, pending_balance: 0 });
  });

  it('answers 404 for an unknown model and 503 for a model no worker has loaded', async () => {
    const u = await newUser(stack, 'picky');
    const unknown = await stack.http
      .post('/api/inference/stream/start')
      .set(u.auth)
      .send({ streamId: streamId(), modelId: 'gpt-9', prompt: 'hi' })
      .expect(404);
    expectSpecResponse(unknown, 'startStream');
    const offline = await stack.http
      .post('/api/inference/stream/start')
      .set(u.auth)
      .send({ streamId: streamId(), modelId: 'llama-3.3-70b-instruct', prompt: 'hi' })
      .expect(503);
    expectSpecResponse(offline, 'startStream');
    expect((await balance(u)).pending_balance).toBe(0);
  });

  it('generate waits for the same job and returns choices, usage and cost', async () => {
    const u = await newUser(stack, 'waiter');
    const res = await stack.http
      .post('/api/inference/generate')
      .set(u.auth)
      .send({ model_id: MODEL, prompt: 'Write a haiku', maxTokens: 20, temperature: 0.7, top_p: 0.9 })
      .expect(200);
    expectSpecResponse(res, 'generate');
    expect(res.body.choices[0].text.length).toBeGreaterThan(0);
    expect(res.body.usage.completion_tokens).toBeLessThanOrEqual(20);
    expect(res.body.cost).toBe((res.body.usage.total_tokens * PRICE) / 1000);
  });

  it("records the node owner's reward as pending, pays it once after the window, and the stats count tasks, data and the live node", async () => {
    const u = await newUser(stack, 'customer');
    const id = streamId();
    await readSse(await startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Reward my provider', params: { max_tokens: 16 } }));
    const t = await taskOf(stack, id);
    const [node] = (await stack.db.query(`SELECT hardware_score FROM nodes WHERE id = $1`, [worker.nodeId])) as Array<{ hardware_score: string }>;
    // 25 GLOB × difficulty × score for a standard task of 1,000 tokens, pro rata to the tokens counted, at most 80 % of the charge.
    const tokens = Number(t.prompt_tokens) + Number(t.completion_tokens);
    const work = Math.floor((25 * Number(t.difficulty) * Number(node!.hardware_score) * 1000 * tokens) / 1000);
    const amount = Math.min(work, Math.floor((Number(t.charged_units) * 80) / 100)) / 1000;

    // Pending: nothing paid yet; asking again answers the same.
    const pending = await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: t.id }).expect(201);
    expectSpecResponse(pending, 'claimTaskReward');
    expect(pending.body).toMatchObject({ task_id: t.id, status: 'pending', transaction_id: null, amount, base: 25 });
    expect((await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: t.id }).expect(201)).body).toEqual(pending.body);
    expect(t.reward_transaction_id).toBeNull();
    // Another provider: 403; unknown: 404.
    await stack.http.post('/api/tokens/earn').set(u.auth).send({ task_id: t.id }).expect(403);
    await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: '00000000-0000-4000-8000-000000000000' }).expect(404);

    // Paid by settlement after the window (the test clock), once.
    await stack.app.get(RewardsService).settle(new Date(Date.now() + 25 * 3600_000));
    const paid = (await taskOf(stack, id)).reward_transaction_id as string;
    expect(paid).toBeTruthy();
    const tx = await stack.http.get(`/api/users/${provider.id}/transactions?limit=100`).set(provider.auth).expect(200);
    const earnings = tx.body.transactions.filter((x: { reference: string }) => x.reference === t.id);
    // Paid with its share of the emission: more than the work's reward, never more than the task's charge.
    const [reward] = (await stack.db.query(`SELECT units, emission_units FROM node_rewards WHERE task_id = $1`, [t.id])) as Array<{
      units: string;
      emission_units: string;
    }>;
    expect(Number(reward!.units)).toBe(amount * 1000 + Number(reward!.emission_units));
    expect(Number(reward!.units)).toBeLessThanOrEqual(Number(t.charged_units));
    expect(earnings).toEqual([expect.objectContaining({ id: paid, type: 'earning', direction: 'credit', amount: Number(reward!.units) / 1000 })]);
    const notes = await stack.http.get(`/api/users/${provider.id}/notifications?limit=50`).set(provider.auth).expect(200);
    expect(notes.body.notifications.some((n: { type: string }) => n.type === 'reward')).toBe(true);
    const again = await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: t.id }).expect(201);
    expect(again.body).toMatchObject({ status: 'paid', transaction_id: paid });

    // A completed task whose reward was not recorded gets it recorded (pending), never paid on the spot.
    const [claimable] = (await stack.db.query(
      `INSERT INTO inference_tasks (user_id, node_id, model_id, status, completion_tokens, charged_units, difficulty, completed_at)
       VALUES ($1, $2, $3, 'completed', 10, 1250, 1.5, now()) RETURNING id`,
      [u.id, worker.nodeId, MODEL],
    )) as Array<{ id: string }>;
    const claim = await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: claimable!.id }).expect(201);
    expectSpecResponse(claim, 'claimTaskReward');
    expect(claim.body).toMatchObject({
      task_id: claimable!.id,
      status: 'pending',
      base: 25,
      difficulty: 1.5,
      amount: Math.min(Math.floor(25 * 1.5 * Number(node!.hardware_score) * 10), 1000) / 1000,
    });
    await stack.app.get(RewardsService).settle(new Date(Date.now() + 25 * 3600_000));
    expect((await stack.http.post('/api/tokens/earn').set(provider.auth).send({ task_id: claimable!.id }).expect(201)).body.status).toBe('paid');

    const stats = await stack.http.get('/api/system/stats/platform').expect(200);
    expect(stats.body.total_tasks).toBeGreaterThanOrEqual(2);
    expect(stats.body.active_nodes).toBeGreaterThanOrEqual(1);
    expect(stats.body.data_processed_gb).toBeGreaterThanOrEqual(0);
  });

  it('saves the user message at once and the reply when the stream ends, even with no reader connected', async () => {
    const u = await newUser(stack, 'leaver');
    const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ title: 'Saved chat', model_id: MODEL }).expect(201);
    const cid = conv.body.conversation.id as string;
    const id = streamId();
    const ctrl = new AbortController();
    const res = await startReply(
      stack,
      u.auth,
      { streamId: id, modelId: MODEL, prompt: 'Remember this', conversation_id: cid, params: { max_tokens: 30 } },
      ctrl.signal,
    );
    expect(res.status).toBe(200);
    ctrl.abort(); // the tab is closed
    for (let i = 0; i < 100 && (await taskOf(stack, id)).status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
    const got = await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200);
    const [user, reply] = got.body.conversation.messages;
    expect(user).toMatchObject({ role: 'user', content: 'Remember this', status: 'sent' });
    expect(reply).toMatchObject({ role: 'assistant', status: 'sent', model: MODEL });
    expect(reply.content.length).toBeGreaterThan(0);
    const done = await taskOf(stack, id);
    expect(reply.tokens).toBe(done.completion_tokens);
    // The user message carries the turn's prompt tokens: the conversation's total is what the turn was charged for.
    expect(user.tokens).toBe(done.prompt_tokens);
    expect(user.tokens).toBeGreaterThan(0);
    expect(got.body.conversation.metadata.total_messages).toBe(2);
    expect(got.body.conversation.metadata.total_tokens).toBe(Number(done.prompt_tokens) + Number(done.completion_tokens));

    // A second turn: the model sees the conversation so far (prompt tokens grow with the history).
    const second = await readSse(
      await startReply(stack, u.auth, { streamId: streamId(), modelId: MODEL, prompt: 'And now?', conversation_id: cid, params: { max_tokens: 5 } }),
    );
    expect(second.at(-1)!.data.usage!.prompt_tokens).toBeGreaterThan(reply.tokens);
    const other = await newUser(stack, 'intruder');
    await stack.http
      .post('/api/inference/stream/start')
      .set(other.auth)
      .send({ streamId: streamId(), modelId: MODEL, prompt: 'hi', conversation_id: cid })
      .expect(404);
  });

  it("shows a conversation's reply being generated as active_stream, readable from the start, until it is saved", async () => {
    const u = await newUser(stack, 'reloader');
    const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ model_id: MODEL }).expect(201);
    const cid = conv.body.conversation.id as string;
    const idle = await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200);
    expectSpecResponse(idle, 'getConversation');
    expect(idle.body.conversation.active_stream).toBeNull();

    const id = streamId();
    const ctrl = new AbortController();
    const res = await startReply(
      stack,
      u.auth,
      { streamId: id, modelId: MODEL, prompt: 'A long answer please', conversation_id: cid, params: { max_tokens: 600, temperature: 0 } },
      ctrl.signal,
    );
    expect(res.status).toBe(200);
    ctrl.abort(); // the page is reloaded: the client forgets the stream id

    const live = await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200);
    expectSpecResponse(live, 'getConversation');
    expect(['queued', 'running']).toContain((await taskOf(stack, id)).status);
    expect(live.body.conversation.active_stream).toMatchObject({ stream_id: id, model_id: MODEL });
    expect(Date.parse(live.body.conversation.active_stream.started_at)).not.toBeNaN();
    // Only the user's message is saved so far; the reply is saved when the stream ends.
    expect(live.body.conversation.messages.map((m: { role: string }) => m.role)).toEqual(['user']);
    // Nobody else sees the conversation (nor its stream).
    const other = await newUser(stack, 'peeker');
    await stack.http.get(`/api/chat/conversations/${cid}`).set(other.auth).expect(404);

    // The reopened client follows it from the first token.
    const events = await readSse(await fetch(`${stack.url}/api/inference/stream/${id}`, { headers: { ...u.auth, 'Last-Event-ID': '0' } }));
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', success: true });
    const text = replyText(events);
    expect(text.length).toBeGreaterThan(0);

    const after = await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200);
    expectSpecResponse(after, 'getConversation');
    expect(after.body.conversation.active_stream).toBeNull();
    const [, reply] = after.body.conversation.messages;
    expect(reply).toMatchObject({ role: 'assistant', status: 'sent', content: text, tokens: events.at(-1)!.data.usage!.completion_tokens });
    expect(after.body.conversation.messages).toHaveLength(2);
  });

  it('saves a stopped reply with what was generated, marked stopped', async () => {
    const u = await newUser(stack, 'halter');
    const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ model_id: MODEL }).expect(201);
    const cid = conv.body.conversation.id as string;
    const id = streamId();
    let stopped = false;
    const events = await readSse(
      await startReply(stack, u.auth, {
        streamId: id,
        modelId: MODEL,
        prompt: 'A long answer please',
        conversation_id: cid,
        params: { max_tokens: 1500, temperature: 0 },
      }),
      (e) => {
        if (e.data.type === 'token' && !stopped) {
          stopped = true;
          void stack.http
            .post(`/api/inference/stream/${id}/stop`)
            .set(u.auth)
            .then(() => undefined);
        }
      },
    );
    const text = replyText(events);
    const got = await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200);
    const reply = got.body.conversation.messages[1];
    // Marked stopped, with the text the requester saw (every token streamed until done), in the list and the export.
    expect(reply).toMatchObject({
      role: 'assistant',
      status: 'sent',
      stopped: true,
      content: text,
      tokens: events.at(-1)!.data.usage!.completion_tokens,
    });
    expect(got.body.conversation.messages[0].stopped).toBe(false);
    const exported = await stack.http.get(`/api/chat/conversations/${cid}/export`).query({ format: 'markdown' }).set(u.auth).expect(200);
    expect(exported.body.content).toContain(' · stopped_');
    // The next turn's history holds the stopped reply like any other.
    expect((await stack.app.get(ChatService).history(cid))!.at(-1)).toEqual({ role: 'assistant', content: text });
  });

  it('puts the conversation’s system prompt before it on every turn: the model reads (and the user pays for) it', async () => {
    const u = await newUser(stack, 'systematic');
    const system = 'You are a careful assistant who always answers in short sentences about engines and numbers.';
    const prompts: number[] = [];
    for (const settings of [undefined, { system_prompt: system, temperature: 0.7, max_tokens: 2048, top_p: 0.9 }]) {
      const conv = await stack.http
        .post('/api/chat/conversations')
        .set(u.auth)
        .send({ model_id: MODEL, ...(settings ? { settings } : {}) })
        .expect(201);
      const res = await startReply(stack, u.auth, {
        streamId: streamId(),
        modelId: MODEL,
        prompt: 'Hello',
        conversation_id: conv.body.conversation.id,
        params: { max_tokens: 4 },
      });
      prompts.push((await readSse(res)).at(-1)!.data.usage!.prompt_tokens);
    }
    const systemTokens = await stack.app.get(TokenCounter).countText(MODEL, system);
    // The same prompt, with the system turn in front: its tokens (and the chat template's few around it) more.
    expect(prompts[1]! - prompts[0]!).toBeGreaterThanOrEqual(systemTokens - 10);
  });

  it('generates every turn with the conversation’s saved settings: what a turn leaves out, the conversation gives', async () => {
    const u = await newUser(stack, 'settled');
    const settings = { system_prompt: '', temperature: 0, max_tokens: 6, top_p: 0.5 };
    const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ model_id: MODEL, settings }).expect(201);
    const cid = conv.body.conversation.id as string;
    const turn = async (params?: object, replaceFrom?: string) => {
      const id = streamId();
      const res = await startReply(stack, u.auth, {
        streamId: id,
        modelId: MODEL,
        prompt: 'Tell me about the river and the city.',
        conversation_id: cid,
        ...(params ? { params } : {}),
        ...(replaceFrom ? { replace_from: replaceFrom } : {}),
      });
      const events = await readSse(res);
      const [task] = (await stack.db.query(`SELECT max_tokens FROM inference_tasks WHERE stream_id = $1`, [id])) as Array<{ max_tokens: number }>;
      const text = events.flatMap((e) => (e.data.type === 'token' ? [e.data.text] : [])).join('');
      return { text, maxTokens: task!.max_tokens, completion: events.at(-1)!.data.usage!.completion_tokens };
    };
    // No params: the conversation's limit, and its temperature 0 makes the same turn give the same text again.
    const first = await turn();
    expect(first.maxTokens).toBe(6);
    expect(first.completion).toBeLessThanOrEqual(6);
    const userMessage = async () =>
      (await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200)).body.conversation.messages[0].id as string;
    const again = await turn(undefined, await userMessage());
    expect(again.text).toBe(first.text);
    // A turn's own value wins over the conversation's, field by field.
    const own = await turn({ max_tokens: 3 }, await userMessage());
    expect(own.maxTokens).toBe(3);
    expect(first.text.startsWith(own.text)).toBe(true);
  });

  it('replaces a turn: regenerating the last reply or editing a message discards what follows; every charge stays', async () => {
    const u = await newUser(stack, 'reviser');
    const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ model_id: MODEL }).expect(201);
    const cid = conv.body.conversation.id as string;
    const turn = async (prompt: string, replaceFrom?: string) => {
      const res = await startReply(stack, u.auth, {
        streamId: streamId(),
        modelId: MODEL,
        prompt,
        conversation_id: cid,
        ...(replaceFrom ? { replace_from: replaceFrom } : {}),
        params: { max_tokens: 8 },
      });
      expect(res.status).toBe(200);
      expect((await readSse(res)).at(-1)!.data.type).toBe('done');
    };
    const messages = async () =>
      (await stack.http.get(`/api/chat/conversations/${cid}`).set(u.auth).expect(200)).body.conversation as {
        messages: Array<{ id: string; role: string; content: string; tokens: number }>;
        metadata: { total_messages: number; total_tokens: number };
      };
    await turn('First question');
    await turn('Second question');
    const before = await messages();
    expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    // Regenerate: the last user message again, its old reply replaced.
    await turn('Second question', before.messages[2]!.id);
    const regenerated = await messages();
    expect(regenerated.messages.map((m) => m.content.slice(0, 15))).toEqual([
      'First question',
      before.messages[1]!.content.slice(0, 15),
      'Second question',
      expect.any(String),
    ]);
    expect(regenerated.messages.slice(0, 2).map((m) => m.id)).toEqual(before.messages.slice(0, 2).map((m) => m.id));
    expect(regenerated.messages.map((m) => m.id)).not.toContain(before.messages[3]!.id);
    expect(regenerated.metadata).toEqual({
      total_messages: 4,
      total_tokens: regenerated.messages.reduce((a, m) => a + m.tokens, 0),
    });

    // Edit the first message: everything after it goes.
    await turn('First question, edited', regenerated.messages[0]!.id);
    const edited = await messages();
    expect(edited.messages.map((m) => [m.role, m.role === 'user' ? m.content : ''])).toEqual([
      ['user', 'First question, edited'],
      ['assistant', ''],
    ]);
    expect(edited.metadata.total_messages).toBe(2);

    // Four replies were generated and charged; each charge stays in the history.
    const spent = (await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200)).body.transactions.filter(
      (t: { type: string }) => t.type === 'spending',
    );
    expect(spent).toHaveLength(4);

    // Bad input: no conversation, or a message that is not one of its user messages.
    const bad = (body: object) => startReply(stack, u.auth, { streamId: streamId(), modelId: MODEL, prompt: 'x', ...body });
    const orphan = await bad({ replace_from: edited.messages[0]!.id });
    expect(orphan.status).toBe(400);
    expect(await orphan.json()).toMatchObject({ statusCode: 400, message: 'replace_from: needs conversation_id' });
    expect((await bad({ conversation_id: cid, replace_from: edited.messages[1]!.id })).status).toBe(404);
    expect((await bad({ conversation_id: cid, replace_from: randomUUID() })).status).toBe(404);
    expect((await messages()).messages).toHaveLength(2);
  });

  describe('with a second worker', () => {
    let second: WorkerProcess | undefined;
    afterAll(async () => {
      await second?.stop();
    });

    it('two workers share a batch of jobs', async () => {
      second = await startWorker(stack, { WORKER_OWNER_EMAIL: 'late-owner@example.com' }, 'worker-b');
      const u = await newUser(stack, 'batch');
      // Worker A takes as many replies at once as its model has sequences, and an idle worker that wakes first takes
      // jobs until its slots are full: two more jobs than A's slots at once must reach B.
      const capacity = Number(/glob-tiny-chat from [^\n]*?: (\d+) replies at once/.exec(worker.output())?.[1]);
      expect(capacity).toBeGreaterThan(0);
      const ids = Array.from({ length: capacity + 2 }, () => streamId());
      await Promise.all(
        ids.map(async (id) =>
          readSse(await startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: `Job ${id}`, params: { max_tokens: 16 } })),
        ),
      );
      const rows = (await stack.db.query(`SELECT DISTINCT node_id FROM inference_tasks WHERE stream_id = ANY($1)`, [ids])) as Array<{
        node_id: string;
      }>;
      expect(rows.map((r) => r.node_id).sort()).toEqual([worker.nodeId, second.nodeId].sort());

      // Its owner signs up after the worker started: the next heartbeat adopts the account.
      const reg = { body: await register(stack, 'late-owner@example.com') };
      let owner: string | null = null;
      for (let i = 0; i < 50 && !owner; i++) {
        owner = ((await stack.db.query(`SELECT owner_id FROM nodes WHERE id = $1`, [second!.nodeId])) as Array<{ owner_id: string | null }>)[0]!
          .owner_id;
        if (!owner) await new Promise((r) => setTimeout(r, 200));
      }
      expect(owner).toBe(reg.body.user.id);
    }, 60_000);

    it('a worker killed with SIGKILL mid-job: the job ends on the other worker, charged at most once', async () => {
      const victim = await startWorker(stack, {}, 'worker-victim');
      await worker.stop(); // only the victim and the second worker remain
      await second!.stop();
      const u = await newUser(stack, 'unlucky');
      const id = streamId();
      const res = await startReply(stack, u.auth, {
        streamId: id,
        modelId: MODEL,
        prompt: 'A long answer please',
        params: { max_tokens: 1500, temperature: 0 },
      });
      let rescue: Promise<WorkerProcess> | undefined;
      const events = await readSse(res, (e) => {
        if (e.data.type === 'token' && !rescue) {
          victim.child.kill('SIGKILL');
          rescue = startWorker(stack, {}, 'worker-rescue');
        }
      });
      second = await rescue;
      const last = events.at(-1)!;
      expect(['done', 'error']).toContain(last.data.type);
      if (last.data.type === 'error') expect(last.data.code).toBe('WORKER_FAILED');
      const b = await balance(u);
      expect(b.pending_balance).toBe(0);
      const spent = (await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200)).body.transactions.filter(
        (t: { type: string; status: string }) => t.type === 'spending' && t.status === 'completed',
      );
      expect(spent.length).toBeLessThanOrEqual(1);
      expect(1000 - b.balance).toBeCloseTo(spent[0]?.amount ?? 0, 3);
    }, 90_000);
  });
});

export type { SseEvent };
