/**
 * A value checked against one of the spec's schemas, for bodies the request validator does not see whole (the lines
 * of a streamed body): the same schema, read from the bundled spec, so both checks agree.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadSpec } from './spec';

const SPEC_ID = 'glob-spec';
let ajv: Ajv2020 | undefined;

/** A check of `components.schemas[name]` (compiled at its first use): null when the value matches, else the first problem in words. */
export function specSchemaCheck(name: string): (value: unknown) => string | null {
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= compile(name);
    if (validate(value)) return null;
    const e = validate.errors?.[0];
    return e ? `${e.instancePath.slice(1).replaceAll('/', '.') || 'body'} ${e.message ?? 'is not valid'}` : 'is not valid';
  };
}

function compile(name: string): ValidateFunction {
  if (!ajv) {
    // The spec's extensions (x-…), examples and discriminators (whose mappings Ajv does not take) are not JSON Schema
    // keywords: ignored, and a oneOf is checked branch by branch.
    ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema(loadSpec() as object, SPEC_ID);
  }
  const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`The spec has no schema ${name}`);
  return validate;
}
