import { BadRequestException } from '@nestjs/common';
import Ajv from 'ajv';
import type { RequestBody } from '../../src/contract/types';
import { grammarSchema } from '../../src/modules/openai/json-schema';
import { type Envelope, EnvelopeReader, planReply, readEnvelope } from '../../src/modules/openai/tool-calls';

type ChatRequest = RequestBody<'createChatCompletion'>;

/** The native formats as tool-format.spec reads them from the families' templates. */
const QWEN = {
  format: { before: '<tool_call>\n', argsKey: 'arguments', after: '\n</tool_call>' },
  frame: { before: '<tool_call>\n', after: '\n</tool_call>' },
};
const LLAMA3 = { format: { before: '', argsKey: 'parameters', after: '' }, frame: { before: '', after: '' } };

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Tokyo'] }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    },
  },
};
const TIME = { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: {} } } };
const ask = (extra: Partial<ChatRequest>): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'Weather in Paris?' }], ...extra });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestException);
    return (err as BadRequestException).message;
  }
  throw new Error('not refused');
};

describe('JSON schemas as grammars take them', () => {
  it('keeps what a grammar enforces, drops annotations, and names the first keyword it cannot enforce', () => {
    expect(grammarSchema(WEATHER.function.parameters, 'p')).toEqual({
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Tokyo'] }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    });
    expect(refusal(() => grammarSchema({ type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]+$' } } }, 'rf'))).toBe(
      'rf.properties.zip: pattern is not supported',
    );
    expect(refusal(() => grammarSchema({ type: 'number', minimum: 0 }, 'x'))).toBe('x: minimum is not supported');
    expect(refusal(() => grammarSchema({ type: 'string', format: 'email' }, 'x'))).toBe('x.format: format "email" is not supported');
    expect(refusal(() => grammarSchema({ $ref: 'https://example.com/s.json' }, 'x'))).toBe(
      'x.$ref: a reference other than #/$defs/<name> is not supported',
    );
  });

  it('reads definitions as $defs, anyOf as oneOf, and a type list with an object as one alternative per type', () => {
    expect(
      grammarSchema(
        {
          definitions: { city: { type: 'string', maxLength: 20 } },
          type: ['object', 'null'],
          properties: { home: { $ref: '#/definitions/city' }, tag: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        },
        'x',
      ),
    ).toEqual({
      $defs: { city: { type: 'string', maxLength: 20 } },
      oneOf: [
        {
          type: 'object',
          properties: { home: { $ref: '#/$defs/city' }, tag: { oneOf: [{ type: 'string' }, { type: 'null' }] } },
          // Every property is written, and no other.
          required: ['home', 'tag'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    });
  });
});

describe('a chat completion request as turns and a reply grammar', () => {
  const ajv = new Ajv({ strict: false });

  it('plain requests stay text; response_format makes the reply JSON of its schema', () => {
    expect(planReply(ask({})).kind).toBe('text');
    expect(planReply(ask({ response_format: { type: 'json_object' } }))).toMatchObject({ kind: 'json', jsonSchema: { type: 'object' } });
    const plan = planReply(
      ask({ response_format: { type: 'json_schema', json_schema: { name: 'w', schema: WEATHER.function.parameters as never } } }),
    );
    expect(plan.kind === 'json' && ajv.validate(plan.jsonSchema, { city: 'Tokyo', days: 2 })).toBe(true);
  });

  it('tools: the model is shown them in a system turn and answers with an envelope (a call, or with auto an answer)', () => {
    const plan = planReply(
      ask({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        tools: [WEATHER, TIME],
      }),
    );
    if (plan.kind !== 'tools') throw new Error(plan.kind);
    expect(plan.turns).toHaveLength(2);
    expect(plan.turns[0]!.content).toMatch(/^Be brief\.\n\nYou can call these functions:\n- get_weather: The weather in a city\n/);
    expect(ajv.validate(plan.jsonSchema, { name: 'get_weather', arguments: { city: 'Paris', days: 3 } })).toBe(true);
    expect(ajv.validate(plan.jsonSchema, { name: 'get_time', arguments: {} })).toBe(true);
    expect(ajv.validate(plan.jsonSchema, { response: 'Sunny.' })).toBe(true);
    expect(ajv.validate(plan.jsonSchema, { name: 'get_weather', arguments: { city: 'Rome', days: 3 } })).toBe(false);

    const required = planReply(ask({ tools: [WEATHER, TIME], tool_choice: 'required' }));
    expect(required.kind === 'tools' && ajv.validate(required.jsonSchema, { response: 'Sunny.' })).toBe(false);
    const named = planReply(ask({ tools: [WEATHER, TIME], tool_choice: { type: 'function', function: { name: 'get_time' } } }));
    expect(named.kind === 'tools' && ajv.validate(named.jsonSchema, { name: 'get_weather', arguments: { city: 'Paris', days: 1 } })).toBe(false);
    expect(named.kind === 'tools' && ajv.validate(named.jsonSchema, { name: 'get_time', arguments: {} })).toBe(true);
    expect(planReply(ask({ tools: [WEATHER], tool_choice: 'none' })).kind).toBe('text');
  });

  it('earlier calls and their results are turns the model reads; a malformed conversation is refused', () => {
    const plan = planReply(
      ask({
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
        ],
      }),
    );
    expect(plan.turns.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '{"name":"get_weather","arguments":{"city":"Paris","days":1}}' },
      { role: 'user', content: 'The function get_weather returned: Sunny, 21 °C' },
    ]);
    expect(
      refusal(() =>
        planReply(
          ask({
            messages: [
              { role: 'user', content: 'x' },
              { role: 'tool', tool_call_id: 'nope', content: 'r' },
            ],
          }),
        ),
      ),
    ).toBe('messages[1].tool_call_id: must name a call of an earlier assistant message');
    expect(
      refusal(() =>
        planReply(
          ask({
            messages: [
              { role: 'user', content: 'x' },
              { role: 'assistant', content: 'y' },
            ],
          }),
        ),
      ),
    ).toBe('messages: the last message must have role user or tool');
    expect(refusal(() => planReply(ask({ tool_choice: 'required' })))).toBe('tool_choice: needs tools');
    expect(refusal(() => planReply(ask({ tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'nope' } } })))).toBe(
      'tool_choice: no tool is named nope',
    );
    expect(refusal(() => planReply(ask({ tools: [WEATHER, WEATHER] })))).toBe('tools: the name get_weather is used twice');
    expect(refusal(() => planReply(ask({ response_format: { type: 'json_object' }, stop: ['}'] })))).toBe(
      'stop: cannot be combined with tools or response_format',
    );
    expect(planReply(ask({ tools: [WEATHER], tool_choice: 'none', stop: 'x' })).kind).toBe('text');
  });
});

describe('reading a tool envelope as it is written', () => {
  /** Feeds `text` in pieces cut at every `step` characters and joins what the reader gives. */
  function stream(text: string, step: number, envelope: Envelope = { responseIsText: true }) {
    const reader = new EnvelopeReader(envelope);
    const pieces = [];
    for (let i = 0; i < text.length; i += step) pieces.push(...reader.push(text.slice(i, i + step)));
    pieces.push(...reader.end());
    const calls = pieces.filter((p) => 'call' in p);
    const args = pieces.map((p) => ('arguments' in p ? p.arguments : '')).join('');
    const content = pieces.map((p) => ('content' in p ? p.content : '')).join('');
    return { calls, args, content, firstIsCall: 'call' in (pieces[0] ?? {}) };
  }

  const call = '{ "name": "get_weather", "arguments": {"city": "Paris", "note": "a } b \\" c", "list": [{}]}\n}\n';
  const answer = '{"response": "Line one\\nLine \\u00e9 \\"two\\" }"}';

  it.each([1, 2, 3, 5, 7, 64])('a call cut every %i characters: named first, then exactly its arguments', (step) => {
    const got = stream(call, step);
    expect(got.firstIsCall).toBe(true);
    expect(got.calls).toEqual([{ call: { id: expect.stringMatching(/^call_/), name: 'get_weather' } }]);
    expect(JSON.parse(got.args)).toEqual({ city: 'Paris', note: 'a } b " c', list: [{}] });
    expect(got.args).toBe('{"city": "Paris", "note": "a } b \\" c", "list": [{}]}');
    expect(got.content).toBe('');
  });

  it.each([1, 2, 6, 64])('an answer cut every %i characters: its text decoded, escapes included', (step) => {
    expect(stream(answer, step)).toMatchObject({ calls: [], args: '', content: 'Line one\nLine é "two" }' });
  });

  it('an answer that is JSON itself (tools with a response_format) is its JSON text; a cut-short reply its raw text', () => {
    expect(stream('{"response": {"a": [1, 2]}}', 3, { responseIsText: false }).content).toBe('{"a": [1, 2]}');
    expect(readEnvelope('{"na', { responseIsText: true })).toEqual({ content: '{"na', toolCall: null });
    expect(readEnvelope(call, { responseIsText: true }).toolCall).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
  });

  describe.each([
    { family: 'Qwen 2.5', envelope: { responseIsText: true, argsKey: 'arguments', frame: QWEN.frame } },
    { family: 'Llama 3', envelope: { responseIsText: true, argsKey: 'parameters', frame: LLAMA3.frame } },
  ])('in $family’s native format', ({ envelope }) => {
    const args = '{"city": "Paris", "note": "a } b \\" c </tool_call>", "list": [{}]}';
    const native = `${envelope.frame.before}{"name": "get_weather", "${envelope.argsKey}": ${args}}${envelope.frame.after}`;

    it.each([1, 2, 3, 5, 7, 64])('a call cut every %i characters: named first, then exactly its arguments, without the frame', (step) => {
      const got = stream(native, step, envelope);
      expect(got.firstIsCall).toBe(true);
      expect(got.calls).toEqual([{ call: { id: expect.stringMatching(/^call_/), name: 'get_weather' } }]);
      expect(got.args).toBe(args);
      expect(got.content).toBe('');
    });

    it.each([1, 4, 64])('a plain-text answer cut every %i characters is its text as it comes', (step) => {
      const text = 'Paris is sunny: {"not": "a call"} </tool_call>';
      expect(stream(text, step, envelope)).toEqual({ calls: [], args: '', content: text, firstIsCall: false });
    });

    it('a call under the generic key is not the family’s: read as the text it is', () => {
      const generic = `${envelope.frame.before}{"name": "get_weather", "wrong_key": {}}${envelope.frame.after}`;
      expect(readEnvelope(generic, envelope)).toEqual({ content: generic, toolCall: null });
    });
  });
});

describe('planning a tools reply in the family’s native format', () => {
  const conversation: ChatRequest['messages'] = [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"temp": 21}' },
  ];

  it('offers the tools in a tools turn, keeps calls with their results, and frames the call grammar (an answer may be text)', () => {
    const plan = planReply(ask({ messages: conversation, tools: [WEATHER, TIME] }), QWEN.format);
    expect(plan).toMatchObject({
      kind: 'tools',
      turns: [
        {
          role: 'tools',
          content: '',
          tools: [{ name: 'get_weather', description: 'The weather in a city', parameters: WEATHER.function.parameters }, { name: 'get_time' }],
        },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ name: 'get_weather', arguments: '{"city":"Paris","days":1}', result: '{"temp": 21}' }] },
      ],
      envelope: { argsKey: 'arguments', frame: { ...QWEN.frame, or_text: true } },
    });
    expect(plan.turns).toHaveLength(3);
    const schema = (plan as unknown as { jsonSchema: { oneOf: Array<{ properties: object; required: string[] }> } }).jsonSchema;
    expect(schema.oneOf.map((b) => b.required)).toEqual([
      ['name', 'arguments'],
      ['name', 'arguments'],
    ]);
  });

  it('writes Llama 3’s calls under "parameters"; a required call allows no text', () => {
    const plan = planReply(ask({ tools: [WEATHER], tool_choice: 'required' }), LLAMA3.format);
    expect(plan).toMatchObject({ kind: 'tools', envelope: { argsKey: 'parameters', frame: LLAMA3.frame } });
    expect((plan as { envelope: Envelope }).envelope.frame).not.toHaveProperty('or_text');
    expect((plan as unknown as { jsonSchema: { required: string[] } }).jsonSchema.required).toEqual(['name', 'parameters']);
  });

  it('an answer that may be a call or JSON has no native form: the generic envelope, tool results as user turns', () => {
    const plan = planReply(ask({ messages: conversation, tools: [WEATHER], response_format: { type: 'json_object' } }), QWEN.format);
    expect(plan).toMatchObject({ kind: 'tools', envelope: { responseIsText: false } });
    expect((plan as { envelope: Envelope }).envelope.frame).toBeUndefined();
    expect(plan.turns.at(-1)).toEqual({ role: 'user', content: 'The function get_weather returned: {"temp": 21}' });
  });

  it('refuses a call no tool message answers (in either format), and a tool message answering no call', () => {
    const unanswered = ask({ messages: [...conversation.slice(0, 2), { role: 'user', content: 'And?' }], tools: [WEATHER] });
    expect(refusal(() => planReply(unanswered, QWEN.format))).toBe('messages: the tool call c1 has no tool message answering it');
    expect(refusal(() => planReply(unanswered))).toBe('messages: the tool call c1 has no tool message answering it');
    expect(
      refusal(() =>
        planReply(
          ask({
            messages: [
              { role: 'user', content: 'x' },
              { role: 'tool', tool_call_id: 'c9', content: 'y' },
            ],
            tools: [WEATHER],
          }),
          QWEN.format,
        ),
      ),
    ).toBe('messages[1].tool_call_id: must name a call of an earlier assistant message');
  });
});
