import { BadRequestException } from '@nestjs/common';
import constants from '@glob/contract/constants.json';

/** A JSON schema as the /v1 API takes it and a generator's grammar is built from it. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The JSON Schema keywords a grammar can enforce while the model writes: every generator builds one from them
 * (node-llama-cpp's createGrammarForJsonSchema on workers and nodes, llama-server's json_schema on pools). A keyword
 * outside this list (pattern, minimum, allOf…) could not be enforced, so a schema that has one is refused.
 */
const ENFORCED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  '$defs',
  'definitions',
  '$ref',
  'minLength',
  'maxLength',
  'format',
  'minProperties',
  'maxProperties',
]);
/** Keywords that say something to people and constrain nothing: dropped, except `description` (the model reads it). */
const ANNOTATIONS = new Set(['title', 'description', '$schema', '$id', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const FORMATS = new Set(['date', 'time', 'date-time']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
/** The keywords that apply to values of each type. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems'],
  string: ['minLength', 'maxLength', 'format'],
};
/**
 * What one chat completion request's JSON schemas (`response_format` and every tool's `parameters` together) may
 * hold, as the spec defines it (ChatCompletionRequest's `x-json-schema-limits`), so that building their grammar and
 * checking a reply against them stays cheap whoever sends them:
 * - `depth`: nested levels of a schema, following `$ref`s (each one level more than the schema holding it);
 * - `schemas`: schema objects in all (a definition counted once, however often it is referenced);
 * - `enum_values`: values of one `enum`; `literals`: enum values and consts in all;
 * - `literal_length`: characters of one enum value or const, as JSON; `literal_characters`: of all of them;
 * - `bound`: the largest minLength, maxLength, minItems, maxItems, minProperties or maxProperties (a grammar repeats
 *   a rule that many times; llama.cpp refuses a grammar with past about 2,000 copies); `bounds`: all of them added up.
 * Sized by measurement (2 cores, loaded): a schema at every limit at once takes a few ms of the worker's event loop
 * to build its grammar (the text is written on a thread of its own, engine/src/json-schema-gbnf.ts) and a few ms
 * more per reply for its grammar state; an enum of 50,000 values had taken seconds.
 */
interface JsonSchemaLimits {
  depth: number;
  schemas: number;
  enum_values: number;
  literals: number;
  literal_length: number;
  literal_characters: number;
  bound: number;
  bounds: number;
}

/** The spec's limits (ChatCompletionRequest's x-json-schema-limits, through the generated constants). */
export const JSON_SCHEMA_LIMITS: Readonly<JsonSchemaLimits> = Object.freeze(constants.jsonSchemaLimits);
const LIMITS = JSON_SCHEMA_LIMITS;

/**
 * What one request's schemas have used of the limits that count over all of them: one tally is passed to every
 * grammarSchema call of a request.
 */
export class SchemaTally {
  schemas = 0;
  literals = 0;
  literalCharacters = 0;
  bounds = 0;
}

/** Any JSON value, in the keywords above (an empty schema means it, but grammar builders read `{}` as null). */
const ANY_JSON: JsonSchema = {
  oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }],
};

/** The schema of `response_format: json_object`: one JSON object, any keys. */
export const ANY_OBJECT: JsonSchema = { type: 'object', additionalProperties: true };

const refused = (path: string, what: string) => new BadRequestException(`${path}: ${what} is not supported`);
/** 400 for a schema past one of the limits, naming it. */
const over = (path: string, what: string) => new BadRequestException(`${path}: ${what} (the limit)`);
const tooDeep = (path: string) => over(path, `more than ${LIMITS.depth} nested levels, a $ref counting as one more`);
const TOGETHER = "in the request's JSON schemas together";

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A request's JSON schema in the form every generator's grammar builder reads the same way, or a 400 naming the first
 * keyword no grammar could enforce or the first limit it passes (`path` is the request field it came from; `tally`
 * what the request's other schemas used). `definitions` becomes `$defs`; `anyOf` becomes `oneOf` (a grammar's
 * alternatives); a type list with an object or array type becomes one alternative per type; a schema without a type
 * but with properties or items gets it. Every `$ref` must name a definition, and no chain of them may loop.
 */
export function grammarSchema(schema: unknown, path: string, tally = new SchemaTally()): JsonSchema {
  const out = normalize(schema, path, 1, tally);
  followRefs(out, path);
  return out;
}

/**
 * How many levels a JSON value nests (a scalar 1), or Infinity once past `max`: counted without recursion, since a
 * 1 MB body can nest deeper than the stack that JSON.stringify or structuredClone would need for it.
 */
function nesting(value: unknown, max: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, level] = stack.pop()!;
    if (level > max) return Infinity;
    deepest = Math.max(deepest, level);
    if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) stack.push([child, level + 1]);
  }
  return deepest;
}

/** The length of a JSON value's text, or Infinity once past `max` (counted without recursion, as nesting()). */
function jsonLength(value: unknown, max: number): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') length += v.length > max ? Infinity : JSON.stringify(v).length;
    else if (typeof v !== 'object' || v === null) length += String(v).length;
    else {
      const children = Array.isArray(v) ? v.map((c): [string | null, unknown] => [null, c]) : Object.entries(v);
      // Brackets and commas, then each key and its colon.
      length += 1 + Math.max(1, children.length);
      for (const [key, child] of children) {
        if (length > max) return Infinity;
        if (key !== null) length += JSON.stringify(key).length + 1;
        stack.push(child);
      }
    }
    if (length > max) return Infinity;
  }
  return length;
}

/** Counts an enum's values or a const against the limits (`at` names the keyword). */
function countLiterals(values: unknown[], at: string, single: boolean, tally: SchemaTally): void {
  tally.literals += values.length;
  if (tally.literals > LIMITS.literals) throw over(at, `more than ${LIMITS.literals} enum and const values ${TOGETHER}`);
  values.forEach((v, i) => {
    const length = jsonLength(v, LIMITS.literal_length);
    if (length > LIMITS.literal_length) throw over(single ? at : `${at}[${i}]`, `longer than ${LIMITS.literal_length} characters as JSON`);
    tally.literalCharacters += length;
    if (tally.literalCharacters > LIMITS.literal_characters) {
      throw over(at, `more than ${LIMITS.literal_characters} characters of enum and const values ${TOGETHER}`);
    }
  });
}

/** A definition in scope: where it is written, and the definitions its own references see. */
interface Definition {
  def: JsonSchema;
  at: string;
  scope: Map<string, Definition>;
}

/**
 * Follows every `$ref` of a normalized schema as its grammar builders do (a name resolves in the nearest `$defs`
 * that has it): 400 for a name no definition has, a chain of references that loops (a grammar rule that would
 * recurse without end), or a path, references followed, longer than the depth limit. Each definition is walked
 * once (its height kept), so a chain shared by many references costs no more than one; the walk never goes more
 * than the depth limit deep.
 */
function followRefs(root: JsonSchema, path: string): void {
  const heights = new Map<JsonSchema, number>();
  const open: Array<{ name: string; def: JsonSchema }> = [];
  /** Levels from `node` down (1 for a schema without subschemas); `level` is its own, the root's being 1. */
  const walk = (node: JsonSchema, at: string, outer: Map<string, Definition>, level: number): number => {
    if (level > LIMITS.depth) throw tooDeep(at);
    let scope = outer;
    const defs = node.$defs as Record<string, JsonSchema> | undefined;
    if (defs) {
      scope = new Map(outer);
      for (const [name, def] of Object.entries(defs)) scope.set(name, { def, at: `${at}.$defs.${name}`, scope });
    }
    let height = 1;
    const child = (s: unknown, key: string) => {
      if (isObject(s)) height = Math.max(height, 1 + walk(s, `${at}.${key}`, scope, level + 1));
    };
    for (const [name, s] of Object.entries((node.properties as JsonSchema | undefined) ?? {})) child(s, `properties.${name}`);
    child(node.additionalProperties, 'additionalProperties');
    child(node.items, 'items');
    for (const key of ['prefixItems', 'oneOf']) ((node[key] as unknown[] | undefined) ?? []).forEach((s, i) => child(s, `${key}[${i}]`));
    if (typeof node.$ref === 'string') {
      const name = node.$ref.slice('#/$defs/'.length);
      const target = scope.get(name);
      if (!target) throw new BadRequestException(`${at}.$ref: ${node.$ref} names no definition`);
      height = Math.max(height, 1 + follow(name, target, `${at}.$ref`, level + 1));
    }
    // Definitions nobody references are held to the same rules, as if referenced where they are written.
    if (defs) for (const name of Object.keys(defs)) follow(name, scope.get(name)!, `${at}.$defs.${name}`, level + 1);
    return height;
  };
  const follow = (name: string, target: Definition, at: string, level: number): number => {
    const from = open.findIndex((o) => o.def === target.def);
    if (from >= 0) {
      const chain = [...open.slice(from).map((o) => o.name), name].map((n) => `#/$defs/${n}`).join(' → ');
      throw refused(at, `a $ref cycle (${chain})`);
    }
    const known = heights.get(target.def);
    if (known !== undefined) {
      if (level + known - 1 > LIMITS.depth) throw tooDeep(target.at);
      return known;
    }
    open.push({ name, def: target.def });
    const height = walk(target.def, target.at, target.scope, level);
    open.pop();
    heights.set(target.def, height);
    return height;
  };
  walk(root, path, new Map(), 1);
}

/**
 * An object with properties writes every one of them and no other: what node-llama-cpp's grammar does whatever the
 * schema says, so every generator writes the same shape (llama.cpp's server would otherwise add keys of its own
 * without end). What it writes is still what the schema allows.
 */
function closeObject(o: JsonSchema): JsonSchema {
  if (o.properties === undefined) return o;
  o.required = Object.keys(o.properties as JsonSchema);
  o.additionalProperties ??= false;
  return o;
}

function normalize(schema: unknown, path: string, level: number, tally: SchemaTally): JsonSchema {
  if (level > LIMITS.depth) throw tooDeep(path);
  if (++tally.schemas > LIMITS.schemas) throw over(path, `more than ${LIMITS.schemas} schemas ${TOGETHER}`);
  if (schema === true) return ANY_JSON;
  if (!isObject(schema)) throw new BadRequestException(`${path}: must be a JSON schema (an object)`);
  const out: JsonSchema = {};
  const sub = (v: unknown, at: string) => normalize(v, `${path}.${at}`, level + 1, tally);
  const subs = (v: unknown, at: string) => {
    if (!Array.isArray(v) || v.length === 0) throw new BadRequestException(`${path}.${at}: must be a non-empty array of schemas`);
    return v.map((s, i) => sub(s, `${at}[${i}]`));
  };
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) {
      // Dropped, yet a tool's schema is shown to the model as it came: too deep a value would overflow the stack there.
      if (nesting(value, LIMITS.depth) > LIMITS.depth) throw tooDeep(`${path}.${key}`);
      if (key === 'description' && typeof value === 'string') out.description = value;
      continue;
    }
    if (!ENFORCED.has(key)) throw refused(path, key);
    switch (key) {
      case 'type': {
        const types = Array.isArray(value) ? value : [value];
        const bad = types.find((t) => typeof t !== 'string' || !TYPES.has(t));
        if (types.length === 0 || bad !== undefined) throw new BadRequestException(`${path}.type: must be one or more JSON types`);
        out.type = Array.isArray(value) && value.length === 1 ? value[0] : value;
        break;
      }
      case 'properties':
      case '$defs':
      case 'definitions': {
        if (!isObject(value)) throw new BadRequestException(`${path}.${key}: must be an object of schemas`);
        out[key === 'definitions' ? '$defs' : key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, sub(s, `${key}.${k}`)]));
        break;
      }
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : sub(value, key);
        break;
      case 'items':
        out.items = sub(value, key);
        break;
      case 'prefixItems':
      case 'anyOf':
      case 'oneOf':
        out[key === 'anyOf' ? 'oneOf' : key] = subs(value, key);
        break;
      case '$ref': {
        const ref = typeof value === 'string' ? value.replace(/^#\/definitions\//, '#/$defs/') : '';
        if (!/^#\/\$defs\/[^/]+$/.test(ref)) throw refused(`${path}.$ref`, `a reference other than #/$defs/<name>`);
        out.$ref = ref;
        break;
      }
      case 'format':
        if (typeof value !== 'string' || !FORMATS.has(value)) throw refused(`${path}.format`, `format ${JSON.stringify(value)}`);
        out.format = value;
        break;
      case 'required':
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
          throw new BadRequestException(`${path}.required: must be an array of names`);
        out.required = value;
        break;
      case 'enum':
        if (!Array.isArray(value) || value.length === 0) throw new BadRequestException(`${path}.enum: must be a non-empty array`);
        if (value.length > LIMITS.enum_values) throw over(`${path}.enum`, `more than ${LIMITS.enum_values} values`);
        countLiterals(value, `${path}.enum`, false, tally);
        out.enum = value;
        break;
      case 'const':
        countLiterals([value], `${path}.const`, true, tally);
        out.const = value;
        break;
      default: {
        // minItems, maxItems, minLength, maxLength, minProperties, maxProperties
        if (!Number.isInteger(value) || (value as number) < 0) throw new BadRequestException(`${path}.${key}: must be a non-negative integer`);
        if ((value as number) > LIMITS.bound) throw over(`${path}.${key}`, `more than ${LIMITS.bound}`);
        tally.bounds += value as number;
        if (tally.bounds > LIMITS.bounds) throw over(`${path}.${key}`, `lengths and counts adding up to more than ${LIMITS.bounds} ${TOGETHER}`);
        out[key] = value;
      }
    }
  }
  if (out.type === undefined && out.enum === undefined && out.const === undefined && out.oneOf === undefined && out.$ref === undefined) {
    if (out.properties !== undefined || out.additionalProperties !== undefined) out.type = 'object';
    else if (out.items !== undefined || out.prefixItems !== undefined) out.type = 'array';
    else return { ...ANY_JSON, ...out };
  }
  if (out.type === 'object') closeObject(out);
  const types = out.type;
  if (Array.isArray(types) && out.enum === undefined && out.const === undefined && types.some((t) => t === 'object' || t === 'array')) {
    // One alternative per type, each with the keywords of its type only.
    const pick = (keys: readonly string[]) => Object.fromEntries(keys.filter((k) => out[k] !== undefined).map((k) => [k, out[k]]));
    return {
      ...pick(['description', '$defs']),
      oneOf: (types as string[]).map((t) => (t === 'object' ? closeObject : (o: JsonSchema) => o)({ type: t, ...pick(TYPE_KEYWORDS[t] ?? []) })),
    };
  }
  return out;
}
