/**
 * Typed views of the generated contract for controllers and services: inputs and outputs of an
 * operation come from the spec, never from a second schema.
 */
import type { components, operations } from '@glob/contract';

export type Schemas = components['schemas'];
export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer C } } ? C : never;

/** JSON request body of an operation. */
export type RequestBody<K extends OperationId> = operations[K] extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** JSON response body of an operation for one status. */
export type ResponseBody<K extends OperationId, S extends keyof operations[K]['responses']> = JsonContent<operations[K]['responses'][S]>;

type QueryOf<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

/**
 * Query parameters of an operation. Those named in `Defaulted` have a default in the spec, which the request validator
 * (express-openapi-validator's useDefaults, with its type coercion) has written into the query before the controller
 * runs: they are always there, so the controller never restates the default (test/contract/query-defaults.spec.ts).
 */
export type QueryParams<K extends OperationId, Defaulted extends keyof QueryOf<K> = never> = QueryOf<K> & {
  [P in Defaulted]-?: NonNullable<QueryOf<K>[P]>;
};
