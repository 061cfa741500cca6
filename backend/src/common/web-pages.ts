/**
 * Which file of the prerendered web build answers a page request — one definition for every server of that build:
 * the API (`make serve`) and `vite preview` (frontend/build/prerender.ts imports this file). No dependencies, so
 * both builds can compile it.
 */

export const SHELL_FILE = 'app.html';
export const NOT_FOUND_FILE = '404.html';
export const ROUTES_FILE = 'routes.json';

/** What the web build's routes.json lists. */
export interface SiteRoutes {
  /** Paths that have their own HTML file, '/' included. */
  prerendered: string[];
  /** Every route of the app ('/blog/$slug', '/app/auth', …). */
  routes: string[];
}

export const normalizePath = (path: string) => path.replace(/\/+$/, '') || '/';

/** The file a prerendered path lives in, relative to the build folder. */
export const pageFile = (path: string) => (path === '/' ? 'index.html' : `${path.slice(1)}/index.html`);

/** A route pattern as a regular expression: `$param` is one segment, a trailing `$` (splat) anything. */
export function routeRegExp(pattern: string): RegExp {
  const body = pattern
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment === '$' ? '.*' : segment.startsWith('$') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^/${body}/?$`);
}

/**
 * A page request's answer: its prerendered file, the app shell for any other route of the client (the web app
 * under /app, an unknown blog post…), or the 404 page with status 404 when no route matches.
 */
export function pageResolver(site: SiteRoutes): (rawPath: string) => { file: string; status: 200 | 404 } {
  const prerendered = new Set(site.prerendered);
  const routes = site.routes.filter((r) => r !== '/' && r !== '/$').map(routeRegExp);
  return (rawPath) => {
    let path = rawPath;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // as it is
    }
    path = normalizePath(path);
    if (prerendered.has(path)) return { file: pageFile(path), status: 200 };
    if (routes.some((r) => r.test(path))) return { file: SHELL_FILE, status: 200 };
    return { file: NOT_FOUND_FILE, status: 404 };
  };
}
