import { randomUUID } from 'node:crypto';
import { loadSpec, specOperations } from '../../src/contract/spec';
import { expectSpecResponse } from '../support/contract';
import { newUser } from '../support/users';
import { startStack, TestStack } from '../support/app';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  examples?: unknown[];
};
type Param = {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: Schema & { format?: string; enum?: string[] };
};
type Op = {
  parameters?: Param[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }>; schema?: Schema }> };
  security?: unknown[];
};

const spec = loadSpec() as unknown as Record<string, unknown>;
const deref = <T extends { $ref?: string }>(node: T): T =>
  node.$ref
    ? deref(
        node.$ref
          .slice(2)
          .split('/')
          .reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], spec) as T,
      )
    : node;

const isString = (s: Schema) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));

/** Paths (as key lists) of the string values in `value` that the schema describes as strings. */
function stringLeaves(schema: Schema, value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const s = deref(schema);
  const variants = [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])];
  if (typeof value === 'string' && (isString(s) || variants.some((v) => isString(deref(v))))) return [at];
  if (Array.isArray(value) && s.items) return value.flatMap((v, i) => stringLeaves(s.items!, v, [...at, i]));
  if (value && typeof value === 'object') {
    const props = { ...(s.properties ?? {}), ...Object.assign({}, ...variants.map((v) => deref(v).properties ?? {})) } as Record<string, Schema>;
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (props[k] ? stringLeaves(props[k]!, v, [...at, k]) : []));
  }
  return [];
}

function withValue(body: unknown, path: Array<string | number>, value: string): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

interface Case {
  operationId: string;
  method: string;
  url: string;
  field: string;
  body?: unknown;
  query?: Record<string, string>;
  signedIn: boolean;
}

/** Every text input of the spec (JSON body fields present in the operation's example, and query strings), with a NUL in it. */
function nulCases(): Case[] {
  const cases: Case[] = [];
  for (const o of specOperations()) {
    const item = (spec.paths as Record<string, Record<string, unknown>>)[o.path]!;
    const op = item[o.method] as Op;
    const params = [...((item.parameters as Param[]) ?? []), ...(op.parameters ?? [])].map((p) => deref(p));
    let url = o.path;
    for (const p of params.filter((p) => p.in === 'path')) {
      const s = deref(p.schema ?? {}) as Param['schema'] & object;
      url = url.replace(`{${p.name}}`, String(p.example ?? s.enum?.[0] ?? (s.format === 'uuid' ? randomUUID() : 'abc123')));
    }
    const signedIn = op.security === undefined;
    const content = op.requestBody?.content['application/json'];
    const example = content?.example ?? Object.values(content?.examples ?? {})[0]?.value;
    if (content?.schema && example && typeof example === 'object') {
      for (const leaf of stringLeaves(content.schema, example)) {
        const original = leaf.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], example) as string;
        cases.push({
          operationId: o.operationId,
          method: o.method,
          url,
          field: leaf.join('.'),
          body: withValue(example, leaf, `${original}\u0000x`),
          signedIn,
        });
      }
    }
    for (const p of params.filter((p) => p.in === 'query')) {
      if (isString(deref(p.schema ?? {})) && !deref(p.schema ?? {}).enum) {
        cases.push({ operationId: o.operationId, method: o.method, url, field: p.name, query: { [p.name]: 'a\u0000b' }, signedIn });
      }
    }
  }
  return cases;
}

describe('contract: no text input takes a NUL (PostgreSQL cannot store one)', () => {
  let stack: TestStack;
  let auth: Record<string, string>;
  const cases = nulCases();

  beforeAll(async () => {
    stack = await startStack();
    auth = (await newUser(stack, 'nul')).auth;
  });
  afterAll(() => stack.close());

  it('finds the text inputs it must check', () => {
    const covered = new Set(cases.map((c) => `${c.operationId}:${c.field}`));
    for (const expected of [
      'createConversation:title',
      'addMessage:message.content',
      'startStream:prompt',
      'submitContact:message',
      'transferTokens:note',
      'register:username',
      'listConversations:search',
    ]) {
      expect([expected, covered.has(expected)]).toEqual([expected, true]);
    }
  });

  it.each(cases.map((c) => [`${c.operationId} ${c.field}`, c] as const))('%s with a NUL → 400 in the spec shape, never 500', async (_name, c) => {
    let req = (stack.http as unknown as Record<string, (url: string) => import('supertest').Test>)[c.method]!(c.url).set(
      'X-Forwarded-For',
      `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    );
    if (c.signedIn) req = req.set(auth);
    if (c.query) req = req.query(c.query);
    if (c.body !== undefined) req = req.send(c.body as object);
    const res = await req;
    expect([c.field, res.status]).toEqual([c.field, 400]);
    expectSpecResponse(res, c.operationId);
    // The /v1 operations answer in OpenAI's error shape, the others in the Error shape.
    expect(res.body.message ?? res.body.error?.message).toMatch(/NUL|is required|is invalid|must /i);
  });
});
