import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { loadSpec, specOperations } from '../../src/contract/spec';

const spec = loadSpec();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec as object, 'spec');

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function operation(operationId: string) {
  const op = specOperations().find((o) => o.operationId === operationId);
  if (!op) throw new Error(`No operation ${operationId} in the spec`);
  return op;
}

/**
 * Asserts that a response is one the spec documents for this operation: its status is listed,
 * and its JSON body validates against that status's schema.
 */
export function expectSpecResponse(res: Response, operationId: string): void {
  const op = operation(operationId);
  const status = String(res.status);
  if (!op.responses.includes(status)) {
    throw new Error(`${operationId} answered ${status}, which the spec does not document (${op.responses.join(', ')}): ${res.text}`);
  }
  const pointer = `spec#/paths/${escape(op.path)}/${op.method}/responses/${status}`;
  const response = ajv.getSchema(pointer)?.schema as { content?: Record<string, unknown>; $ref?: string } | undefined;
  let resolved = response;
  if (response?.$ref) resolved = ajv.getSchema(`spec${response.$ref}`)?.schema as typeof response;
  const content = resolved?.content ?? {};
  if (!('application/json' in content)) {
    expect(res.text ?? '').toBe(''); // a documented response without a JSON body
    return;
  }
  const base = response?.$ref ? `spec${response.$ref}` : pointer;
  const validate = ajv.getSchema(`${base}/content/application~1json/schema`);
  if (!validate) throw new Error(`No schema at ${base}`);
  if (!validate(res.body)) {
    throw new Error(`${operationId} ${status} body does not match the spec: ${ajv.errorsText(validate.errors)}\n${res.text}`);
  }
}
