import { example } from '../examples';
import { http } from '../http';

/** Tag `chat`: conversations and their messages. */
export const chatHandlers = [
  http.get('/api/chat/conversations', ({ response }) => response(200).json(example('/api/chat/conversations', 'get', 200))),
  http.post('/api/chat/conversations', ({ response }) => response(201).json(example('/api/chat/conversations', 'post', 201))),
  http.get('/api/chat/conversations/{id}', ({ response }) => response(200).json(example('/api/chat/conversations/{id}', 'get', 200))),
  http.put('/api/chat/conversations/{id}', ({ response }) => response(200).json(example('/api/chat/conversations/{id}', 'put', 200))),
  http.delete('/api/chat/conversations/{id}', ({ response }) => response(204).empty()),
  http.post('/api/chat/conversations/{id}/messages', ({ response }) =>
    response(201).json(example('/api/chat/conversations/{id}/messages', 'post', 201)),
  ),
  http.get('/api/chat/conversations/{id}/export', ({ response }) => response(200).json(example('/api/chat/conversations/{id}/export', 'get', 200))),
];
