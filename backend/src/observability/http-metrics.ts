import type { Request, RequestHandler } from 'express';
import { httpRequestDuration } from './metrics';

/**
 * The route template a request matched, so the histogram's labels stay few: the spec's path (the validator saw it),
 * else Express's route, else `unmatched` for API paths nothing answers and `web` for the web app's files and pages.
 */
function routeOf(req: Request): string {
  const spec = (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
  if (spec) return spec;
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return `${req.baseUrl}${route}`;
  return req.path.startsWith('/api/') || req.path.startsWith('/v1/') || req.path === '/metrics' ? 'unmatched' : 'web';
}

/** Times every request from its first byte in to its last byte out (a stream: until it ends or the client leaves). */
export function httpMetrics(): RequestHandler {
  return (req, res, next) => {
    const end = httpRequestDuration.startTimer();
    res.once('close', () => end({ method: req.method, route: routeOf(req), status: String(res.statusCode) }));
    next();
  };
}
