/**
 * LlamaEngine generating under a JSON schema's grammar, against the generated tiny model (near-random: whatever it
 * writes is the grammar's doing). The engine runs in a child process (test/support/engine-probe.ts); no database.
 */
import { boundNumberRules } from '@glob/engine/json-grammar';
import { probeTinyModel, type ProbeLine } from '../support/engine-run';
import { ENVELOPE, schemaValidator, WEATHER } from '../support/json-schemas';

interface ResultLine extends ProbeLine {
  run: number;
  g: number;
  text: string;
  stopReason: 'stop' | 'length' | 'abort';
  completionTokens: number;
}

const NUMBERS = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' }, c: { type: 'integer' }, x: { type: 'number' }, y: { type: 'number' } },
  required: ['a', 'b', 'c', 'x', 'y'],
};
/** Nothing bounds the string: a model that does not close it runs to the token limit. */
const UNBOUNDED = { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] };

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const NUMBER_SEEDS = Array.from({ length: 40 }, (_, i) => 100 + i);
const ask = (schema: object, seed: number, maxTokens = 200) => ({
  messages: [{ role: 'user', content: 'Answer with JSON only.' }],
  sampling: { max_tokens: maxTokens, temperature: 1, top_p: 1, seed, json_schema: schema },
});
const runs = [
  ...SEEDS.map((seed) => ({ ...ask(WEATHER, seed), parallel: 2 })),
  ...SEEDS.map((seed) => ask(ENVELOPE, seed)),
  ...NUMBER_SEEDS.map((seed) => ask(NUMBERS, seed)),
  ask(UNBOUNDED, 1, 48),
];
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const WEATHER_RUNS = range(0, SEEDS.length);
const ENVELOPE_RUNS = range(SEEDS.length, SEEDS.length);
const NUMBER_RUNS = range(2 * SEEDS.length, NUMBER_SEEDS.length);
const UNBOUNDED_RUN = runs.length - 1;

const ajv = schemaValidator();

const { output, resultOf, streamed } = probeTinyModel<ResultLine>({ generate: runs });

describe('LlamaEngine under a JSON schema (child process, generated tiny model)', () => {
  it('every seed, two at once on one shared grammar: the reply is exactly JSON that matches the schema, ended by the grammar', () => {
    expect({ code: output().code, stderr: output().stderr }).toEqual({ code: 0, stderr: '' });
    const validate = ajv.compile(WEATHER);
    const replies = new Set<string>();
    for (const run of WEATHER_RUNS)
      for (const g of [0, 1]) {
        const r = resultOf(run, g);
        expect(r.stopReason).toBe('stop');
        // The grammar's closing newlines (its stop trigger) are neither streamed nor kept.
        expect(r.text).toBe(r.text.trim());
        expect(streamed(run, g)).toBe(r.text);
        const value = JSON.parse(r.text) as unknown;
        expect({ value, errors: validate(value) ? null : validate.errors }).toEqual({ value, errors: null });
        replies.add(r.text);
      }
    // Same seed, same reply; different seeds, different replies.
    for (const run of WEATHER_RUNS) expect(resultOf(run, 1).text).toBe(resultOf(run, 0).text);
    expect(replies.size).toBeGreaterThan(SEEDS.length / 2);
  });

  it('a tool-call envelope (oneOf of a call with const name and formatted arguments, or a plain answer) parses and matches', () => {
    const validate = ajv.compile(ENVELOPE);
    for (const run of ENVELOPE_RUNS) {
      const r = resultOf(run);
      expect(r.stopReason).toBe('stop');
      const value = JSON.parse(r.text) as unknown;
      expect({ value, errors: validate(value) ? null : validate.errors }).toEqual({ value, errors: null });
    }
  });

  it('integers are digits alone and exponents short: every number parses to a finite value of its type', () => {
    const validate = ajv.compile(NUMBERS);
    const numbers: string[] = [];
    for (const run of NUMBER_RUNS) {
      const r = resultOf(run);
      expect(r.stopReason).toBe('stop');
      const value = JSON.parse(r.text) as unknown;
      expect({ value, errors: validate(value) ? null : validate.errors }).toEqual({ value, errors: null });
      numbers.push(...[...r.text.matchAll(/"([abc])":\s*([-+.\deE]+)/g)].map((m) => m[2]!));
    }
    expect(numbers).toHaveLength(3 * NUMBER_SEEDS.length);
    for (const n of numbers) expect(n).toMatch(/^-?(0|[1-9]\d{0,15})$/);
  });

  it('an unbounded string may run to the token limit (stop reason length, the JSON unfinished)', () => {
    const r = resultOf(UNBOUNDED_RUN);
    expect(r.stopReason).toBe('length');
    expect(r.completionTokens).toBe(48);
    expect(r.text.startsWith('{')).toBe(true);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it("boundNumberRules rewrites node-llama-cpp's number rules only", () => {
    const exponent = '([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?';
    const gbnf = [
      'root ::= "{" integer-number-rule fractional-number-rule "}"',
      `integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ${exponent}`,
      `fractional-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ${exponent}`,
      'string-char-rule ::= [^"\\\\]',
    ].join('\n');
    expect(boundNumberRules(gbnf).split('\n')).toEqual([
      'root ::= "{" integer-number-rule fractional-number-rule "}"',
      'integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15})',
      'fractional-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?',
      'string-char-rule ::= [^"\\\\]',
    ]);
    expect(boundNumberRules('root ::= "x"')).toBe('root ::= "x"');
  });
});
