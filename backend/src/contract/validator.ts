import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Paths the spec does not describe on purpose: the docs, the spec itself, and the web app (everything but /api and /v1). */
export function isUndescribedPath(path: string): boolean {
  if (path.startsWith('/v1/') || path === '/metrics') return false;
  return !path.startsWith('/api/') || path.startsWith('/api/docs') || path === '/api/openapi.json';
}

/**
 * Every /api request is checked against the bundled spec before a controller runs: unknown routes,
 * methods, parameters, bodies and formats are refused (400/404/405/415) with the Error body.
 * With validateResponses, every JSON response is checked too (tests turn it on).
 */
export function specValidator(spec: OpenAPIObject, opts: { validateResponses: boolean }): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: spec as unknown as string,
    validateApiSpec: false, // linted by Redocly at build time
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true, removeAdditional: false, allErrors: true },
    validateResponses: opts.validateResponses ? { removeAdditional: false } : false,
    // Authentication is the passport guard's job; the spec only documents it.
    validateSecurity: false,
    ignoreUndocumented: false,
    ignorePaths: isUndescribedPath,
    validateFormats: true,
  }) as unknown as RequestHandler[];
}
