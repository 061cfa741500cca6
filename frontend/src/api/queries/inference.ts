import { queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import constants from '@glob/contract/constants.json';
import { ApiError, api, unwrap } from '../client';

export type ApiModel = components['schemas']['Model'];
export type StreamStartRequest = components['schemas']['StreamStartRequest'];
export type StreamEvent = components['schemas']['StreamEvent'];

/** The generation defaults: the spec's `InferenceParams` defaults. */
export const GENERATION_PARAMS = constants.inferenceParamDefaults as Required<components['schemas']['InferenceParams']>;

/**
 * A model a user can chat with. The catalog also lists embedding models, which answer only `POST /v1/embeddings` and
 * turn every chat request into a 400, so every model chooser for chat offers only these.
 */
export const isChatModel = (m: ApiModel) => m.kind === 'chat';

/** GET /api/inference/models: the catalog, chat and embedding models, available or not. */
export async function fetchModels(): Promise<ApiModel[]> {
  const { models } = await unwrap(api.GET('/api/inference/models'));
  return models;
}

/** The body of a 200 event stream, or an ApiError carrying the JSON error the server answered instead. */
async function streamBody(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<ReadableStream<Uint8Array>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(error, response);
  if (!data) throw new ApiError({ message: 'Empty event stream' }, response);
  return data as ReadableStream<Uint8Array>;
}

/**
 * POST /api/inference/stream/start — queues the job and answers its `text/event-stream` (read with fetch,
 * so the bearer header and the client's refresh-on-401 apply; EventSource cannot send either).
 */
export function startStream(body: StreamStartRequest, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return streamBody(api.POST('/api/inference/stream/start', { body, parseAs: 'stream', signal }));
}

/** GET /api/inference/stream/{id} — the same stream again, after `lastEventId` when given (a reconnect). */
export function resumeStream(id: string, lastEventId: number, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return streamBody(
    api.GET('/api/inference/stream/{id}', {
      params: { path: { id }, header: lastEventId > 0 ? { 'Last-Event-ID': String(lastEventId) } : {} },
      parseAs: 'stream',
      signal,
    }),
  );
}

/** POST /api/inference/stream/{id}/stop. */
export function stopStream(id: string) {
  return unwrap(api.POST('/api/inference/stream/{id}/stop', { params: { path: { id } } }));
}

export const inferenceQueries = {
  all: ['inference'] as const,
  models: () =>
    queryOptions({
      queryKey: [...inferenceQueries.all, 'models'] as const,
      queryFn: fetchModels,
      retry: false,
      staleTime: 30_000,
    }),
};
