import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** Compiled schemas kept, by their JSON text: compiling costs far more than checking a reply. */
const CACHE = 256;

// JSON Schema 2020-12 (prefixItems, $defs). Formats are checked for their shape only: the generators' grammars write
// any day 01-31 in any month.
const ajv = new Ajv2020({ strict: false });
addFormats(ajv, { mode: 'fast' });
const compiled = new Map<string, ValidateFunction | null>();

/** The validator of a schema (null when ajv cannot compile it), compiled once per schema text. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      // A schema's own $id or $schema would tie it to ajv's registry of schemas; the grammar never reads them.
      const { $id: _id, $schema: _dialect, ...own } = schema;
      validate = ajv.compile(rootedDefs(own));
    } catch {
      validate = null;
    }
    if (compiled.size >= CACHE) {
      const [oldestKey, oldest] = compiled.entries().next().value!;
      compiled.delete(oldestKey);
      if (oldest) ajv.removeSchema(oldest.schema as object);
    }
  } else compiled.delete(key);
  compiled.set(key, validate);
  return validate;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Keywords whose value is a map of schemas by name, not a schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/** Keywords whose value is data, not a schema: never searched for references. */
const DATA = new Set(['enum', 'const', 'default', 'examples']);

/**
 * The schema with every `$defs`, wherever it sits, lifted to the root under a name of its own, and each `$ref` pointed
 * at it. The grammar builders resolve `#/$defs/x` in the nearest `$defs` (a tool's parameters keep their own under the
 * call envelope); ajv resolves it against the root, so without this a tool or a response format with definitions
 * would never match its own reply.
 */
function rootedDefs(schema: Record<string, unknown>): Record<string, unknown> {
  const lifted: Record<string, unknown> = {};
  let next = 0;
  const visit = (node: Record<string, unknown>, outer: Map<string, string>): Record<string, unknown> => {
    let scope = outer;
    if (isObject(node.$defs)) {
      scope = new Map(outer);
      for (const name of Object.keys(node.$defs)) scope.set(name, `d${next++}_${name}`);
      for (const [name, def] of Object.entries(node.$defs)) if (isObject(def)) lifted[scope.get(name)!] = visit(def, scope);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$defs') continue;
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
        const name = scope.get(value.slice('#/$defs/'.length));
        out.$ref = name ? `#/$defs/${name}` : value;
      } else if (DATA.has(key)) out[key] = value;
      else if (SCHEMA_MAPS.has(key) && isObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? visit(v, scope) : v]));
      else if (Array.isArray(value)) out[key] = value.map((v) => (isObject(v) ? visit(v, scope) : v));
      else out[key] = isObject(value) ? visit(value, scope) : value;
    }
    return out;
  };
  const top = visit(schema, new Map());
  return Object.keys(lifted).length ? { ...top, $defs: lifted } : top;
}

/** Whether `text` is JSON whose value matches `schema`; a schema ajv cannot compile matches nothing. */
export function matchesJsonSchema(schema: Record<string, unknown>, text: string): boolean {
  const validate = validatorFor(schema);
  if (!validate) return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return validate(value);
}

/** Schema keywords that bound what a string may hold: under them the grammar allows fewer tokens inside a string. */
const STRING_BOUNDS = new Set(['enum', 'const', 'pattern', 'format', 'maxLength', 'minLength']);

/**
 * Whether every string the schema allows is free (no keyword anywhere bounds one): then inside a string its grammar
 * allows any token without a quote, a backslash or a control character, and verification judges string contents.
 */
export function freeStrings(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(freeStrings);
  if (schema === null || typeof schema !== 'object') return true;
  return Object.entries(schema).every(([key, value]) => !STRING_BOUNDS.has(key) && freeStrings(value));
}
