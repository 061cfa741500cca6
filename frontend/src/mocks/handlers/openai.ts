import { example } from '../examples';
import { http } from '../http';

/** Tag `openai`: the /v1 operations answer the spec's examples (the web app itself never calls them). */
export const openaiHandlers = [
  http.get('/v1/models', ({ response }) => response(200).json(example('/v1/models', 'get', 200))),
  // The JSON answer (the example of the first documented media type; the event stream is the other).
  http.post('/v1/chat/completions', ({ response }) =>
    response(200).json(
      example('/v1/chat/completions', 'post', 200) as Extract<ReturnType<typeof example<'/v1/chat/completions', 'post', 200>>, object>,
    ),
  ),
  http.post('/v1/completions', ({ response }) =>
    response(200).json(example('/v1/completions', 'post', 200) as Extract<ReturnType<typeof example<'/v1/completions', 'post', 200>>, object>),
  ),
  http.post('/v1/embeddings', ({ response }) => response(200).json(example('/v1/embeddings', 'post', 200))),
];
