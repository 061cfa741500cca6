import Ajv2020 from 'ajv/dist/2020';
import OpenAI from 'openai';
import type { TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { workerStack } from '../support/openai-client';
import { apiCustomer, balanceUnits } from '../support/users';
import { taskOf } from '../support/worker';
import { JSON_SCHEMA_LIMITS as L } from '../../src/modules/openai/json-schema';

const MODEL = 'glob-tiny-chat';
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/** A root whose property references d0, each definition's property the next one: `n` definitions, the last a string. */
function chain(n: number) {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) $defs[`d${i}`] = i + 1 < n ? obj({ next: { $ref: `#/$defs/d${i + 1}` } }) : { type: 'string' };
  return { $defs, ...obj({ first: { $ref: '#/$defs/d0' } }) };
}

/**
 * One schema at every limit at once: enums filling the enum-value and character totals, lengths and counts adding up
 * to theirs (each at most the largest allowed), a chain of references as deep as allowed, then plain properties up
 * to the schema-object limit.
 */
function atEveryLimit() {
  const properties: Record<string, unknown> = {};
  const valueLength = L.literal_characters / L.literals - 2;
  for (let j = 0; j < L.literals / L.enum_values; j++) {
    properties[`e${j}`] = { enum: Array.from({ length: L.enum_values }, (_, i) => String(j * L.enum_values + i).padStart(valueLength, 'v')) };
  }
  for (let i = 0, left = L.bounds; left > 0; i++, left -= L.bound) {
    const bound = Math.min(L.bound, left);
    properties[`b${i}`] = i % 2 ? { type: 'string', maxLength: bound } : { type: 'array', items: { type: 'integer' }, maxItems: bound };
  }
  const deep = chain(Math.floor((L.depth - 1) / 2));
  properties.deep = deep.properties.first;
  // Root, definitions (two schema objects each but the last), the properties and their items so far.
  let used = 1 + (2 * Object.keys(deep.$defs).length - 1) + Object.keys(properties).length + Math.ceil(L.bounds / L.bound / 2);
  for (let i = 0; used < L.schemas; i++, used++) properties[`f${i}`] = { type: 'boolean' };
  return { $defs: deep.$defs, ...obj(properties) };
}

/**
 * Hostile JSON schemas through the official openai client, on a real worker: a schema past a limit is answered 400
 * in OpenAI's error shape (the spec's OpenAiError), naming the field and the limit, before anything is held or
 * queued; one at every limit at once is served.
 */
describe('POST /v1/chat/completions: JSON schemas are bounded', () => {
  const harness = workerStack('json-schema-limits-worker');
  const { checked } = harness;
  let stack: TestStack;
  beforeAll(() => {
    stack = harness.stack;
  });
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, fetch: checked.fetch });
  const asJsonSchema = (schema: object) => ({
    type: 'json_schema' as const,
    json_schema: { name: 'hostile', schema: schema as Record<string, unknown> },
  });

  it('a 2,000-deep $defs chain is a 400 naming the limit, in response_format and in a tool; nothing is charged or queued', async () => {
    const { user, key } = await apiCustomer(stack, 'deep-chain');
    const before = await balanceUnits(stack, user);
    const openai = client(key);
    const tasks = async () =>
      Number(((await stack.db.query(`SELECT count(*) AS n FROM inference_tasks WHERE user_id = $1`, [user.id])) as Array<{ n: string }>)[0]!.n);
    const asked = { model: MODEL, messages: [{ role: 'user' as const, content: 'JSON, please' }], max_tokens: 16 };

    const err = await openai.chat.completions.create({ ...asked, response_format: asJsonSchema(chain(2000)) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    // The body is the spec's OpenAiError; the client raises it as its BadRequestError.
    expect(err).toMatchObject({
      status: 400,
      error: {
        message: expect.stringMatching(
          new RegExp(
            `^response_format\\.json_schema\\.schema\\.\\$defs\\.d\\d+[.\\w]*: more than ${L.schemas} schemas in the request's JSON schemas together \\(the limit\\)$`,
          ),
        ),
        type: 'invalid_request_error',
        param: 'response_format',
        code: 'invalid_value',
      },
    });
    const inTool = await openai.chat.completions
      .create({ ...asked, tools: [{ type: 'function', function: { name: 'f', parameters: chain(2000) } }] })
      .catch((e: unknown) => e);
    expect(inTool).toMatchObject({
      status: 400,
      error: {
        param: 'tools',
        code: 'invalid_value',
        message: expect.stringMatching(/^tools\[0\]\.function\.parameters\.\$defs\.d\d+[.\w]*: more than \d+ schemas/),
      },
    });

    // A chain short enough to pass the schema-object limit is held to the depth limit, its references followed.
    const tooDeep = await openai.chat.completions.create({ ...asked, response_format: asJsonSchema(chain(L.depth)) }).catch((e: unknown) => e);
    expect(tooDeep).toMatchObject({
      status: 400,
      param: 'response_format',
      error: expect.objectContaining({
        message: expect.stringMatching(
          new RegExp(
            `^response_format\\.json_schema\\.schema\\.\\$defs\\.d\\d+[.\\w]*: more than ${L.depth} nested levels, a \\$ref counting as one more \\(the limit\\)$`,
          ),
        ),
      }),
    });
    const cycle = await openai.chat.completions
      .create({
        ...asked,
        response_format: asJsonSchema({ $defs: { a: obj({ b: { $ref: '#/$defs/a' } }) }, ...obj({ root: { $ref: '#/$defs/a' } }) }),
      })
      .catch((e: unknown) => e);
    expect(cycle).toMatchObject({
      status: 400,
      error: {
        message: 'response_format.json_schema.schema.$defs.a.properties.b.$ref: a $ref cycle (#/$defs/a → #/$defs/a) is not supported',
        type: 'invalid_request_error',
        param: 'response_format',
        code: 'unsupported_parameter',
      },
    });
    expect(await balanceUnits(stack, user)).toBe(before);
    expect(await tasks()).toBe(0);
  });

  it('8 enums of 50,000 values are a 400 naming the limit', async () => {
    const { key } = await apiCustomer(stack, 'big-enums');
    // 50,000 zeros: the eight fit the 1 MB body limit, so the schema's own limit answers.
    const schema = obj(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`e${i}`, { enum: new Array<number>(50_000).fill(0) }])));
    const err = await client(key)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Pick one' }], response_format: asJsonSchema(schema) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      error: {
        message: `response_format.json_schema.schema.properties.e0.enum: more than ${L.enum_values} values (the limit)`,
        type: 'invalid_request_error',
        param: 'response_format',
        code: 'invalid_value',
      },
    });
  });

  it('an annotation nested deeper than a JSON serializer can follow is a 400, not a crash', async () => {
    const { key } = await apiCustomer(stack, 'deep-annotation');
    // Written by hand: no client could serialize it, yet it is one valid JSON body well under 1 MB.
    const depth = 200_000;
    const body = `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","examples":${'['.repeat(depth)}${']'.repeat(depth)}}}}]}`;
    const res = await stack.http
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json')
      .send(body);
    expectSpecResponse(res, 'createChatCompletion');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: `tools[0].function.parameters.examples: more than ${L.depth} nested levels, a $ref counting as one more (the limit)`,
        type: 'invalid_request_error',
        param: 'tools',
        code: 'invalid_value',
      },
    });
  });

  it('a schema at every limit at once is served: its grammar builds and the reply is JSON of it, or cut by max_tokens', async () => {
    const { key } = await apiCustomer(stack, 'at-limits');
    const schema = atEveryLimit();
    const answer = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Fill the form' }],
      response_format: asJsonSchema(schema),
      max_tokens: 48,
      temperature: 1,
      seed: 3,
    });
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
    const content = answer.choices[0]!.message.content!;
    if (answer.choices[0]!.finish_reason === 'stop') expect(new Ajv2020({ strict: false }).validate(schema, JSON.parse(content))).toBe(true);
    // Its first property is one of the first enum's values, as the grammar has it (the model writes the text after `{"e0": "`).
    expect(content).toMatch(/^\{\s*"e0"\s*:\s*"v*\d/);
    const task = await taskOf<{ status: string }>(stack, answer.id.replace(/^chatcmpl-/, ''));
    expect(task?.status).not.toBe('failed');
  });
});
