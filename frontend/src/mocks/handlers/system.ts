import { example } from '../examples';
import { http } from '../http';

/** Tag `system`: health and the live figures. */
export const systemHandlers = [
  http.get('/api/health', ({ response }) => response(200).json(example('/api/health', 'get', 200))),
  http.get('/api/stats/platform', ({ response }) => response(200).json(example('/api/stats/platform', 'get', 200))),
  http.get('/api/system/stats/platform', ({ response }) => response(200).json(example('/api/system/stats/platform', 'get', 200))),
];
