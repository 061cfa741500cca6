import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { loadCatalog } from '../../src/modules/catalog/catalog';
import { TokenCounter } from '../../src/modules/catalog/token-counter';
import { killAgent, pairAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { workerStack } from '../support/openai-client';
import { apiCustomer, balanceUnits, newUser } from '../support/users';
import { startWorker, taskOf, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** The tiny model's price: 0.125 GLOB (125 units) per token. */
const PRICE = 125;

type Task = { status: string; node_id: string; prompt_tokens: number; completion_tokens: number; charged_units: string };

/** Waits for a completion's task to end. */
async function endedTask(stack: TestStack, completionId: string): Promise<Task> {
  const streamId = completionId.replace(/^cmpl-/, '');
  for (let i = 0; i < 100; i++) {
    const t = await taskOf<Task>(stack, streamId);
    if (t && t.status !== 'queued' && t.status !== 'running') return t;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${streamId} did not end`);
}

describe('POST /v1/completions (a raw prompt, no chat template) through the official openai client, on a real worker', () => {
  const harness = workerStack('completions-worker');
  const { checked } = harness;
  let stack: TestStack;
  beforeAll(() => {
    stack = harness.stack;
  });

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch });

  it('answers a text_completion whose prompt reached the model as it is, billed exactly usage.total_tokens × price', async () => {
    const { user, key, keyId } = await apiCustomer(stack, 'completer');
    const before = await balanceUnits(stack, user);
    const prompt = 'Once upon a time, in a city by the river,';
    const answer = await client(key).completions.create({ model: MODEL, prompt, max_tokens: 24, temperature: 0, seed: 11 });
    expect(answer.id).toMatch(/^cmpl-/);
    expect(answer.object).toBe('text_completion');
    expect(answer.choices).toHaveLength(1);
    expect(answer.choices[0]).toMatchObject({ index: 0, logprobs: null });
    expect(typeof answer.choices[0]!.text).toBe('string');
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
    const usage = answer.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeLessThanOrEqual(24);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);

    // No chat template: the prompt costs what the tokenizer makes of the text alone, fewer than the same text as a chat turn.
    const counter = stack.app.get(TokenCounter);
    expect(usage.prompt_tokens).toBe(await counter.countText(MODEL, prompt));
    expect(usage.prompt_tokens).toBeLessThan(await counter.countPrompt(MODEL, [{ role: 'user', content: prompt }]));

    const task = await endedTask(stack, answer.id);
    expect(task).toMatchObject({ status: 'completed', prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens });
    expect(Number(task.charged_units)).toBe(usage.total_tokens * PRICE);
    expect(await balanceUnits(stack, user)).toBe(before - usage.total_tokens * PRICE);
    const keys = await stack.http.get('/api/api-keys').set(user.auth).expect(200);
    const row = (keys.body.api_keys as Array<Record<string, unknown>>).find((k) => k.id === keyId);
    expect(row).toMatchObject({ requests: 1, tokens: usage.total_tokens, spent: (usage.total_tokens * PRICE) / 1000 });
    // And the model continued the text itself: the same text as a chat turn (templated) is answered otherwise.
    const chat = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 24,
      temperature: 0,
      seed: 11,
    });
    expect(chat.usage!.prompt_tokens).toBeGreaterThan(usage.prompt_tokens);
    expect(chat.choices[0]!.message.content).not.toBe(answer.choices[0]!.text);
    const afterFirst = await balanceUnits(stack, user);

    // Streamed with the same prompt, sampling and seed: the same text, in text_completion chunks, then [DONE].
    const stream = await client(key).completions.create({
      model: MODEL,
      prompt: [prompt],
      max_tokens: 24,
      temperature: 0,
      seed: 11,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Completions.Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.text ?? '').join('')).toBe(answer.choices[0]!.text);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0]!.finish_reason)).toEqual([answer.choices[0]!.finish_reason]);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const streamed = await endedTask(stack, last.id);
    expect(Number(streamed.charged_units)).toBe(usage.total_tokens * PRICE);
    expect(await balanceUnits(stack, user)).toBe(afterFirst - usage.total_tokens * PRICE);
  }, 60_000);

  it('ends at max_tokens with finish_reason length (16 by default), and before a stop sequence with finish_reason stop', async () => {
    const { key } = await apiCustomer(stack, 'limits');
    const openai = client(key);
    // A prompt the tiny model continues past 40 tokens at temperature 0 (it may end early on some).
    let prompt = '';
    let full: OpenAI.Completions.Completion | undefined;
    for (const p of ['The river', 'Count: one, two, three,', 'A long story:', 'Hello', 'Lorem ipsum dolor sit amet']) {
      const probe = await openai.completions.create({ model: MODEL, prompt: p, max_tokens: 40, temperature: 0, seed: 5 });
      if (probe.choices[0]!.finish_reason === 'length') {
        [prompt, full] = [p, probe];
        break;
      }
    }
    expect(full).toBeDefined();
    expect(full!.usage!.completion_tokens).toBe(40);
    const byDefault = await openai.completions.create({ model: MODEL, prompt, temperature: 0, seed: 5 });
    expect(byDefault.choices[0]!.finish_reason).toBe('length');
    expect(byDefault.usage!.completion_tokens).toBe(16);
    expect(full!.choices[0]!.text.startsWith(byDefault.choices[0]!.text)).toBe(true);

    // A stop sequence from the middle of the deterministic text, at its first occurrence.
    const text = full!.choices[0]!.text;
    let at = Math.floor(text.length / 2);
    while (at > 0 && text.indexOf(text.slice(at, at + 3)) !== at) at--;
    const stop = text.slice(at, at + 3);
    expect(stop).toHaveLength(3);
    const cut = await openai.completions.create({ model: MODEL, prompt, max_tokens: 40, temperature: 0, seed: 5, stop: [stop] });
    expect(cut.choices[0]!.text).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(cut.usage!.completion_tokens).toBeLessThan(40);
    const task = await endedTask(stack, cut.id);
    expect(Number(task.charged_units)).toBe(cut.usage!.total_tokens * PRICE);
  }, 60_000);

  it('refuses in OpenAI’s shape: more than one prompt, echo/suffix/best_of/penalties, n ≠ 1, a prompt that does not fit the context, an unknown model', async () => {
    const { user, key } = await apiCustomer(stack, 'refused');
    const before = await balanceUnits(stack, user);
    const openai = client(key);
    const refused = (body: Record<string, unknown>) =>
      openai.completions
        .create({ model: MODEL, prompt: 'Hi', ...body } as OpenAI.Completions.CompletionCreateParamsNonStreaming)
        .catch((e: unknown) => e);

    const two = await refused({ prompt: ['one', 'two'] });
    expect(two).toBeInstanceOf(OpenAI.BadRequestError);
    expect(two).toMatchObject({ status: 400, param: 'prompt', type: 'invalid_request_error' });
    for (const [param, value] of [
      ['echo', true],
      ['suffix', ' the end'],
      ['best_of', 2],
      ['frequency_penalty', 0.5],
      ['presence_penalty', 0.5],
    ] as const) {
      const err = await refused({ [param]: value });
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect([param, err]).toMatchObject([param, { status: 400, param, code: 'unsupported_parameter' }]);
    }
    const n2 = await refused({ n: 2 });
    expect(n2).toMatchObject({ status: 400, param: 'n', code: 'unsupported_parameter' });

    const context = loadCatalog(stack.config).find((m) => m.id === MODEL)!.contextLength;
    const tooLong = await refused({ max_tokens: context });
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tooLong).toMatchObject({ status: 400, param: 'prompt' });
    expect((tooLong as Error).message).toContain(`maximum context length is ${context} tokens`);

    const unknown = await refused({ model: 'llama-4-400b' });
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ status: 404, param: 'model', code: 'model_not_found' });
    // Nothing was queued, held or charged.
    expect(await balanceUnits(stack, user)).toBe(before);
  });
});

describe('POST /v1/completions served by a remote node (the real agent), checked by a trusted generator', () => {
  let stack: TestStack;
  let verifier: WorkerProcess;
  let agent: AgentProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    // Every reply of the node is spot-checked: the replay must start from the same raw prompt, or it would differ.
    stack = await startStack({ env: { SPOT_CHECK_FIRST: '5', SPOT_CHECK_PERCENT: '0', HEARTBEAT_SECONDS: '2' } });
    verifier = await startWorker(stack, { WORKER_VERIFY_ONLY: 'true', WORKER_MODELS: MODEL }, 'completions-verifier');
    dataDir = await mkdtemp(join(tmpdir(), 'glob-completions-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await verifier?.stop();
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('the agent generates the raw prompt; the platform counts and charges it; the spot check replays it and passes', async () => {
    const owner = await newUser(stack, 'completion-node-owner');
    agent = await pairAgent(stack, owner, 'completion-node', dataDir);
    await agent.waitFor(/Serving glob-tiny-chat/);
    const [node] = (await stack.db.query(`SELECT id FROM nodes WHERE name = 'completion-node'`)) as Array<{ id: string }>;
    const { user, key } = await apiCustomer(stack, 'remote-completer');
    const before = await balanceUnits(stack, user);
    const openai = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const prompt = 'The city by the river woke up and';
    let answer: OpenAI.Completions.Completion | undefined;
    for (let i = 0; i < 100 && !answer; i++) {
      // The node is live once its first heartbeat is in.
      answer = await openai.completions.create({ model: MODEL, prompt, max_tokens: 30, temperature: 0.7, seed: 42 }).catch((e: unknown) => {
        if (e instanceof OpenAI.APIError && e.status === 503) return undefined;
        throw e;
      });
      if (!answer) await new Promise((r) => setTimeout(r, 200));
    }
    expect(answer!.object).toBe('text_completion');
    const usage = answer!.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.prompt_tokens).toBe(await stack.app.get(TokenCounter).countText(MODEL, prompt));
    const task = await endedTask(stack, answer!.id);
    expect(task).toMatchObject({ status: 'completed', node_id: node!.id, prompt_tokens: usage.prompt_tokens });
    expect(Number(task.charged_units)).toBe(usage.total_tokens * PRICE);
    expect(await balanceUnits(stack, user)).toBe(before - usage.total_tokens * PRICE);
    await agent.waitFor(/Job (\S+): (\d+) tokens? in [\d.]+ s/);

    const deadline = Date.now() + 60_000;
    for (;;) {
      const checks = (await stack.db.query(`SELECT status FROM spot_checks WHERE node_id = $1`, [node!.id])) as Array<{ status: string }>;
      if (checks.length === 1 && checks[0]!.status !== 'pending') {
        expect(checks.map((c) => c.status)).toEqual(['passed']);
        break;
      }
      if (Date.now() > deadline) throw new Error(`spot check not judged: ${JSON.stringify(checks)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);
});
