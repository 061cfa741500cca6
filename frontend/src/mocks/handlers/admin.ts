import { example } from '../examples';
import { http } from '../http';

/** Tag `admin`: opening the queue dashboard, answered with the spec's example (the mocks have no dashboard behind it). */
export const adminHandlers = [
  http.post('/api/admin/queues/session', ({ response }) => response(200).json(example('/api/admin/queues/session', 'post', 200))),
];
