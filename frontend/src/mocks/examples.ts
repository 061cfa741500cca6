import spec from '@glob/contract/openapi.json';
import type { paths } from '@glob/contract';

/**
 * Fixtures straight from the bundled spec: every response of every operation carries an `example`
 * (or named `examples`), so the mocks answer exactly what the contract documents and stay in sync with it.
 */
type Json = Record<string, unknown>;
type MethodOf<P extends keyof paths> = Exclude<
  { [M in keyof paths[P]]: paths[P][M] extends undefined | never ? never : M }[keyof paths[P]],
  'parameters'
> &
  string;
type ResponsesOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R } ? R : never;
export type ExampleBody<P extends keyof paths, M extends keyof paths[P], S extends number> = S extends keyof ResponsesOf<P, M>
  ? ResponsesOf<P, M>[S] extends { content: infer C }
    ? C[keyof C]
    : never
  : never;

const document = spec as unknown as { paths: Record<string, Record<string, Json>>; components: Json };

function resolve(node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  let target: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[part];
  return resolve(target as Json);
}

/** The example of one documented response (the first named example when there are several). */
export function example<P extends keyof paths, M extends MethodOf<P>, S extends number>(path: P, method: M, status: S): ExampleBody<P, M, S> {
  const operation = document.paths[path]?.[method];
  const responses = operation?.responses as Record<string, Json> | undefined;
  const response = responses?.[String(status)];
  if (!response) throw new Error(`The spec documents no ${status} response for ${method.toUpperCase()} ${path}`);
  const content = resolve(response).content as Record<string, Json> | undefined;
  const media = content && Object.values(content)[0];
  if (!media) throw new Error(`${method.toUpperCase()} ${path} ${status} has no content`);
  if ('example' in media) return structuredClone(media.example) as ExampleBody<P, M, S>;
  const named = media.examples as Record<string, { value: unknown }> | undefined;
  const first = named && Object.values(named)[0];
  if (!first) throw new Error(`${method.toUpperCase()} ${path} ${status} has no example`);
  return structuredClone(first.value) as ExampleBody<P, M, S>;
}

export interface SpecOperation {
  method: string;
  path: string;
  operationId: string;
  tag: string;
  statuses: number[];
}

/** Every operation of the spec, for the handler coverage test. */
export function specOperations(): SpecOperation[] {
  const ops: SpecOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) continue;
      ops.push({
        method,
        path,
        operationId: String(op.operationId),
        tag: String((op.tags as string[] | undefined)?.[0] ?? ''),
        statuses: Object.keys(op.responses as Json).map(Number),
      });
    }
  }
  return ops;
}
