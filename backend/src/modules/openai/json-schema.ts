import { BadRequestException } from '@nestjs/common';

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
/** How deep a schema may nest: deeper ones are refused rather than turned into a grammar that size. */
const MAX_DEPTH = 32;

/** Any JSON value, in the keywords above (an empty schema means it, but grammar builders read `{}` as null). */
const ANY_JSON: JsonSchema = {
  oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }],
};

/** The schema of `response_format: json_object`: one JSON object, any keys. */
export const ANY_OBJECT: JsonSchema = { type: 'object', additionalProperties: true };

const refused = (path: string, what: string) => new BadRequestException(`${path}: ${what} is not supported`);

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A request's JSON schema in the form every generator's grammar builder reads the same way, or a 400 naming the first
 * keyword no grammar could enforce (`path` is the request field it came from). `definitions` becomes `$defs`;
 * `anyOf` becomes `oneOf` (a grammar's alternatives); a type list with an object or array type becomes one
 * alternative per type; a schema without a type but with properties or items gets it.
 */
export function grammarSchema(schema: unknown, path: string): JsonSchema {
  return normalize(schema, path, 0);
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

function normalize(schema: unknown, path: string, depth: number): JsonSchema {
  if (depth > MAX_DEPTH) throw refused(path, `nesting deeper than ${MAX_DEPTH} levels`);
  if (schema === true) return ANY_JSON;
  if (!isObject(schema)) throw new BadRequestException(`${path}: must be a JSON schema (an object)`);
  const out: JsonSchema = {};
  const sub = (v: unknown, at: string) => normalize(v, `${path}.${at}`, depth + 1);
  const subs = (v: unknown, at: string) => {
    if (!Array.isArray(v) || v.length === 0) throw new BadRequestException(`${path}.${at}: must be a non-empty array of schemas`);
    return v.map((s, i) => sub(s, `${at}[${i}]`));
  };
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) {
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
        out.enum = value;
        break;
      case 'const':
        out.const = value;
        break;
      default: {
        // minItems, maxItems, minLength, maxLength, minProperties, maxProperties
        if (!Number.isInteger(value) || (value as number) < 0) throw new BadRequestException(`${path}.${key}: must be a non-negative integer`);
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
