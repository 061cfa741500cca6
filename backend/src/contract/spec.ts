import { readFileSync } from 'node:fs';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Path of the bundled spec written by `make generate` (generated/openapi.json). */
export const SPEC_PATH = require.resolve('@glob/contract/openapi.json');

let cached: OpenAPIObject | undefined;

/** The bundled, hand-written API description: the single source of truth at run time. */
export function loadSpec(): OpenAPIObject {
  cached ??= JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as OpenAPIObject;
  return cached;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface SpecOperation {
  method: HttpMethod;
  path: string;
  operationId: string;
  tag: string;
  responses: string[];
}

export function specOperations(spec: OpenAPIObject = loadSpec()): SpecOperation[] {
  const ops: SpecOperation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of HTTP_METHODS) {
      const op = (item as Record<string, { operationId?: string; tags?: string[]; responses?: object }>)[method];
      if (!op) continue;
      ops.push({
        method,
        path,
        operationId: op.operationId ?? '',
        tag: op.tags?.[0] ?? '',
        responses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return ops;
}

/** `/api/users/{id}/notifications` → `/api/users/:id/notifications` (Express/Nest syntax). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
