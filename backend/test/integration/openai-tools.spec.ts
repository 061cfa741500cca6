import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, stepCountIs, tool } from 'ai';
import Ajv from 'ajv';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { ApiKeysRepository } from '../../src/modules/api-keys/api-keys.repository';
import { apiKeyProblems } from '../../src/modules/api-keys/api-keys.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { startStack, TestStack } from '../support/app';
import { ledgerCheckCli } from '../support/ledger-check';
import { SpecCheckedFetch } from '../support/openai-client';
import { newUser } from '../support/users';
import { startWorker, taskOf, WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** The tiny model's price: 0.125 GLOB (125 units) per token. */
const PRICE = 125;

/**
 * Arguments the near-random tiny model can only write in a few ways: the grammar decides their shape, so every
 * answer parses; the values are whatever the model picked.
 */
const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string', enum: ['Paris', 'Tokyo', 'Lima'] },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    tomorrow: { type: 'boolean' },
  },
  required: ['city', 'unit', 'tomorrow'],
  additionalProperties: false,
} as const;
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_PARAMS },
};
const timeTool = {
  type: 'function' as const,
  function: {
    name: 'get_time',
    description: 'The time in a city',
    parameters: { type: 'object', properties: { city: { enum: ['Paris', 'Lima'] } } },
  },
};
const Weather = z.object({ city: z.enum(['Paris', 'Tokyo', 'Lima']), unit: z.enum(['celsius', 'fahrenheit']), tomorrow: z.boolean() });

describe('tools and structured outputs on /v1, through clients nobody here wrote (openai, the AI SDK, LangChain), on a real worker', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  const checked = new SpecCheckedFetch();
  const ajv = new Ajv({ strict: false });

  beforeAll(async () => {
    stack = await startStack({ env: { WELCOME_BONUS_GLOB: '0', API_KEY_REQUESTS_PER_WINDOW: '1000' } });
    worker = await startWorker(stack, {}, 'openai-tools-worker');
  }, 90_000);
  afterEach(async () => {
    expect(await checked.settle()).toEqual([]);
  });
  afterAll(async () => {
    await worker?.stop();
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    expect(await apiKeyProblems(stack.app.get(ApiKeysRepository))).toEqual([]);
    expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
    await stack.close();
  }, 60_000);

  /** A user with 1,000 GLOB bought and an API key. */
  async function keyHolder(name: string) {
    const u = await newUser(stack, name);
    await stack.http.post(`/api/wallet/${u.id}/purchase`).set(u.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    const res = await stack.http.post('/api/api-keys').set(u.auth).send({ name: 'agent' }).expect(201);
    const key = res.body.key as string;
    const balance = async () => Math.round((await stack.http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body.balance * 1000);
    return { u, key, balance, openai: new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch }) };
  }

  /** What a reply's task charged, once it ended. */
  async function charged(completionId: string): Promise<number> {
    const streamId = completionId.replace(/^chatcmpl-/, '');
    for (let i = 0; i < 100; i++) {
      const t = await taskOf<{ status: string; charged_units: string }>(stack, streamId);
      if (t && t.status !== 'queued' && t.status !== 'running') return Number(t.charged_units);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`task ${streamId} did not end`);
  }

  it('tool_choice required: a call of one of the tools, arguments matching its parameters, billed exactly its usage', async () => {
    const { openai, balance } = await keyHolder('required');
    const before = await balance();
    let spent = 0;
    for (const seed of [1, 2, 3]) {
      const answer = await openai.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        tools: [weatherTool, timeTool],
        tool_choice: 'required',
        seed,
        max_tokens: 200,
      });
      const choice = answer.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      const call = choice.message.tool_calls![0]!;
      expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), type: 'function' });
      if (call.type !== 'function') throw new Error(call.type);
      const params = call.function.name === 'get_weather' ? WEATHER_PARAMS : timeTool.function.parameters;
      expect(['get_weather', 'get_time']).toContain(call.function.name);
      expect(ajv.validate(params, JSON.parse(call.function.arguments))).toBe(true);
      expect(await charged(answer.id)).toBe(answer.usage!.total_tokens * PRICE);
      spent += answer.usage!.total_tokens * PRICE;
    }
    expect(await balance()).toBe(before - spent);
  });

  it('a named function is the one called; auto answers with a call or with text, never both; none answers text', async () => {
    const { openai } = await keyHolder('named');
    const named = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Time in Lima?' }],
      tools: [weatherTool, timeTool],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      max_tokens: 100,
    });
    const call = named.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_time');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: expect.stringMatching(/^(Paris|Lima)$/) });

    for (const seed of [4, 5, 6, 7]) {
      const auto = await openai.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Weather in Tokyo tomorrow?' }],
        tools: [weatherTool],
        seed,
        max_tokens: 200,
      });
      const { message, finish_reason } = auto.choices[0]!;
      if (message.tool_calls) {
        expect(finish_reason).toBe('tool_calls');
        expect(message.content).toBeNull();
        const c = message.tool_calls![0]!;
        expect(c.type === 'function' && ajv.validate(WEATHER_PARAMS, JSON.parse(c.function.arguments))).toBe(true);
      } else {
        expect(['stop', 'length']).toContain(finish_reason);
        expect(typeof message.content).toBe('string');
        // The envelope never reaches the client: an answer is its text.
        expect(message.content).not.toMatch(/^\s*\{\s*"response"/);
      }
    }
    const none = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [weatherTool],
      tool_choice: 'none',
      max_tokens: 20,
    });
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it('streams a call in pieces that the client’s own stream helper reassembles into a parsed call', async () => {
    const { openai } = await keyHolder('stream');
    const stream = openai.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
      tools: [zodFunction({ name: 'get_weather', parameters: Weather })],
      tool_choice: 'required',
      max_tokens: 200,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    stream.on('tool_calls.function.arguments.delta', (e) => pieces.push(e.arguments_delta));
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const call = message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error(call.type);
    // zodFunction's tools are strict: the helper parsed the arguments with the zod schema itself.
    expect(Weather.parse(call.function.parsed_arguments)).toEqual(JSON.parse(call.function.arguments));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(call.function.arguments);
    expect(await charged(final.id)).toBe(final.usage!.total_tokens * PRICE);
  });

  it('takes a tool’s result back (role tool) and answers; the tool turn is part of the prompt it pays for', async () => {
    const { openai } = await keyHolder('result');
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: MODEL, messages, tools: [weatherTool], tool_choice: 'required', max_tokens: 100 });
    const call = first.choices[0]!.message.tool_calls![0]!;
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 degrees, a light wind from the west.' });
    const second = await openai.chat.completions.create({ model: MODEL, messages, tools: [weatherTool], tool_choice: 'none', max_tokens: 20 });
    expect(typeof second.choices[0]!.message.content).toBe('string');
    const without = await openai.chat.completions.create({ model: MODEL, messages: messages.slice(0, 1), max_tokens: 1 });
    expect(second.usage!.prompt_tokens).toBeGreaterThan(without.usage!.prompt_tokens);
    expect(await charged(second.id)).toBe(second.usage!.total_tokens * PRICE);
    // A tool result that answers no call is not a conversation.
    const stray = await openai.chat.completions
      .create({ model: MODEL, messages: [...messages.slice(0, 1), { role: 'tool', tool_call_id: 'call_nope', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(stray).toBeInstanceOf(OpenAI.BadRequestError);
    expect(stray).toMatchObject({ status: 400, param: 'messages', code: 'invalid_value' });
  });

  it('response_format json_schema: the client’s parse helper gets an object of the schema; json_object any object', async () => {
    const { openai, balance } = await keyHolder('structured');
    const before = await balance();
    const parsed = await openai.chat.completions.parse({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Tokyo as JSON' }],
      response_format: zodResponseFormat(Weather, 'weather'),
      max_tokens: 200,
    });
    expect(parsed.choices[0]!.finish_reason).toBe('stop');
    expect(Weather.parse(parsed.choices[0]!.message.parsed)).toEqual(JSON.parse(parsed.choices[0]!.message.content!));
    const object = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Anything, as JSON' }],
      response_format: { type: 'json_object' },
      max_tokens: 200,
      seed: 3,
    });
    if (object.choices[0]!.finish_reason === 'stop') expect(JSON.parse(object.choices[0]!.message.content!)).toEqual(expect.any(Object));
    expect(await balance()).toBe(before - (parsed.usage!.total_tokens + object.usage!.total_tokens) * PRICE);
  });

  it('refuses a schema keyword no grammar can enforce, naming it, and holds nothing', async () => {
    const { openai, balance } = await keyHolder('refused');
    const before = await balance();
    const err = await openai.chat.completions
      .create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Zip code?' }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'zip', schema: { type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } } } },
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      param: 'response_format',
      code: 'unsupported_parameter',
      message: expect.stringContaining('response_format.json_schema.schema.properties.zip: pattern is not supported'),
    });
    const toolErr = await openai.chat.completions
      .create({
        model: MODEL,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'number', minimum: 1 } } } } }],
      })
      .catch((e: unknown) => e);
    expect(toolErr).toMatchObject({
      status: 400,
      param: 'tools',
      message: expect.stringContaining('tools[0].function.parameters.properties.n: minimum'),
    });
    expect(await balance()).toBe(before);
  });

  it('the Vercel AI SDK: generateText calls a tool, runs it and answers with its result; generateObject returns a zod object', async () => {
    const { key, balance } = await keyHolder('ai-sdk');
    const before = await balance();
    const provider = createOpenAICompatible({
      name: 'glob',
      baseURL: `${stack.url}/v1`,
      apiKey: key,
      fetch: checked.fetch,
      supportsStructuredOutputs: true,
    });
    const sent = checked.requests.length;
    const calls: Array<z.infer<typeof Weather>> = [];
    const result = await generateText({
      model: provider(MODEL),
      prompt: 'What is the weather in Paris?',
      maxOutputTokens: 300,
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: Weather,
          execute: async (input) => {
            calls.push(input);
            return { forecast: `Sunny in ${input.city}` };
          },
        }),
      },
      // A call first, then an answer that reads its result.
      prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? 'required' : 'none' }),
      stopWhen: stepCountIs(2),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(calls).toHaveLength(1);
    expect(Weather.parse(calls[0])).toEqual(result.steps[0]!.toolCalls[0]!.input);
    expect(typeof result.text).toBe('string');
    // The second request carried the call and its result back, as OpenAI's messages.
    const second = checked.requests[sent + 1]!;
    const roles = (second.messages as Array<{ role: string; tool_call_id?: string }>).map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool']);
    expect((second.messages as Array<{ content: string }>)[2]!.content).toContain(`Sunny in ${calls[0]!.city}`);

    const { object, usage } = await generateObject({
      model: provider(MODEL),
      schema: Weather,
      prompt: 'Weather in Lima as JSON',
      maxOutputTokens: 200,
    });
    expect(Weather.parse(object)).toEqual(object);
    expect(checked.requests.at(-1)!.response_format).toMatchObject({ type: 'json_schema' });
    expect(await balance()).toBe(before - (result.totalUsage.totalTokens! + usage.totalTokens!) * PRICE);
  });

  it('LangChain: bindTools gives a tool call with parsed args; withStructuredOutput a zod object', async () => {
    const { u, key, balance } = await keyHolder('langchain');
    const before = await balance();
    const model = new ChatOpenAI({
      model: MODEL,
      apiKey: key,
      maxTokens: 150,
      maxRetries: 0,
      configuration: { baseURL: `${stack.url}/v1`, fetch: checked.fetch },
    });
    const getWeather = langchainTool(async (input: z.infer<typeof Weather>) => `Sunny in ${input.city}`, {
      name: 'get_weather',
      description: 'The weather in a city',
      schema: Weather,
    });
    const sent = checked.requests.length;
    const reply = await model.bindTools([getWeather], { tool_choice: 'get_weather' }).invoke('Weather in Paris?');
    expect(reply.tool_calls).toHaveLength(1);
    expect(reply.tool_calls![0]).toMatchObject({ name: 'get_weather', id: expect.stringMatching(/^call_/) });
    expect(Weather.parse(reply.tool_calls![0]!.args)).toEqual(reply.tool_calls![0]!.args);

    const structured = await model.withStructuredOutput(Weather, { name: 'weather' }).invoke('Weather in Tokyo?');
    expect(Weather.parse(structured)).toEqual(structured);
    const bodies = checked.requests.slice(sent);
    expect(bodies).toHaveLength(2);
    // Spent exactly what the two replies' tasks charged, their usage at the model's price.
    const [tasks] = (await stack.db.query(`SELECT SUM(charged_units)::int AS units, COUNT(*)::int AS n FROM inference_tasks WHERE user_id = $1`, [
      u.id,
    ])) as Array<{
      units: number;
      n: number;
    }>;
    expect(tasks).toMatchObject({ n: 2, units: expect.any(Number) });
    expect(await balance()).toBe(before - tasks!.units);
  });
});
