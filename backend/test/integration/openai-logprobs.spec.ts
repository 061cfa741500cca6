import OpenAI from 'openai';
import { logprobsProblem, type TokenLogprob } from '@glob/engine/logprobs';
import type { TestStack } from '../support/app';
import { workerStack } from '../support/openai-client';
import { ScriptedNode } from '../support/scripted-node';
import { apiCustomer, balanceUnits, newUser } from '../support/users';
import { taskOf } from '../support/worker';

/** The worker's model; the scripted nodes serve another one, which no worker has. */
const MODEL = 'glob-tiny-chat';
const SCRIPTED_MODEL = 'llama-3.2-1b-instruct';
/** The tiny model's price: 0.125 GLOB (125 units) per token. */
const PRICE = 125;
type User = Awaited<ReturnType<typeof newUser>>;

const bytes = (s: string) => Array.from(Buffer.from(s, 'utf8'));
const scored = (token: string, logprob: number, top: Array<[string, number]>): TokenLogprob => ({
  token,
  logprob,
  bytes: bytes(token),
  top_logprobs: top.map(([t, l]) => ({ token: t, logprob: l, bytes: bytes(t) })),
});

/**
 * logprobs and top_logprobs through the OpenAI-compatible API, read with the official openai client: scored by the
 * generator (the in-cluster worker here, a node's own engine elsewhere) and checked by the platform before anyone
 * pays, since a node can send any numbers.
 */
describe('logprobs on /v1 (official openai client, real worker, scripted nodes)', () => {
  const harness = workerStack('logprobs-worker', { WORKER_MODELS: MODEL });
  const { checked } = harness;
  let stack: TestStack;
  let owner: User;
  beforeAll(async () => {
    stack = harness.stack;
    owner = await newUser(stack, 'logprobs-owner');
  });

  /** A user with 1000 GLOB bought, and an API key's client. */
  const customer = async (name: string) => {
    const { user, key } = await apiCustomer(stack, name);
    return { user, openai: new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch }) };
  };

  it('a chat answer’s tokens are its text, each the likeliest at temperature 0, with top_logprobs; streamed the same; billed as usual', async () => {
    const { user, openai } = await customer('scorer');
    const before = await balanceUnits(stack, user);
    const ask = { model: MODEL, messages: [{ role: 'user' as const, content: 'Tell me about the river.' }], max_tokens: 24, temperature: 0, seed: 3 };
    const answer = await openai.chat.completions.create({ ...ask, logprobs: true, top_logprobs: 3 });
    const text = answer.choices[0]!.message.content!;
    const content = answer.choices[0]!.logprobs!.content!;
    expect(text.length).toBeGreaterThan(0);
    expect(logprobsProblem(text, content as TokenLogprob[], 3)).toBeNull();
    for (const t of content) {
      expect(t.top_logprobs[0]!.token).toBe(t.token);
      expect(t.logprob).toBeCloseTo(t.top_logprobs[0]!.logprob, 5);
    }
    expect(answer.choices[0]!.logprobs!.refusal).toBeNull();
    // Without logprobs, the same answer and no scores.
    const plain = await openai.chat.completions.create(ask);
    expect(plain.choices[0]!.message.content).toBe(text);
    expect(plain.choices[0]!.logprobs).toBeNull();

    // Streamed and put together by the client's own helper: the same tokens, on the choice's last chunk.
    const stream = openai.chat.completions.stream({ ...ask, logprobs: true, top_logprobs: 3 });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    stream.on('chunk', (c) => chunks.push(c));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(text);
    expect(final.choices[0]!.logprobs!.content).toEqual(content);
    const scoredChunks = chunks.filter((c) => c.choices[0]?.logprobs);
    expect(scoredChunks).toHaveLength(1);
    expect(scoredChunks[0]!.choices[0]!.finish_reason).not.toBeNull();

    // Scoring costs nothing more: each answer is billed its usage at the model's price.
    const used = [answer, plain].reduce((sum, a) => sum + a.usage!.total_tokens, 0) + answer.usage!.total_tokens;
    for (let i = 0; i < 50 && (await balanceUnits(stack, user)) !== before - used * PRICE; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await balanceUnits(stack, user)).toBe(before - used * PRICE);
  }, 60_000);

  it('top_logprobs 0 gives the tokens alone; a stop sequence ends the tokens where it ends the text; completions use the legacy shape', async () => {
    const { openai } = await customer('legacy');
    const messages = [{ role: 'user' as const, content: 'Tell me about the river.' }];
    const full = await openai.chat.completions.create({ model: MODEL, messages, max_tokens: 24, temperature: 0, seed: 3, logprobs: true });
    const fullText = full.choices[0]!.message.content!;
    const tokens = full.choices[0]!.logprobs!.content!;
    expect(tokens.every((t) => t.top_logprobs.length === 0)).toBe(true);
    // A stop sequence at the start of the fourth token: the answer keeps the first three, and their scores.
    const at = tokens
      .slice(0, 3)
      .map((t) => t.token)
      .join('').length;
    const stop = fullText.slice(at, at + 3);
    expect(stop.trim().length).toBeGreaterThan(0);
    const cut = await openai.chat.completions.create({ model: MODEL, messages, max_tokens: 24, temperature: 0, seed: 3, logprobs: true, stop });
    const cutText = cut.choices[0]!.message.content!;
    expect(fullText.startsWith(cutText)).toBe(true);
    expect(cutText.length).toBeLessThanOrEqual(at);
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(logprobsProblem(cutText, cut.choices[0]!.logprobs!.content! as TokenLogprob[], 0)).toBeNull();

    const prompt = 'Once upon a time, in a city by the river,';
    const completion = await openai.completions.create({ model: MODEL, prompt, max_tokens: 16, temperature: 0, seed: 1, logprobs: 2 });
    const choice = completion.choices[0]!;
    const lp = choice.logprobs!;
    expect(lp.tokens!.join('')).toBe(choice.text);
    expect(lp.token_logprobs!.every((l) => l <= 0)).toBe(true);
    expect(lp.top_logprobs!.every((top) => Object.keys(top).length >= 1 && Object.keys(top).length <= 2)).toBe(true);
    // The greedy token is the likeliest one; offsets are where each token starts in the text.
    for (const [i, token] of lp.tokens!.entries()) {
      expect(Math.max(...Object.values(lp.top_logprobs![i]!))).toBeCloseTo(lp.token_logprobs![i]!, 5);
      expect(choice.text.slice(lp.text_offset![i]!).startsWith(token)).toBe(true);
    }
    const streamed: OpenAI.Completions.Completion[] = [];
    for await (const c of await openai.completions.create({
      model: MODEL,
      prompt,
      max_tokens: 16,
      temperature: 0,
      seed: 1,
      logprobs: 2,
      stream: true,
    }))
      streamed.push(c);
    expect(streamed.filter((c) => c.choices[0]?.logprobs).map((c) => c.choices[0]!.logprobs)).toEqual([lp]);
  }, 60_000);

  it('refuses what it cannot score with 400 naming the parameter, and creates nothing', async () => {
    const { user, openai } = await customer('refused');
    const before = await balanceUnits(stack, user);
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };
    const cases: Array<[Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming>, string, string]> = [
      [{ top_logprobs: 2 }, 'top_logprobs', 'invalid_value'],
      [{ logprobs: false, top_logprobs: 2 }, 'top_logprobs', 'invalid_value'],
      [{ logprobs: true, top_logprobs: 6 }, 'top_logprobs', 'invalid_value'],
      [{ logprobs: true, tools: [weather] }, 'logprobs', 'unsupported_parameter'],
    ];
    for (const [extra, param, code] of cases) {
      const err = (await openai.chat.completions.create({ model: MODEL, messages, ...extra }).catch((e: unknown) => e)) as InstanceType<
        typeof OpenAI.APIError
      >;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect({ param: err.param, code: err.code }).toEqual({ param, code });
    }
    const legacy = (await openai.completions.create({ model: MODEL, prompt: 'x', logprobs: 6 }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect({ status: legacy.status, param: legacy.param }).toEqual({ status: 400, param: 'logprobs' });
    expect(await balanceUnits(stack, user)).toBe(before);
    expect(await stack.db.query(`SELECT 1 FROM inference_tasks WHERE user_id = $1`, [user.id])).toEqual([]);
  });

  it('a node’s logprobs reach the client only when they are its text’s tokens, well formed; otherwise the reply fails and nobody pays', async () => {
    const node = await ScriptedNode.pair(stack, owner, { models: [SCRIPTED_MODEL] });
    const { user, openai } = await customer('node-scores');
    const text = 'Hi there';
    const good = [
      scored('Hi', -0.2, [
        ['Hi', -0.2],
        ['Hello', -1.9],
      ]),
      scored(' there', -1.5, [
        [' friend', -0.9],
        [' there', -1.5],
      ]),
    ];
    const lies: Array<[string, unknown]> = [
      ['none at all', undefined],
      [
        'tokens that are not the text',
        [
          good[0],
          scored(' world', -1.5, [
            [' friend', -0.9],
            [' world', -1.5],
          ]),
        ],
      ],
      [
        'candidates least likely first',
        [
          good[0],
          scored(' there', -1.5, [
            [' there', -1.5],
            [' friend', -0.9],
          ]),
        ],
      ],
      ['fewer candidates than asked', [scored('Hi', -0.2, [['Hi', -0.2]]), good[1]]],
      [
        'a token likelier than the likeliest',
        [
          good[0],
          scored(' there', -0.1, [
            [' friend', -0.9],
            [' there', -1.5],
          ]),
        ],
      ],
    ];
    for (const [, logprobs] of lies) {
      const before = await balanceUnits(stack, user);
      const asking = openai.chat.completions
        .create({ model: SCRIPTED_MODEL, messages: [{ role: 'user', content: 'Hi' }], logprobs: true, top_logprobs: 2, max_tokens: 8 })
        .catch((e: unknown) => e);
      const job = await node.claim();
      if (!job) throw new Error(`no job to claim; the request answered: ${String(await asking)}`);
      expect((job.params as { logprobs?: number }).logprobs).toBe(2);
      await node.send(job.job_id, [
        { type: 'token', text },
        { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 2 }, stop_reason: 'stop', ...(logprobs ? { logprobs } : {}) },
      ]);
      expect(await asking).toBeInstanceOf(OpenAI.InternalServerError);
      expect(await taskOf(stack, job.job_id)).toMatchObject({ status: 'failed', node_id: node.id, charged_units: '0' });
      expect(await balanceUnits(stack, user)).toBe(before);
    }

    // A log probability above 0 is not one: the call is refused whole (400), and the node's error ends the reply unpaid.
    {
      const before = await balanceUnits(stack, user);
      const asking = openai.chat.completions
        .create({ model: SCRIPTED_MODEL, messages: [{ role: 'user', content: 'Hi' }], logprobs: true, top_logprobs: 2, max_tokens: 8 })
        .catch((e: unknown) => e);
      const job = (await node.claim())!;
      const positive = [
        scored('Hi', 0.7, [
          ['Hi', 0.7],
          ['Hello', -1.9],
        ]),
        good[1],
      ];
      const refused = await node.send(job.job_id, [
        { type: 'token', text },
        { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 2 }, stop_reason: 'stop', logprobs: positive },
      ]);
      expect(refused.status).toBe(400);
      expect((await node.send(job.job_id, [{ type: 'error', message: 'refused' }])).status).toBe(200);
      expect(await asking).toBeInstanceOf(OpenAI.InternalServerError);
      expect(await taskOf(stack, job.job_id)).toMatchObject({ status: 'failed', charged_units: '0' });
      expect(await balanceUnits(stack, user)).toBe(before);
    }

    // Well formed and the text's: relayed as the node sent them, and the reply is paid for.
    const asking = openai.chat.completions.create({
      model: SCRIPTED_MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      logprobs: true,
      top_logprobs: 2,
      max_tokens: 8,
    });
    const job = (await node.claim())!;
    await node.send(job.job_id, [
      { type: 'token', text },
      { type: 'done', usage: { prompt_tokens: 5, completion_tokens: 2 }, stop_reason: 'stop', logprobs: good },
    ]);
    const answer = await asking;
    expect(answer.choices[0]!.message.content).toBe(text);
    expect(answer.choices[0]!.logprobs!.content).toEqual(good);
    expect(await taskOf(stack, job.job_id)).toMatchObject({ status: 'completed', node_id: node.id });
    await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
  }, 60_000);
});
