import { HttpResponse } from 'msw';
import { example } from '../examples';
import { http } from '../http';

/** Delay between two mocked stream events, so the mocked app streams like the real one. */
const EVENT_DELAY_MS = 60;

/** The spec's example stream, one event at a time (events are separated by a blank line). */
const eventStream = (body: string) => {
  const events = body
    .split(/\n\n+/)
    .map((e) => e.trim())
    .filter(Boolean);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const event of events) {
        await new Promise((r) => setTimeout(r, EVENT_DELAY_MS));
        controller.enqueue(encoder.encode(`${event}\n\n`));
      }
      controller.close();
    },
  });
  return new HttpResponse(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' } });
};

/** Tag `inference`: models, streamed and one-shot generation, task rewards. */
export const inferenceHandlers = [
  http.get('/api/inference/models', ({ response }) => response(200).json(example('/api/inference/models', 'get', 200))),
  http.post('/api/inference/stream/start', ({ response }) => response.untyped(eventStream(example('/api/inference/stream/start', 'post', 200)))),
  http.get('/api/inference/stream/{id}', ({ response }) => response.untyped(eventStream(example('/api/inference/stream/{id}', 'get', 200)))),
  http.post('/api/inference/stream/{id}/stop', ({ response }) => response(200).json(example('/api/inference/stream/{id}/stop', 'post', 200))),
  http.post('/api/inference/generate', ({ response }) => response(200).json(example('/api/inference/generate', 'post', 200))),
  http.post('/api/tokens/earn', ({ response }) => response(201).json(example('/api/tokens/earn', 'post', 201))),
];
