import { BadRequestException } from '@nestjs/common';
import type { RequestBody } from '../../src/contract/types';
import { loadSpec } from '../../src/contract/spec';
import { grammarSchema, JSON_SCHEMA_LIMITS as L, type JsonSchema, SchemaTally } from '../../src/modules/openai/json-schema';
import { planReply } from '../../src/modules/openai/tool-calls';

type ChatRequest = RequestBody<'createChatCompletion'>;

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestException);
    return (err as BadRequestException).message;
  }
  throw new Error('not refused');
};
const accepted = (schema: unknown, tally?: SchemaTally) => expect(() => grammarSchema(schema, 'x', tally)).not.toThrow();

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });
/** Objects nested `levels` deep (the root is level 1), a string innermost. */
function nested(levels: number): JsonSchema {
  let s: JsonSchema = { type: 'string' };
  for (let i = 1; i < levels; i++) s = obj({ a: s });
  return s;
}
/** A root whose property references d0, each definition's property the next one: `n` definitions, the last a string. */
function chain(n: number): JsonSchema {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) $defs[`d${i}`] = i + 1 < n ? obj({ next: { $ref: `#/$defs/d${i + 1}` } }) : { type: 'string' };
  return { $defs, ...obj({ first: { $ref: '#/$defs/d0' } }) };
}
/** Levels of chain(n): root 1, its property 2, then two per definition (the definition and its property), the last one. */
const chainLevels = (n: number) => 2 + 2 * n - 1;
/** The longest chain within the depth limit. */
const LONGEST_CHAIN = Math.floor((L.depth - 1) / 2);
const TOGETHER = "in the request's JSON schemas together (the limit)";

describe('JSON schemas are bounded before any grammar is built from them', () => {
  it("the limits are the spec's (ChatCompletionRequest's x-json-schema-limits), and its description states each", () => {
    const request = loadSpec().components!.schemas!.ChatCompletionRequest as { description: string; 'x-json-schema-limits': object };
    expect(L).toEqual(request['x-json-schema-limits']);
    for (const value of Object.values(L)) expect(request.description).toContain(String(value));
  });

  it('nesting: at the limit accepted, one level more refused naming the limit', () => {
    accepted(nested(L.depth));
    expect(refusal(() => grammarSchema(nested(L.depth + 1), 'x'))).toBe(
      `x${'.properties.a'.repeat(L.depth)}: more than ${L.depth} nested levels, a $ref counting as one more (the limit)`,
    );
  });

  it('a chain of $refs through $defs counts as nesting: at the limit accepted, one more refused', () => {
    expect(chainLevels(LONGEST_CHAIN)).toBeLessThanOrEqual(L.depth);
    expect(chainLevels(LONGEST_CHAIN + 1)).toBeGreaterThan(L.depth);
    accepted(chain(LONGEST_CHAIN));
    expect(refusal(() => grammarSchema(chain(LONGEST_CHAIN + 1), 'x'))).toMatch(
      new RegExp(`^x\\.\\$defs\\.d${LONGEST_CHAIN}: more than ${L.depth} nested levels, a \\$ref counting as one more \\(the limit\\)$`),
    );
  });

  it('a 2,000-deep $defs chain is a 400 naming a limit, answered at once (not a crash, not a stall)', () => {
    // Its definitions pass the schema-object limit before its references are followed (that follows in document order).
    const started = performance.now();
    expect(refusal(() => grammarSchema(chain(2000), 'response_format.json_schema.schema'))).toMatch(
      new RegExp(
        `^response_format\\.json_schema\\.schema\\.\\$defs\\.d\\d+[.\\w]*: more than ${L.schemas} schemas ${TOGETHER.replace(/[()]/g, '\\$&')}$`,
      ),
    );
    // The same chain written as definitions each being nothing but a reference to the next.
    const bare = {
      $defs: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`d${i}`, i < 1999 ? { $ref: `#/$defs/d${i + 1}` } : {}])),
      $ref: '#/$defs/d0',
    };
    expect(refusal(() => grammarSchema(bare, 'x'))).toContain(`more than ${L.schemas} schemas`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('a $ref cycle is refused, naming it: a definition referencing itself, two referencing each other, a recursive tree', () => {
    expect(refusal(() => grammarSchema({ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, 'x'))).toBe(
      'x.$defs.a.$ref: a $ref cycle (#/$defs/a → #/$defs/a) is not supported',
    );
    const pair = {
      $defs: { a: obj({ b: { $ref: '#/$defs/b' } }), b: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/a' }] } },
      ...obj({ root: { $ref: '#/$defs/a' } }),
    };
    expect(refusal(() => grammarSchema(pair, 'x'))).toBe(
      'x.$defs.b.oneOf[1].$ref: a $ref cycle (#/$defs/a → #/$defs/b → #/$defs/a) is not supported',
    );
    // Even where nothing references it.
    const tree = { $defs: { node: obj({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }) }, type: 'string' };
    expect(refusal(() => grammarSchema(tree, 'x'))).toBe(
      'x.$defs.node.properties.children.items.$ref: a $ref cycle (#/$defs/node → #/$defs/node) is not supported',
    );
  });

  it('a $ref names a definition in scope (the nearest $defs that has it), or is refused', () => {
    expect(refusal(() => grammarSchema(obj({ a: { $ref: '#/$defs/missing' } }), 'x'))).toBe(
      'x.properties.a.$ref: #/$defs/missing names no definition',
    );
    accepted({ $defs: { a: { type: 'integer' } }, ...obj({ inner: { $defs: { b: { $ref: '#/$defs/a' } }, ...obj({ v: { $ref: '#/$defs/b' } }) } }) });
  });

  it('a definition referenced many times is walked once: a lattice of references at the depth limit is quick', () => {
    // Each definition references the next four times: 4^n paths through n definitions, walked one by one.
    const n = LONGEST_CHAIN;
    const $defs: Record<string, unknown> = {};
    const next = (i: number) => ({ $ref: `#/$defs/d${i + 1}` });
    for (let i = 0; i < n; i++) $defs[`d${i}`] = i + 1 < n ? obj({ a: next(i), b: next(i), c: next(i), d: next(i) }) : { type: 'string' };
    const started = performance.now();
    accepted({ $defs, ...obj({ first: { $ref: '#/$defs/d0' } }) });
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('schema objects: at the limit accepted, one more refused; a definition counts once however often it is referenced', () => {
    const props = (n: number, prefix = 'p') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { type: 'integer' }]));
    accepted(obj(props(L.schemas - 1)));
    expect(refusal(() => grammarSchema(obj(props(L.schemas)), 'x'))).toBe(
      `x.properties.p${L.schemas - 1}: more than ${L.schemas} schemas ${TOGETHER}`,
    );
    // root + the definition + its references
    const refs = Object.fromEntries(Array.from({ length: L.schemas - 2 }, (_, i) => [`r${i}`, { $ref: '#/$defs/big' }]));
    accepted({ $defs: { big: { type: 'integer' } }, ...obj(refs) });
  });

  it("the totals hold for all of a request's schemas together: response_format and every tool's parameters", () => {
    const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'integer' }]));
    const half = Math.floor(L.schemas / 2);
    const request = (extra: number): ChatRequest => ({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'r', schema: obj(props(half - 1)) } },
      tools: [
        { type: 'function', function: { name: 'f', parameters: obj(props(L.schemas - half - 1 + extra)) } },
        { type: 'function', function: { name: 'g' } },
      ],
    });
    expect(() => planReply(request(0))).not.toThrow();
    expect(refusal(() => planReply(request(1)))).toBe(
      `tools[0].function.parameters.properties.p${L.schemas - half - 1}: more than ${L.schemas} schemas ${TOGETHER}`,
    );
    // A tool no choice can call is never a grammar, so it counts for nothing.
    expect(() => planReply({ ...request(1), tool_choice: { type: 'function', function: { name: 'g' } } })).not.toThrow();
  });

  it('values of one enum: at the limit accepted, one more refused', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    accepted({ enum: values(L.enum_values) });
    expect(refusal(() => grammarSchema(obj({ e: { enum: values(L.enum_values + 1) } }), 'x'))).toBe(
      `x.properties.e.enum: more than ${L.enum_values} values (the limit)`,
    );
  });

  it('enum values and consts in all: at the limit accepted, one more refused', () => {
    const enums = L.literals / L.enum_values;
    const full = obj(
      Object.fromEntries(Array.from({ length: enums }, (_, j) => [`e${j}`, { enum: Array.from({ length: L.enum_values }, (_, i) => i) }])),
    );
    accepted(full);
    const tally = new SchemaTally();
    grammarSchema(full, 'x', tally);
    expect(refusal(() => grammarSchema({ const: 1 }, 'y', tally))).toBe(`y.const: more than ${L.literals} enum and const values ${TOGETHER}`);
  });

  it('one enum value or const: at the length limit (as JSON) accepted, one character more refused, however it nests', () => {
    const text = (chars: number) => 'v'.repeat(chars - 2); // the quotes count
    accepted({ enum: [text(L.literal_length)] });
    accepted({ const: text(L.literal_length) });
    expect(refusal(() => grammarSchema({ enum: ['a', text(L.literal_length + 1)] }, 'x'))).toBe(
      `x.enum[1]: longer than ${L.literal_length} characters as JSON (the limit)`,
    );
    expect(refusal(() => grammarSchema({ const: text(L.literal_length + 1) }, 'x'))).toBe(
      `x.const: longer than ${L.literal_length} characters as JSON (the limit)`,
    );
    accepted({ const: { k: [1, 2, 'ab'] } });
    // Nested deeper than JSON.stringify's stack would go: measured without recursion, refused by its length.
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(refusal(() => grammarSchema({ const: deep }, 'x'))).toBe(`x.const: longer than ${L.literal_length} characters as JSON (the limit)`);
  });

  it('characters of all enum values and consts: at the limit accepted, one more refused', () => {
    const each = L.literal_length;
    const count = L.literal_characters / each;
    const values = Array.from({ length: count }, (_, i) => String(i).padStart(each - 2, 'x'));
    accepted({ enum: values });
    expect(refusal(() => grammarSchema(obj({ e: { enum: values }, c: { const: 'x' } }), 'x'))).toBe(
      `x.properties.c.const: more than ${L.literal_characters} characters of enum and const values ${TOGETHER}`,
    );
  });

  it.each(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'])(
    '%s: at the limit accepted, one more refused',
    (keyword) => {
      const type = keyword.endsWith('Length') ? 'string' : keyword.endsWith('Items') ? 'array' : 'object';
      accepted({ type, [keyword]: L.bound });
      expect(refusal(() => grammarSchema({ type, [keyword]: L.bound + 1 }, 'x'))).toBe(`x.${keyword}: more than ${L.bound} (the limit)`);
    },
  );

  it('lengths and counts added up: at the limit accepted, one more refused', () => {
    const strings = (total: number) => {
      const p: Record<string, unknown> = {};
      for (let i = 0, left = total; left > 0; i++, left -= L.bound) p[`s${i}`] = { type: 'string', maxLength: Math.min(L.bound, left) };
      return obj(p);
    };
    accepted(strings(L.bounds));
    expect(refusal(() => grammarSchema({ ...strings(L.bounds), minProperties: 1 }, 'x'))).toMatch(
      new RegExp(
        `^x(\\.properties\\.s\\d+)?\\.m(ax|in)\\w+: lengths and counts adding up to more than ${L.bounds} in the request's JSON schemas together \\(the limit\\)$`,
      ),
    );
  });

  it('annotations are dropped, yet nested too deep they are refused (a tool shows its schema to the model as it came)', () => {
    accepted({ type: 'string', examples: [['a']], default: { a: { b: 1 } } });
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(refusal(() => grammarSchema({ type: 'string', examples: deep }, 'x'))).toBe(
      `x.examples: more than ${L.depth} nested levels, a $ref counting as one more (the limit)`,
    );
    const request: ChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', description: deep as string } } }],
    };
    expect(refusal(() => planReply(request))).toBe(
      `tools[0].function.parameters.description: more than ${L.depth} nested levels, a $ref counting as one more (the limit)`,
    );
  });
});
