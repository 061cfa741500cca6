import { example } from '../examples';
import { http } from '../http';

/** Tag `notifications`. */
export const notificationsHandlers = [
  http.get('/api/users/{id}/notifications', ({ response }) => response(200).json(example('/api/users/{id}/notifications', 'get', 200))),
  http.put('/api/notifications/{id}/read', ({ response }) => response(200).json(example('/api/notifications/{id}/read', 'put', 200))),
];
