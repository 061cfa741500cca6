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
