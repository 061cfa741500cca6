import OpenAI from 'openai';
import { apiKeyProblems } from '../../src/modules/api-keys/api-keys.service';
import type { Schemas } from '../../src/contract/types';
import { BUILT_IN_CATALOG, loadCatalog, MODEL_FEATURES } from '../../src/modules/catalog/catalog';
import { ApiKeysRepository } from '../../src/modules/api-keys/api-keys.repository';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { expectSpecResponse } from '../support/contract';
import { SpecCheckedFetch } from '../support/openai-client';
import { ledgerCheckCli } from '../support/ledger-check';
import { newUser } from '../support/users';
import { startWorker, taskOf, WorkerProcess } from '../support/worker';
import { startStack, TestStack } from '../support/app';

const MODEL = 'glob-tiny-chat';
/** The tiny model's price: 0.125 GLOB (125 units) per token. */
const PRICE = 125;
/** Requests per key and window in this stack (small, so the 429 test reaches it quickly). */
const REQUESTS_PER_WINDOW = 6;

type User = Awaited<ReturnType<typeof newUser>>;

describe('the OpenAI-compatible API, through the official openai client, on a real worker (tiny model)', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  /** Every /v1 answer is checked against the spec (after every test). */
  const checked = new SpecCheckedFetch();

  beforeAll(async () => {
    // No welcome bonus: a user has GLOB only when the test buys some, so an empty balance is simply a new user.
    stack = await startStack({ env: { WELCOME_BONUS_GLOB: '0', API_KEY_REQUESTS_PER_WINDOW: String(REQUESTS_PER_WINDOW) } });
    worker = await startWorker(stack, {}, 'openai-worker');
  }, 90_000);
  afterEach(async () => {
    expect(await checked.settle()).toEqual([]);
  });
  afterAll(async () => {
    await worker?.stop();
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    expect(await apiKeyProblems(stack.app.get(ApiKeysRepository))).toEqual([]);
    await stack.close();
  }, 60_000);

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch });

  /** A user with `glob` GLOB bought (none with 0). */
  async function fundedUser(name: string, glob = 1000): Promise<User> {
    const u = await newUser(stack, name);
    if (glob > 0)
      await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    return u;
  }

  async function createKey(u: User, body: Record<string, unknown> = { name: 'test key' }): Promise<{ key: string; id: string }> {
    const res = await stack.http.post('/api/api-keys').set(u.auth).send(body);
    expectSpecResponse(res, 'createApiKey');
    expect(res.status).toBe(201);
    return { key: res.body.key as string, id: res.body.api_key.id as string };
  }

  const balanceUnits = async (u: User) =>
    Math.round((await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body.balance * 1000);
  const keyRow = async (u: User, id: string) => {
    const res = await stack.http.get('/api/api-keys').set(u.auth).expect(200);
    expectSpecResponse(res, 'listApiKeys');
    return (res.body.api_keys as Array<Record<string, unknown>>).find((k) => k.id === id)!;
  };
  const streamIdOf = (completionId: string) => completionId.replace(/^chatcmpl-/, '');
  /** Waits for a reply's task to end (after a client left, the reply settles on its own). */
  async function endedTask(streamId: string) {
    for (let i = 0; i < 100; i++) {
      const t = await taskOf<{ status: string; stop_reason: string; prompt_tokens: number; completion_tokens: number; charged_units: string }>(
        stack,
        streamId,
      );
      if (t && t.status !== 'queued' && t.status !== 'running') return t;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`task ${streamId} did not end`);
  }

  /**
   * A prompt the tiny model answers at length at temperature 0 (it may also end early on its own, which would leave
   * nothing to stop): the first of a few whose answer runs to 300 tokens.
   */
  async function longPrompt(openai: OpenAI): Promise<string> {
    for (const content of ['Write a very long story', 'Tell me everything you know', 'Count to one thousand', 'Describe the sea', 'Go on and on']) {
      const probe = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 300, temperature: 0 });
      if (probe.choices[0]!.finish_reason === 'length') return content;
    }
    throw new Error('the tiny model ended every probe early');
  }

  it('creates a key shown once (glb_sk_, stored as a hash) and lists it without the secret', async () => {
    const u = await fundedUser('keys');
    const { key, id } = await createKey(u, { name: 'laptop', daily_limit: 12.5 });
    expect(key).toMatch(/^glb_sk_[A-Za-z0-9_-]{32}$/);
    const row = await keyRow(u, id);
    expect(row).toMatchObject({ name: 'laptop', prefix: key.slice(0, 13), daily_limit: 12.5, requests: 0, tokens: 0, spent: 0, last_used_at: null });
    expect(JSON.stringify(row)).not.toContain(key);
    const [stored] = (await stack.db.query(`SELECT key_hash FROM api_keys WHERE id = $1`, [id])) as Array<{ key_hash: string }>;
    expect(stored!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.key_hash).not.toContain(key.slice(7));
    // More than three decimals of GLOB is refused, not rounded.
    const bad = await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'x', daily_limit: 1.0005 });
    expectSpecResponse(bad, 'createApiKey');
    expect(bad.status).toBe(400);
  });

  it('lists only the models a live node serves, in OpenAI’s shape, with the rate-limit headers', async () => {
    const u = await fundedUser('models');
    const { key } = await createKey(u);
    const models = await client(key).models.list();
    expect(models.data.map((m) => m.id)).toEqual([MODEL]);
    expect(models.data[0]).toMatchObject({ object: 'model', owned_by: 'glob-network' });
    expect(checked.lastHeaders.get('x-ratelimit-limit-requests')).toBe(String(REQUESTS_PER_WINDOW));
    expect(checked.lastHeaders.get('x-ratelimit-remaining-requests')).toBe(String(REQUESTS_PER_WINDOW - 1));
    expect(checked.lastHeaders.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+s|\d+m\d+s)$/);
    expect(checked.lastHeaders.get('x-ratelimit-limit-tokens')).toBe('200000');
    expect(checked.lastHeaders.get('x-ratelimit-remaining-tokens')).toBe('200000');
  });

  it('adds to each model its price (GLOB per token and per million), context length, catalog date and features', async () => {
    const u = await fundedUser('model-fields');
    const { key } = await createKey(u);
    const models = await client(key).models.list();
    // The client hands back fields OpenAI does not define as they came.
    const listed = models.data[0] as OpenAI.Models.Model & Schemas['OpenAiModel'];
    const tiny = loadCatalog(stack.config).find((m) => m.id === MODEL)!;
    const written = BUILT_IN_CATALOG.models.find((m) => m.id === MODEL)!;
    expect(tiny.priceUnits).toBe(PRICE);
    // milli-GLOB per token → GLOB per million tokens.
    expect(listed.price_per_million_tokens).toBe((tiny.priceUnits * 1_000_000) / 1000);
    expect(listed.price_per_million_tokens).toBe(125_000);
    expect(listed.pricing).toEqual({ prompt: '0.125', completion: '0.125', currency: 'GLOB' });
    expect(listed.context_length).toBe(tiny.contextLength);
    expect(written.created).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(listed.created).toBe(Date.parse(`${written.created}T00:00:00Z`) / 1000);
    expect(listed.supported_features).toEqual(MODEL_FEATURES);
    expect(listed.supported_features).toMatchObject({ tools: true, structured_outputs: true });
    // The same on every call: a fixed date, not the time of the request or of the process.
    expect((await client(key).models.list()).data[0]!.created).toBe(listed.created);
  });

  it('answers a non-streamed completion with message and usage, billed to the balance, in the wallet and on the key', async () => {
    const u = await fundedUser('plain');
    const { key, id } = await createKey(u);
    const before = await balanceUnits(u);
    const answer = await client(key).chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello there, how are you?' },
      ],
      max_tokens: 24,
      temperature: 0.5,
      user: 'end-user-42',
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0]!.message.role).toBe('assistant');
    expect(typeof answer.choices[0]!.message.content).toBe('string');
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
    const usage = answer.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeLessThanOrEqual(24);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(checked.lastHeaders.get('x-ratelimit-remaining-requests')).toBe(String(REQUESTS_PER_WINDOW - 1));

    // One core: the same task, hold and settlement as a chat reply.
    const task = await endedTask(streamIdOf(answer.id));
    expect(task).toMatchObject({ status: 'completed', prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens });
    expect(Number(task.charged_units)).toBe(usage.total_tokens * PRICE);
    expect(await balanceUnits(u)).toBe(before - usage.total_tokens * PRICE);
    const tx = await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200);
    expect(tx.body.transactions[0]).toMatchObject({
      type: 'spending',
      status: 'completed',
      description: `API: ${MODEL}, ${usage.total_tokens} tokens`,
      amount: (usage.total_tokens * PRICE) / 1000,
    });
    const row = await keyRow(u, id);
    expect(row).toMatchObject({ requests: 1, tokens: usage.total_tokens, spent: (usage.total_tokens * PRICE) / 1000 });
    expect(row.spent_today).toBe(row.spent);
    expect(row.last_used_at).not.toBeNull();
  });

  it('streams chat.completion.chunk events ending with [DONE], with the usage chunk when include_usage is asked', async () => {
    const u = await fundedUser('streamer');
    const { key } = await createKey(u);
    const stream = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me a story' }] }],
      max_completion_tokens: 30,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish).toHaveLength(1);
    expect(['stop', 'length']).toContain(finish[0]!.choices[0]!.finish_reason);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(last.usage!.completion_tokens).toBeLessThanOrEqual(30);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const task = await endedTask(streamIdOf(last.id));
    expect(Number(task.charged_units)).toBe(last.usage!.total_tokens * PRICE);
    expect(text.length).toBeGreaterThan(0);
  });

  it('ends the answer before a stop sequence, with finish_reason stop, and charges only what was generated', async () => {
    const u = await fundedUser('stopper');
    const { key } = await createKey(u);
    const ask = (stop?: string) =>
      client(key).chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Count with me please' }],
        max_tokens: 60,
        temperature: 0,
        seed: 7,
        ...(stop ? { stop } : {}),
      });
    const full = await ask();
    const text = full.choices[0]!.message.content!;
    // A stop sequence from the middle of the deterministic answer, at its first occurrence.
    let at = Math.floor(text.length / 2);
    while (at > 0 && text.indexOf(text.slice(at, at + 3)) !== at) at--;
    expect(text.length).toBeGreaterThan(6);
    const stop = text.slice(at, at + 3);
    const cut = await ask(stop);
    expect(cut.choices[0]!.message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(cut.usage!.completion_tokens).toBeLessThan(full.usage!.completion_tokens);
    const task = await endedTask(streamIdOf(cut.id));
    expect(Number(task.charged_units)).toBe(cut.usage!.total_tokens * PRICE);
  });

  it('takes llama.cpp’s min_p: at 1 only the likeliest token is left, so a hot reply is the greedy one; past 1 is refused', async () => {
    const u = await fundedUser('min-p');
    const { key } = await createKey(u);
    const ask = (extra: object) =>
      client(key).chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Tell me about the river and the city' }],
        max_tokens: 16,
        seed: 11,
        ...extra,
      });
    const greedy = (await ask({ temperature: 0 })).choices[0]!.message.content;
    // min_p is not OpenAI's parameter: the client sends it as an extra body field, as llama.cpp's users do.
    const narrowed = (await ask({ temperature: 1.5, min_p: 1 })).choices[0]!.message.content;
    expect(narrowed).toBe(greedy);
    const hot = (await ask({ temperature: 1.5, min_p: 0 })).choices[0]!.message.content;
    expect(hot).not.toBe(greedy);
    await expect(ask({ min_p: 1.5 })).rejects.toMatchObject({ status: 400 });
  });

  it('refuses an unknown model (NotFoundError), unsupported parameters (BadRequestError), a revoked key (AuthenticationError)', async () => {
    const u = await fundedUser('errors');
    const { key, id } = await createKey(u);
    const openai = client(key);
    const notFound = await openai.chat.completions
      .create({ model: 'llama-4-400b', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect(notFound).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'invalid_request_error' });
    expect(checked.lastHeaders.get('x-ratelimit-limit-requests')).toBe(String(REQUESTS_PER_WINDOW));

    const n2 = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], n: 2 }).catch((e: unknown) => e);
    expect(n2).toBeInstanceOf(OpenAI.BadRequestError);
    expect(n2).toMatchObject({ status: 400, param: 'n', code: 'unsupported_parameter' });
    const penalty = await openai.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], frequency_penalty: 0.5 })
      .catch((e: unknown) => e);
    expect(penalty).toBeInstanceOf(OpenAI.BadRequestError);
    expect(penalty).toMatchObject({ status: 400, param: 'frequency_penalty', code: 'unsupported_parameter' });

    await stack.http.delete(`/api/api-keys/${id}`).set(u.auth).expect(204);
    const revoked = await openai.models.list().catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(revoked).toMatchObject({ status: 401, code: 'invalid_api_key' });
    // Revoking twice, or another user's key, is 404.
    const again = await stack.http.delete(`/api/api-keys/${id}`).set(u.auth);
    expectSpecResponse(again, 'revokeApiKey');
    expect(again.status).toBe(404);
    expect((await stack.http.get('/api/api-keys').set(u.auth).expect(200)).body.api_keys).toEqual([]);
    // A user's access token is not an API key.
    const jwt = await client(u.token)
      .models.list()
      .catch((e: unknown) => e);
    expect(jwt).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('answers 402 in OpenAI’s shape when the balance cannot pay, and nothing is held', async () => {
    const broke = await fundedUser('broke', 0);
    const { key } = await createKey(broke);
    const err = await client(key)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 402, code: 'insufficient_quota', type: 'insufficient_quota' });
    expect(checked.lastHeaders.get('x-ratelimit-remaining-requests')).toBe(String(REQUESTS_PER_WINDOW - 1));
    expect((await stack.http.get(`/api/wallet/${broke.id}/balance`).set(broke.auth).expect(200)).body).toMatchObject({
      balance: 0,
      pending_balance: 0,
    });
  });

  it('answers 429 (RateLimitError) with Retry-After and the rate-limit headers past the key’s requests per window', async () => {
    const u = await fundedUser('limited');
    const { key } = await createKey(u);
    const other = await createKey(u, { name: 'second' });
    const openai = client(key);
    for (let i = 1; i <= REQUESTS_PER_WINDOW; i++) {
      await openai.models.list();
      expect(checked.lastHeaders.get('x-ratelimit-remaining-requests')).toBe(String(REQUESTS_PER_WINDOW - i));
    }
    const limited = await openai.models.list().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    const headers = (limited as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(headers.get('x-ratelimit-limit-requests')).toBe(String(REQUESTS_PER_WINDOW));
    expect(headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+s|\d+m\d+s)$/);
    // Limits are per key.
    await client(other.key).models.list();
  });

  it('a client that aborts mid-stream stops the generation and is charged only for the tokens generated', async () => {
    const u = await fundedUser('aborter');
    const { key, id } = await createKey(u);
    const content = await longPrompt(client(key));
    const before = await balanceUnits(u);
    const usedBefore = (await keyRow(u, id)) as { requests: number; tokens: number; spent: number };
    const stream = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content }],
      max_tokens: 1500,
      temperature: 0,
      stream: true,
    });
    let completionId = '';
    for await (const chunk of stream) {
      completionId = chunk.id;
      if (chunk.choices[0]?.delta.content) {
        stream.controller.abort();
        break;
      }
    }
    const task = await endedTask(streamIdOf(completionId));
    expect(task.stop_reason).toBe('abort');
    expect(task.completion_tokens).toBeGreaterThan(0);
    expect(task.completion_tokens).toBeLessThan(1500);
    const charged = (task.prompt_tokens + task.completion_tokens) * PRICE;
    expect(Number(task.charged_units)).toBe(charged);
    expect(await balanceUnits(u)).toBe(before - charged);
    expect(await keyRow(u, id)).toMatchObject({
      requests: usedBefore.requests + 1,
      tokens: usedBefore.tokens + task.prompt_tokens + task.completion_tokens,
      spent: (Math.round(usedBefore.spent * 1000) + charged) / 1000,
    });
  });

  describe('abuse', () => {
    it('a key authenticates only /v1: it cannot read the account, transfer, delete the account, sign out or make keys', async () => {
      const u = await fundedUser('victim');
      const { key } = await createKey(u);
      const bearer = { Authorization: `Bearer ${key}` };
      const attempts = [
        stack.http.get('/api/users/me').set(bearer),
        stack.http.post(`/api/wallet/${u.id}/transfer`).set(bearer).send({ to_address: u.address, amount: 1 }),
        // Nor can it stand in for a session's refresh token.
        stack.http.post('/api/users/refresh').send({ refresh_token: key }),
        stack.http.get('/api/api-keys').set(bearer),
        stack.http.post('/api/api-keys').set(bearer).send({ name: 'escalate' }),
        stack.http.post('/api/inference/stream/start').set(bearer).send({ streamId: 'x1', modelId: MODEL, prompt: 'hi' }),
        stack.http.get(`/api/wallet/${u.id}`).set(bearer),
      ];
      for (const res of await Promise.all(attempts)) expect([res.status, res.text]).toEqual([401, res.text]);
      // Account deletion is proven by an e-mailed code, never by a bearer: a key adds nothing to it.
      const deletion = await stack.http.delete('/api/users/auth/delete-account').set(bearer).send({ email: u.email, otp: '123456' });
      expect(deletion.status).toBe(400);
      await stack.http.get('/api/users/me').set(u.auth).expect(200);
      expect((await stack.http.get('/api/api-keys').set(u.auth).expect(200)).body.api_keys).toHaveLength(1);
      expect(await balanceUnits(u)).toBe(1000_000);
    });

    it('concurrent requests never spend past a key’s daily limit', async () => {
      const u = await fundedUser('racer');
      // 6 GLOB (48 tokens) a day: one short reply's hold takes all of it, so concurrent ones are refused instead of overdrawing.
      const { key, id } = await createKey(u, { name: 'capped', daily_limit: 6 });
      const openai = client(key);
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 40 }).catch((e: unknown) => e),
        ),
      );
      const refused = results.filter((r) => r instanceof OpenAI.APIError);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r).toMatchObject({ status: 402, code: 'daily_limit_reached' });
      const answered = results.filter((r) => !(r instanceof OpenAI.APIError)) as OpenAI.Chat.Completions.ChatCompletion[];
      expect(answered.length).toBeGreaterThan(0);
      for (const a of answered) await endedTask(streamIdOf(a.id));
      const [{ units }] = (await stack.db.query(`SELECT coalesce(sum(charged_units), 0)::int AS units FROM inference_tasks WHERE api_key_id = $1`, [
        id,
      ])) as [{ units: number }];
      expect(units).toBeGreaterThan(0);
      expect(units).toBeLessThanOrEqual(6000);
      const row = await keyRow(u, id);
      expect(row.spent_today).toBe(units / 1000);
      // A reply cut by the limit says `length`, like any reply cut by its budget.
      for (const a of answered) expect(['stop', 'length']).toContain(a.choices[0]!.finish_reason);
    });

    it('revoking a key mid-stream stops its reply at once, charged for what was generated, and the key is refused after', async () => {
      const u = await fundedUser('revoker');
      const { key, id } = await createKey(u);
      const openai = client(key);
      const content = await longPrompt(openai);
      const stream = await openai.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content }],
        max_tokens: 1500,
        temperature: 0,
        stream: true,
      });
      let completionId = '';
      let revoked = false;
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        completionId = chunk.id;
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (!revoked && chunk.choices[0]?.delta.content) {
          revoked = true;
          await stack.http.delete(`/api/api-keys/${id}`).set(u.auth).expect(204);
        }
      }
      expect(finish).toBe('stop');
      const task = await endedTask(streamIdOf(completionId));
      expect(task.stop_reason).toBe('abort');
      expect(task.completion_tokens).toBeLessThan(1500);
      expect(Number(task.charged_units)).toBe((task.prompt_tokens + task.completion_tokens) * PRICE);
      const after = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(after).toBeInstanceOf(OpenAI.AuthenticationError);
    });

    it('npm run ledger:check reconciles every key’s usage with its replies, and notices a count that does not match', async () => {
      expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
      const [key] = (await stack.db.query(`UPDATE api_keys SET spent_units = spent_units + 1 WHERE spent_units > 0 RETURNING id`)) as [
        Array<{ id: string }>,
        number,
      ];
      const tampered = await ledgerCheckCli(stack);
      expect(tampered.code).toBe(1);
      expect(tampered.output).toContain(`api key ${key[0]!.id}`);
      await stack.db.query(`UPDATE api_keys SET spent_units = spent_units - 1 WHERE spent_units > 0`);
      expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
    }, 60_000);
  });
});
