import { HttpResponse } from 'msw';
import { example } from '../examples';
import { http } from '../http';

const eventStream = (body: string) =>
  new HttpResponse(body, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' } });

/** Tag `inference`: models, streamed and one-shot generation, task rewards. */
export const inferenceHandlers = [
  http.get('/api/inference/models', ({ response }) => response(200).json(example('/api/inference/models', 'get', 200))),
  http.post('/api/inference/stream/start', ({ response }) =>
    response.untyped(eventStream(example('/api/inference/stream/start', 'post', 200))),
  ),
  http.get('/api/inference/stream/{id}', ({ response }) =>
    response.untyped(eventStream(example('/api/inference/stream/{id}', 'get', 200))),
  ),
  http.post('/api/inference/stream/{id}/stop', ({ response }) =>
    response(200).json(example('/api/inference/stream/{id}/stop', 'post', 200)),
  ),
  http.post('/api/inference/generate', ({ response }) =>
    response(200).json(example('/api/inference/generate', 'post', 200)),
  ),
  http.post('/api/tokens/earn', ({ response }) => response(201).json(example('/api/tokens/earn', 'post', 201))),
];
