import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { apiKeyProblems } from '../../src/modules/api-keys/api-keys.service';
import { ApiKeysRepository } from '../../src/modules/api-keys/api-keys.repository';
import { EMBEDDING_MODEL_FEATURES, MODEL_FEATURES } from '../../src/modules/catalog/catalog';
import { toBase64 } from '../../src/common/vectors';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { killAgent, startAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { SpecCheckedFetch } from '../support/openai-client';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { startWorker, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-embed';
const CHAT_MODEL = 'glob-tiny-chat';
/** The tiny embedding model's price: 0.002 GLOB (2 units) per token. */
const PRICE = 2;
/** The tiny models' embedding length. */
const DIMENSIONS = 192;

type User = Awaited<ReturnType<typeof newUser>>;

/**
 * POST /v1/embeddings through the official openai client: first served by strangers' nodes (a scripted one that lies,
 * then the real agent), then by an in-cluster worker; every /v1 answer is checked against the spec.
 */
describe('embeddings (OpenAI Embeddings API) on the tiny embedding model', () => {
  let stack: TestStack;
  const checked = new SpecCheckedFetch();

  beforeAll(async () => {
    stack = await startStack({ env: { WELCOME_BONUS_GLOB: '0' } });
  }, 90_000);
  afterEach(async () => {
    expect(await checked.settle()).toEqual([]);
  });
  afterAll(async () => {
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    expect(await apiKeyProblems(stack.app.get(ApiKeysRepository))).toEqual([]);
    await closeChecked(stack);
  }, 60_000);

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch });

  async function fundedUser(name: string): Promise<User> {
    const u = await newUser(stack, name);
    await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    return u;
  }
  async function createKey(u: User): Promise<{ key: string; id: string }> {
    const res = await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'embeddings' }).expect(201);
    return { key: res.body.key as string, id: res.body.api_key.id as string };
  }
  const balanceUnits = async (u: User) =>
    Math.round((await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body.balance * 1000);
  const keyRow = async (u: User, id: string) =>
    ((await stack.http.get('/api/api-keys').set(u.auth).expect(200)).body.api_keys as Array<Record<string, unknown>>).find((k) => k.id === id)!;
  const tasksOf = async (keyId: string) =>
    (await stack.db.query(
      `SELECT status, node_id, prompt_tokens, charged_units::int AS charged_units FROM inference_tasks WHERE api_key_id = $1 ORDER BY created_at`,
      [keyId],
    )) as Array<{ status: string; node_id: string | null; prompt_tokens: number; charged_units: number }>;

  describe('a stranger node that lies gets nothing, and the requester pays nothing', () => {
    let liar: ScriptedNode;
    let u: User;
    let key: { key: string; id: string };

    beforeAll(async () => {
      const owner = await newUser(stack, 'liar-owner');
      liar = await ScriptedNode.pair(stack, owner, { models: [MODEL] });
      u = await fundedUser('liar-victim');
      key = await createKey(u);
    }, 60_000);

    async function lie(vectors: (input: string[]) => string[]): Promise<void> {
      const before = await balanceUnits(u);
      const request = client(key.key).embeddings.create({ model: MODEL, input: ['first text', 'second text'] });
      request.catch(() => undefined);
      const job = await liar.claim(10);
      expect(job).toMatchObject({ kind: 'embed', model_id: MODEL, input: ['first text', 'second text'] });
      const res = await stack.http
        .post(`/api/nodes/jobs/${job!.job_id}/embeddings`)
        .set(liar.auth)
        .send({ embeddings: vectors(job!.input!) });
      expect(res.status).toBe(422);
      await expect(request).rejects.toMatchObject({ status: 500, type: 'server_error' });
      expect(await balanceUnits(u)).toBe(before);
      const [task] = (await tasksOf(key.id)).slice(-1);
      expect(task).toMatchObject({ status: 'failed', node_id: liar.id, charged_units: 0 });
      // Too late to answer again: the job has ended.
      const again = await stack.http
        .post(`/api/nodes/jobs/${job!.job_id}/embeddings`)
        .set(liar.auth)
        .send({ embeddings: ['AAAAAA=='] });
      expect([403, 409]).toContain(again.status);
    }

    it('vectors of the wrong length', async () => {
      await lie((input) => input.map(() => toBase64(new Float32Array(DIMENSIONS - 1).fill(0.5))));
    }, 30_000);

    it('a NaN in a vector', async () => {
      await lie((input) =>
        input.map((_, i) => {
          const v = new Float32Array(DIMENSIONS).fill(0.25);
          if (i === 1) v[7] = NaN;
          return toBase64(v);
        }),
      );
    }, 30_000);

    it('one vector too few, or text instead of vectors', async () => {
      await lie(() => [toBase64(new Float32Array(DIMENSIONS))]);
      const request = client(key.key).embeddings.create({ model: MODEL, input: 'a text' });
      request.catch(() => undefined);
      const job = await liar.claim(10);
      const res = await liar.finish(job!.job_id, 'not vectors');
      expect(res.status).toBe(409);
      await expect(request).rejects.toMatchObject({ status: 500 });
      expect((await keyRow(u, key.id)).spent).toBe(0);
    }, 30_000);
  });

  describe('the real node agent serves an embedding request', () => {
    let agent: AgentProcess | undefined;

    afterAll(async () => {
      await killAgent(agent);
    }, 30_000);

    it('claims the job, computes the vectors with its engine and is paid for it; the requester is charged its tokens', async () => {
      const provider = await newUser(stack, 'agent-owner');
      const token = await stack.http.post('/api/nodes/join-tokens').set(provider.auth).expect(201);
      const dataDir = await mkdtemp(join(tmpdir(), 'glob-embed-agent-'));
      agent = startAgent([
        '--api',
        stack.url,
        '--join-token',
        token.body.join_token as string,
        '--name',
        'embed-agent',
        '--data-dir',
        dataDir,
        '--models-dir',
        process.env.MODELS_DIR!,
        '--threads',
        '1',
        '--gpu',
        'off',
        '--models',
        MODEL,
      ]);
      await agent.waitFor(/Serving glob-tiny-embed with 1 thread/);
      await agent.waitFor(/Paired as embed-agent/);
      const nodeId = (JSON.parse(await readFile(join(dataDir, 'credential.json'), 'utf8')) as { node_id: string }).node_id;
      const u = await fundedUser('agent-requester');
      const key = await createKey(u);
      const before = await balanceUnits(u);
      // The node counts once its model is proven: until then the model has no live node (503).
      const deadline = Date.now() + 30_000;
      let answer: OpenAI.CreateEmbeddingResponse | undefined;
      while (!answer) {
        try {
          answer = await client(key.key).embeddings.create({ model: MODEL, input: ['hello from a node', 'and another'] });
        } catch (err) {
          if ((err as { status?: number }).status !== 503 || Date.now() > deadline) throw err;
          await checked.settle();
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      expect(answer.data).toHaveLength(2);
      for (const d of answer.data) expect(d.embedding).toHaveLength(DIMENSIONS);
      expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
      expect(await balanceUnits(u)).toBe(before - answer.usage.prompt_tokens * PRICE);
      // A request that found the model without a proven node (ended unavailable) cost nothing.
      const tasks = await tasksOf(key.id);
      expect(tasks.filter((t) => t.status === 'completed')).toEqual([
        { status: 'completed', node_id: nodeId, prompt_tokens: answer.usage.prompt_tokens, charged_units: answer.usage.prompt_tokens * PRICE },
      ]);
      expect(tasks.filter((t) => t.status !== 'completed').every((t) => t.charged_units === 0)).toBe(true);
      expect(agent.output()).toMatch(/2 embeddings in/);
      await killAgent(agent);
      agent = undefined;
      await rm(dataDir, { recursive: true, force: true });
    }, 120_000);
  });

  describe('an in-cluster worker serves it, through the official openai client', () => {
    let worker: WorkerProcess;
    let u: User;
    let key: { key: string; id: string };

    beforeAll(async () => {
      worker = await startWorker(stack, { WORKER_MODELS: `${MODEL},${CHAT_MODEL}` }, 'embed-worker');
      u = await fundedUser('embedder');
      key = await createKey(u);
    }, 90_000);
    afterAll(async () => {
      await worker?.stop();
    }, 30_000);

    it('lists the embedding model with its features beside the chat model', async () => {
      const models = (await client(key.key).models.list()).data as unknown as Array<{ id: string; supported_features: object }>;
      expect(models.find((m) => m.id === MODEL)?.supported_features).toEqual(EMBEDDING_MODEL_FEATURES);
      expect(models.find((m) => m.id === CHAT_MODEL)?.supported_features).toEqual(MODEL_FEATURES);
      expect(EMBEDDING_MODEL_FEATURES).toEqual({ tools: false, structured_outputs: false, embeddings: true });
    });

    it('one text and a batch, as floats and base64: vectors of the model’s length, the same text the same vector', async () => {
      const c = client(key.key);
      const one = await c.embeddings.create({ model: MODEL, input: 'The river runs through the city.', encoding_format: 'float' });
      expect(one).toMatchObject({ object: 'list', model: MODEL, data: [{ object: 'embedding', index: 0 }] });
      const v = one.data[0]!.embedding;
      expect(v).toHaveLength(DIMENSIONS);
      expect(v.every(Number.isFinite)).toBe(true);

      const batch = await c.embeddings.create({ model: MODEL, input: ['A list comprehension.', 'The river runs through the city.', 'Tea'] });
      expect(batch.data.map((d) => d.index)).toEqual([0, 1, 2]);
      for (const d of batch.data) expect(d.embedding).toHaveLength(DIMENSIONS);
      expect(batch.data[1]!.embedding).toEqual(v);
      expect(batch.data[0]!.embedding).not.toEqual(v);
      expect(batch.data[2]!.embedding).not.toEqual(batch.data[0]!.embedding);
      expect(batch.usage.total_tokens).toBe(batch.usage.prompt_tokens);

      // base64 on the wire, decoded by the client itself (it asks for base64 when no format is given).
      const decoded = await c.embeddings.create({ model: MODEL, input: 'The river runs through the city.' });
      expect(checked.requests.at(-1)).toMatchObject({ encoding_format: 'base64' });
      expect(decoded.data[0]!.embedding).toEqual(v);
      // base64 asked for explicitly: the client hands it over as it came, little-endian float32.
      const raw = await c.embeddings.create({ model: MODEL, input: 'The river runs through the city.', encoding_format: 'base64' });
      const text = raw.data[0]!.embedding as unknown as string;
      expect(typeof text).toBe('string');
      const bytes = Buffer.from(text, 'base64');
      expect(bytes.length).toBe(DIMENSIONS * 4);
      expect(Array.from({ length: DIMENSIONS }, (_, i) => bytes.readFloatLE(i * 4))).toEqual(v);
    }, 60_000);

    it('bills exactly usage.prompt_tokens × the price, to the key’s owner, counted on the key', async () => {
      const before = await balanceUnits(u);
      const used = (await keyRow(u, key.id)) as { requests: number; tokens: number; spent: number };
      const answer = await client(key.key).embeddings.create({ model: MODEL, input: ['count these tokens', 'and these ones too'] });
      const tokens = answer.usage.prompt_tokens;
      expect(tokens).toBeGreaterThan(2);
      expect(await balanceUnits(u)).toBe(before - tokens * PRICE);
      expect(await keyRow(u, key.id)).toMatchObject({
        requests: used.requests + 1,
        tokens: used.tokens + tokens,
        spent: (Math.round(used.spent * 1000) + tokens * PRICE) / 1000,
      });
      const [task] = (await tasksOf(key.id)).slice(-1);
      expect(task).toMatchObject({ status: 'completed', node_id: worker.nodeId, prompt_tokens: tokens, charged_units: tokens * PRICE });
      // The spending transaction says what it was.
      const rows = (await stack.db.query(`SELECT id FROM ledger_transactions WHERE description = $1`, [
        `API: ${MODEL}, ${tokens} tokens`,
      ])) as unknown[];
      expect(rows.length).toBeGreaterThanOrEqual(1);
    }, 60_000);

    it('many requests of one key at once (a settlement beside the next hold): every one answered and billed exactly', async () => {
      const before = await balanceUnits(u);
      const used = (await keyRow(u, key.id)) as { requests: number; tokens: number };
      let tokens = 0;
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => client(key.key).embeddings.create({ model: MODEL, input: `round ${round}, text ${i}` })),
        );
        for (const a of answers) expect(a.data[0]!.embedding).toHaveLength(DIMENSIONS);
        tokens += answers.reduce((n, a) => n + a.usage.prompt_tokens, 0);
      }
      expect(await balanceUnits(u)).toBe(before - tokens * PRICE);
      expect(await keyRow(u, key.id)).toMatchObject({ requests: used.requests + 32, tokens: used.tokens + tokens });
    }, 120_000);

    it('refuses in OpenAI’s error shape: token ids, other dimensions, a chat model, an embedding model in a chat', async () => {
      const c = client(key.key);
      const before = await balanceUnits(u);
      await expect(c.embeddings.create({ model: MODEL, input: [1, 2, 3] })).rejects.toMatchObject({
        status: 400,
        param: 'input',
        code: 'unsupported_parameter',
      });
      await expect(c.embeddings.create({ model: MODEL, input: [[1, 2]] })).rejects.toMatchObject({ status: 400, param: 'input' });
      await expect(c.embeddings.create({ model: MODEL, input: 'x', dimensions: 64 })).rejects.toMatchObject({
        status: 400,
        param: 'dimensions',
        code: 'unsupported_parameter',
      });
      expect((await c.embeddings.create({ model: MODEL, input: 'x', dimensions: DIMENSIONS, user: 'u-1' })).data[0]!.embedding).toHaveLength(
        DIMENSIONS,
      );
      await expect(c.embeddings.create({ model: CHAT_MODEL, input: 'x' })).rejects.toMatchObject({ status: 400, param: 'model' });
      await expect(c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        status: 400,
        param: 'model',
        type: 'invalid_request_error',
      });
      await expect(c.embeddings.create({ model: 'no-such-model', input: 'x' })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
      await expect(c.embeddings.create({ model: MODEL, input: '' })).rejects.toMatchObject({ status: 400, param: 'input' });
      await expect(c.embeddings.create({ model: MODEL, input: 'x', encoding_format: 'int8' as 'float' })).rejects.toMatchObject({ status: 400 });
      // Only the one request that was served cost anything.
      const [task] = (await tasksOf(key.id)).slice(-1);
      expect(await balanceUnits(u)).toBe(before - task!.charged_units);
    }, 60_000);

    it('402 for a balance that cannot pay, nothing held', async () => {
      const poor = await newUser(stack, 'poor-embedder');
      const k = await createKey(poor);
      await expect(client(k.key).embeddings.create({ model: MODEL, input: 'costs something' })).rejects.toMatchObject({
        status: 402,
        code: 'insufficient_quota',
      });
      expect(await tasksOf(k.id)).toEqual([]);
    });
  });
});
