import Ajv from 'ajv';
import OpenAI from 'openai';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceService } from '../../src/modules/inference/inference.service';
import { FAILED_SPOT_CHECK } from '../../src/modules/trust/spot-checks.service';
import type { StreamEvent } from '../../src/modules/inference/streams';
import type { JsonFrame } from '@glob/engine/tool-format';
import { killAgent, pairAgent, untilAvailable, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { modelsProof, modelsReply, ScriptedNode, type NodeJob } from '../support/scripted-node';
import { newUser } from '../support/users';
import { startWorker, taskOf, type WorkerProcess } from '../support/worker';

/** The agent's model, replayed by the trusted generator; the scripted nodes' model has no trusted generator. */
const MODEL = 'glob-tiny-chat';
const SCRIPTED_MODEL = 'llama-3.2-1b-instruct';
/** Key order matters: the grammar writes an object's properties in it, and a replay must write them the same way. */
const SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    city: { enum: ['Paris', 'Tokyo'] },
    days: { type: 'integer' },
    note: { type: 'string', maxLength: 12 },
  },
  required: ['ok', 'city', 'days', 'note'],
  additionalProperties: false,
};
let seq = 0;
const streamId = () => `js_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/**
 * Replies that must be JSON matching a schema (as the OpenAI-compatible API asks for them): every generator generates
 * under the schema's grammar, a spot check replays under the same grammar, and the platform checks the text it
 * relays, since a node can send anything.
 */
describe('JSON-schema replies', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let owner: User;
  let requester: User;
  let apiKeyId: string;
  let agent: AgentProcess | undefined;
  let dataDir: string;

  const balance = async () => {
    const b = (await stack.http.get(`/api/wallet/${requester.id}/balance`).set(requester.auth).expect(200)).body as {
      balance: number;
      pending_balance: number;
    };
    return { balance: b.balance, held: b.pending_balance };
  };
  /** A JSON reply asked for as the OpenAI-compatible API does, read to its end. */
  const ask = async (id: string, modelId: string, prompt: string, frame?: JsonFrame) => {
    const params = { max_tokens: 160, temperature: 0.8, json_schema: SCHEMA, ...(frame ? { json_frame: frame } : {}) };
    const started = await stack.app.get(InferenceService).start(requester.id, { streamId: id, modelId, prompt, params }, { apiKeyId });
    const events: StreamEvent[] = [];
    for await (const { event } of started.events(0)) events.push(event);
    return { text: events.map((e) => (e.type === 'token' ? e.text : '')).join(''), end: events.at(-1)! };
  };

  beforeAll(async () => {
    // Scripted nodes compute their answers in engine children after claiming, silent meanwhile: a busy machine must not
    // make them miss a real node's first-token deadline, job lock or live window (deadlines are tested elsewhere).
    stack = await startStack({
      env: { SPOT_CHECK_FIRST: '2', SPOT_CHECK_PERCENT: '0', HEARTBEAT_SECONDS: '20', NODE_FIRST_TOKEN_SECONDS: '180', JOB_LOCK_MS: '180000' },
    });
    worker = await startWorker(stack, { WORKER_VERIFY_ONLY: 'true', WORKER_MODELS: MODEL });
    owner = await newUser(stack, 'json-owner');
    requester = await newUser(stack, 'json-requester');
    await stack.http.post('/api/api-keys').set(requester.auth).send({ name: 'json' }).expect(201);
    apiKeyId = ((await stack.db.query(`SELECT id FROM api_keys WHERE user_id = $1`, [requester.id])) as Array<{ id: string }>)[0]!.id;
    dataDir = await mkdtemp(join(tmpdir(), 'glob-json-'));
  }, 90_000);
  afterAll(async () => {
    await killAgent(agent);
    await worker?.stop();
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('a node that relays text not matching the schema fails the reply: nobody pays, the task counts against the node', async () => {
    const liar = await ScriptedNode.pair(stack, owner, { models: [SCRIPTED_MODEL] });
    for (const text of ['Sure! It is sunny in Paris.', '{"ok": true, "city": "Berlin", "days": 2, "note": "x"}', '{"ok": true']) {
      const before = await balance();
      const id = streamId();
      const reading = ask(id, SCRIPTED_MODEL, 'Weather in Paris, as JSON');
      const job = (await liar.claim())!;
      expect(job.job_id).toBe(id);
      // The schema reaches the node as it was asked for, key order included.
      expect(JSON.stringify((job.params as { json_schema?: object }).json_schema)).toBe(JSON.stringify(SCHEMA));
      await liar.finish(id, text);
      const { end } = await reading;
      expect(end).toMatchObject({ type: 'error', code: 'INTERNAL_ERROR' });
      expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', node_id: liar.id, charged_units: '0' });
      expect(await balance()).toEqual(before);
    }

    // Matching JSON completes and is paid for; so is JSON cut at the token limit (the limit, not the node, ended it).
    for (const [text, stop] of [
      ['{"ok": false, "city": "Tokyo", "days": 3, "note": "rain"}', 'stop'],
      ['{"ok": false, "ci', 'length'],
    ] as const) {
      const id = streamId();
      const reading = ask(id, SCRIPTED_MODEL, 'Weather in Tokyo, as JSON');
      await liar.claim();
      await liar.send(id, [
        { type: 'token', text },
        { type: 'done', usage: { prompt_tokens: 10, completion_tokens: 20 }, stop_reason: stop },
      ]);
      const { text: relayed, end } = await reading;
      expect(relayed).toBe(text);
      expect(end).toMatchObject({ type: 'done', stop_reason: stop });
      const task = await taskOf<{ status: string; charged_units: string }>(stack, id);
      expect(task.status).toBe('completed');
      expect(Number(task.charged_units)).toBeGreaterThan(0);
    }
  }, 60_000);

  it('a tools reply in a family’s frame (Qwen’s <tool_call>): outside the frame, or not matching inside it, it fails at no charge; an answer is text only where one is allowed', async () => {
    const liar = await ScriptedNode.pair(stack, owner, { models: [SCRIPTED_MODEL] });
    const frame = { before: '<tool_call>\n', after: '\n</tool_call>' };
    const call = '{"ok": true, "city": "Paris", "days": 2, "note": "x"}';
    const relay = async (text: string, asked: JsonFrame) => {
      const before = await balance();
      const id = streamId();
      const reading = ask(id, SCRIPTED_MODEL, 'Weather in Paris?', asked);
      const job = (await liar.claim())!;
      expect(job.params).toMatchObject({ json_frame: asked });
      await liar.finish(id, text);
      const { end } = await reading;
      const task = await taskOf<{ status: string; charged_units: string }>(stack, id);
      if (end.type === 'error') expect(await balance()).toEqual(before);
      return { end: end.type, status: task.status, charged: Number(task.charged_units) > 0 };
    };
    const failed = { end: 'error', status: 'failed', charged: false };
    const completed = { end: 'done', status: 'completed', charged: true };
    // A call that must be made: only the framed JSON, whole and matching, completes.
    expect(await relay(call, frame)).toEqual(failed);
    expect(await relay(`<tool_call>\n{"ok": true, "city": "Berlin", "days": 2, "note": "x"}\n</tool_call>`, frame)).toEqual(failed);
    expect(await relay(`<tool_call>\n${call}`, frame)).toEqual(failed);
    expect(await relay('It is sunny.', frame)).toEqual(failed);
    expect(await relay(`<tool_call>\n${call}\n</tool_call>`, frame)).toEqual(completed);
    // Where the model may answer instead, plain text completes; text opening as a call must be one.
    expect(await relay('It is sunny.', { ...frame, or_text: true })).toEqual(completed);
    expect(await relay('<tool_call> oops', { ...frame, or_text: true })).toEqual(failed);
    expect(await relay(`<tool_call>\n${call}\n</tool_call>`, { ...frame, or_text: true })).toEqual(completed);
  }, 60_000);

  it('a spot check scores a node’s logprobs again: the model’s own pass, the same text with made-up numbers pauses the node and refunds the requester', async () => {
    const honest = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof });
    const liar = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof });
    /** One reply with logprobs served by `node`: the model's own text, and its own scores passed through `alter`. */
    const serve = async (node: ScriptedNode, alter: (logprob: number) => number) => {
      const id = streamId();
      const started = await stack.app
        .get(InferenceService)
        .start(
          requester.id,
          { streamId: id, modelId: MODEL, prompt: 'Tell me about the river.', params: { max_tokens: 12, logprobs: 2 } },
          { apiKeyId },
        );
      const job = (await node.claim()) as NodeJob & { params: { logprobs?: number } };
      expect(job.params.logprobs).toBe(2);
      const { text, logprobs, commitment, stopReason } = await modelsReply(job, 2);
      // Still well formed (every number moved alike keeps them at most 0 and in order): only the model can tell.
      const sent = logprobs!.map((t) => ({
        ...t,
        logprob: alter(t.logprob),
        top_logprobs: t.top_logprobs.map((c) => ({ ...c, logprob: alter(c.logprob) })),
      }));
      await node.send(job.job_id, [
        { type: 'token', text },
        { type: 'done', usage: { prompt_tokens: 10, completion_tokens: 12 }, stop_reason: stopReason, logprobs: sent, commitment },
      ]);
      const events: StreamEvent[] = [];
      for await (const { event } of started.events(0)) events.push(event);
      expect(events.at(-1)).toMatchObject({ type: 'done', logprobs: sent });
      return id;
    };
    const verdict = async (nodeId: string) => {
      for (const deadline = Date.now() + 60_000; ;) {
        const rows = (await stack.db.query(`SELECT status FROM spot_checks WHERE node_id = $1`, [nodeId])) as Array<{ status: string }>;
        if (rows.length === 1 && rows[0]!.status !== 'pending') return rows[0]!.status;
        if (Date.now() > deadline) throw new Error(`spot check not judged: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    await serve(honest, (l) => l);
    expect(await verdict(honest.id)).toBe('passed');
    const before = await balance();
    const lied = await serve(liar, (l) => l - 0.5);
    // The reply was charged when it ended (read from the task: the check may already have refunded the balance).
    const liedTask = await taskOf<{ id: string; charged_units: string }>(stack, lied);
    expect(Number(liedTask.charged_units)).toBeGreaterThan(0);
    expect(await verdict(liar.id)).toBe('failed');
    const nodes = (await stack.db.query(`SELECT id, paused, paused_reason FROM nodes WHERE id = ANY($1)`, [[honest.id, liar.id]])) as Array<{
      id: string;
      paused: boolean;
      paused_reason: string | null;
    }>;
    expect(nodes.find((n) => n.id === liar.id)).toMatchObject({ paused: true, paused_reason: FAILED_SPOT_CHECK });
    expect(nodes.find((n) => n.id === honest.id)).toMatchObject({ paused: false });
    // The requester got the lied-about reply's charge back, once.
    expect((await balance()).balance).toBeCloseTo(before.balance, 6);
    const refunds = (await stack.db.query(`SELECT count(*)::int AS n FROM ledger_transactions WHERE type = 'refund' AND reference = $1`, [
      liedTask.id,
    ])) as Array<{ n: number }>;
    expect(refunds[0]!.n).toBe(1);
    expect(await taskOf(stack, lied)).toMatchObject({ node_id: liar.id });
    for (const n of [honest, liar]) await stack.http.delete(`/api/nodes/${n.id}`).set(owner.auth).expect(204);
  }, 120_000);

  it('the project’s agent generates under the grammar: its replies (a tool call and a json_schema answer through /v1 too) match the schema and pass the trusted replay; it scores logprobs', async () => {
    agent = await pairAgent(stack, owner, 'json-box', dataDir);
    await agent.waitFor(/Serving glob-tiny-chat with 1 thread/);
    await agent.waitFor(/Answered the platform's challenge for glob-tiny-chat/);
    const nodeId = ((await stack.db.query(`SELECT id FROM nodes WHERE name = 'json-box'`)) as Array<{ id: string }>)[0]!.id;
    await untilAvailable(stack, requester, MODEL, agent);
    const validate = new Ajv().compile(SCHEMA);
    for (const prompt of ['Weather in Paris, as JSON', 'And in Tokyo?']) {
      const { text, end } = await ask(streamId(), MODEL, prompt);
      expect(end).toMatchObject({ type: 'done', stop_reason: 'stop' });
      const value = JSON.parse(text) as unknown;
      expect({ value, valid: validate(value) }).toEqual({ value, valid: true });
    }
    // The trusted generator replayed both under the same grammar (without it, the near-random model writes other tokens).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const checks = (await stack.db.query(`SELECT status FROM spot_checks WHERE node_id = $1`, [nodeId])) as Array<{ status: string }>;
      if (checks.length === 2 && checks.every((c) => c.status !== 'pending')) {
        expect(checks.map((c) => c.status)).toEqual(['passed', 'passed']);
        break;
      }
      if (Date.now() > deadline) throw new Error(`spot checks not judged: ${JSON.stringify(checks)}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    // Through the OpenAI-compatible API, with the official client: a tool call and a json_schema answer, both by the node.
    const { key } = (await stack.http.post('/api/api-keys').set(requester.auth).send({ name: 'agent-tools' }).expect(201)).body as { key: string };
    const openai = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const called = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Tokyo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: SCHEMA } }],
      tool_choice: 'required',
      max_tokens: 160,
    });
    const call = called.choices[0]!.message.tool_calls![0]!;
    expect(called.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && validate(JSON.parse(call.function.arguments))).toBe(true);
    const structured = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris, as JSON' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: SCHEMA, strict: true } },
      max_tokens: 160,
    });
    expect(validate(JSON.parse(structured.choices[0]!.message.content!))).toBe(true);
    const served = (await stack.db.query(`SELECT node_id FROM inference_tasks WHERE stream_id = ANY($1)`, [
      [called.id, structured.id].map((id) => id.replace(/^chatcmpl-/, '')),
    ])) as Array<{ node_id: string }>;
    expect(served).toEqual([{ node_id: nodeId }, { node_id: nodeId }]);

    // logprobs scored by the node's own engine pass the platform's check: each the likeliest token at temperature 0.
    const scored = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Tell me about the river.' }],
      logprobs: true,
      top_logprobs: 2,
      temperature: 0,
      max_tokens: 16,
    });
    const text = scored.choices[0]!.message.content!;
    const tokens = scored.choices[0]!.logprobs!.content!;
    expect(text.length).toBeGreaterThan(0);
    expect(tokens.map((t) => t.token).join('')).toBe(text);
    for (const t of tokens) expect(t.top_logprobs.map((c) => c.token)[0]).toBe(t.token);
    expect(await taskOf(stack, scored.id.replace(/^chatcmpl-/, ''))).toMatchObject({ status: 'completed', node_id: nodeId });

    agent.child.kill('SIGINT');
    await agent.exited;
  }, 150_000);
});
