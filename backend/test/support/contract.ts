import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { loadSpec, specOperations } from '../../src/contract/spec';

const document = loadSpec() as unknown as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, 'spec');

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function at(pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}

const validators = new Map<string, ValidateFunction>();

export function operation(operationId: string) {
  const op = specOperations().find((o) => o.operationId === operationId);
  if (!op) throw new Error(`No operation ${operationId} in the spec`);
  return op;
}

/** The response, once expectSpecResponse has checked it (for checking inline: `spec(await request, 'op').body`). */
export function spec<R extends Response>(res: R, operationId: string): R {
  expectSpecResponse(res, operationId);
  return res;
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
  let pointer = `/paths/${escape(op.path)}/${op.method}/responses/${status}`;
  const ref = (at(pointer) as { $ref?: string }).$ref;
  if (ref) pointer = ref.slice(1);
  const content = (at(pointer) as { content?: Record<string, unknown> }).content ?? {};
  if (!('application/json' in content)) {
    expect(res.text ?? '').toBe(''); // documented without a JSON body
    return;
  }
  const schemaPointer = `${pointer}/content/application~1json/schema`;
  let validate = validators.get(schemaPointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec#${schemaPointer}` });
    validators.set(schemaPointer, validate);
  }
  if (!validate(res.body)) {
    throw new Error(`${operationId} ${status} body does not match the spec: ${ajv.errorsText(validate.errors)}\n${res.text}`);
  }
}

/** Asserts that a value validates against one of the spec's component schemas (e.g. a streamed chunk). */
export function expectSpecSchema(name: string, value: unknown): void {
  const pointer = `/components/schemas/${name}`;
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec#${pointer}` });
    validators.set(pointer, validate);
  }
  if (!validate(value)) throw new Error(`${JSON.stringify(value)} does not match the spec's ${name}: ${ajv.errorsText(validate.errors)}`);
}
