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
      validate = ajv.compile(own);
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
