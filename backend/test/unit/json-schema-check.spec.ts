import type { RequestBody } from '../../src/contract/types';
import { planReply } from '../../src/modules/openai/tool-calls';
import { matchesJsonSchema } from '../../src/modules/trust/json-schema-check';

type ChatRequest = RequestBody<'createChatCompletion'>;

/** A tool whose parameters keep definitions of their own, as clients generate them (pydantic, zod-to-json-schema). */
const ROUTE = {
  type: 'function' as const,
  function: {
    name: 'route',
    parameters: {
      type: 'object',
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
      required: ['from', 'to'],
      $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] } },
    },
  },
};

describe('a reply checked against its schema (ajv)', () => {
  it('reads a tool’s own $defs where the grammar reads them: inside the call envelope, not at its root', () => {
    const plan = planReply({ model: 'm', messages: [{ role: 'user', content: 'Route?' }], tools: [ROUTE], tool_choice: 'required' } as ChatRequest);
    if (plan.kind !== 'tools') throw new Error(`planned ${plan.kind}`);
    const schema = plan.jsonSchema;
    expect(matchesJsonSchema(schema, '{"name":"route","arguments":{"from":{"x":1,"y":2},"to":{"x":3,"y":4}}}')).toBe(true);
    expect(matchesJsonSchema(schema, '{"name":"route","arguments":{"from":{"x":1},"to":{"x":3,"y":4}}}')).toBe(false);
  });

  it('resolves a name in the nearest $defs, as the grammar builders do', () => {
    const schema = {
      type: 'object',
      properties: {
        outer: { $ref: '#/$defs/v' },
        inner: { type: 'object', properties: { v: { $ref: '#/$defs/v' } }, required: ['v'], $defs: { v: { type: 'string' } } },
      },
      required: ['outer', 'inner'],
      $defs: { v: { type: 'integer' } },
    };
    expect(matchesJsonSchema(schema, '{"outer":1,"inner":{"v":"a"}}')).toBe(true);
    expect(matchesJsonSchema(schema, '{"outer":"a","inner":{"v":"a"}}')).toBe(false);
    expect(matchesJsonSchema(schema, '{"outer":1,"inner":{"v":1}}')).toBe(false);
  });
});
