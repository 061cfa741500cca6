import { example } from '../examples';
import { http } from '../http';

/** Tag `system`: health, the probes, the metrics and the live figures. */
export const systemHandlers = [
  http.get('/api/health', ({ response }) => response(200).json(example('/api/health', 'get', 200))),
  http.get('/api/health/live', ({ response }) => response(200).json(example('/api/health/live', 'get', 200))),
  http.get('/api/health/ready', ({ response }) => response(200).json(example('/api/health/ready', 'get', 200))),
  // Only the operators' Prometheus reads it; the web app never does.
  http.get('/metrics', ({ response }) => response(200).text(example('/metrics', 'get', 200))),
  http.get('/api/stats/platform', ({ response }) => response(200).json(example('/api/stats/platform', 'get', 200))),
  http.get('/api/system/stats/platform', ({ response }) => response(200).json(example('/api/system/stats/platform', 'get', 200))),
];
