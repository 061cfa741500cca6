/**
 * The desktop app's own web server, on 127.0.0.1 only: the control panel's files (dist/panel/, built from
 * node-agent/panel) and the JSON routes of panel-api.ts. Only this user's browser, opened by the app, drives it:
 *   - a random secret per run, in the fragment of the URL the app opens (`/#secret=`): a fragment never reaches a
 *     server, a log or a Referer; the panel keeps it in its origin's sessionStorage and sends it in
 *     PANEL_SECRET_HEADER on every /local/ call (compared in constant time). No cookie: a cookie of 127.0.0.1 would
 *     also go to every other port of the machine, another user's servers included;
 *   - a custom header cannot be sent by a page of another origin without a CORS preflight, which is never granted,
 *     and an Origin, when present, must be this server's;
 *   - the Host header must name this server (127.0.0.1:PORT or localhost:PORT), so a page of another site whose name
 *     resolves here (DNS rebinding) gets nothing, not even the panel's files;
 *   - requests that change something are POST with Content-Type application/json, or DELETE.
 * The panel's files hold no secret: they are served to any request with the right Host.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import constants from '@glob/contract/constants.json';
import type { Schemas } from '../contract';
import { PANEL_SECRET_HEADER, panelUrl, type PanelError, type PanelState } from './panel-api';

/** What the routes do, given by the app (a fake in tests). Errors meant for the panel are PanelHttpError. */
export interface PanelBackend {
  state(): PanelState;
  platform(): Promise<Schemas['NodeSelf']>;
  setSharing(sharing: boolean): Promise<void>;
  setAllocation(allocation: Schemas['NodeAllocation']): Promise<void>;
  setIdleOnly(idleOnly: { enabled: boolean; minutes: number }): Promise<void>;
  setStartAtLogin(enabled: boolean): Promise<void>;
  pair(api: string | undefined): Promise<void>;
  createPool(body: Schemas['PoolCreate']): Promise<Schemas['Pool']>;
  leavePool(poolId: string): Promise<void>;
  /** Looks for a newer release now (409 when this copy does not update itself). */
  checkUpdate(): Promise<void>;
  /** Called once the 202 is sent, when an update is ready. */
  restartToUpdate(): void;
  /** Called once the 202 is sent. */
  quit(): void;
}

export class PanelHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface PanelServer {
  port: number;
  secret: string;
  /** The address that opens the panel and signs the browser in. */
  url: string;
  close(): Promise<void>;
}

export interface PanelServerOptions {
  backend: PanelBackend;
  /** The built panel (index.html and its assets). */
  panelDir: string;
  /** 0 (the default): any free port. */
  port?: number;
  secret?: string;
}

/** Request bodies are small JSON objects. */
const MAX_BODY_BYTES = 64 * 1024;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Glob Network</title>
<p>The control panel is not built: npm run build -w glob-node</p>`;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Constant time whatever the lengths: both sides hashed first. */
const sameSecret = (given: string | undefined, secret: string): boolean => given !== undefined && timingSafeEqual(digest(given), digest(secret));

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    ...headers,
  });
  res.end(text);
}

const error = (res: ServerResponse, statusCode: number, message: string): void => send(res, statusCode, { statusCode, message } satisfies PanelError);

function page(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': CSP,
  });
  res.end(html);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY_BYTES) throw new PanelHttpError(413, 'The request body is too large');
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new PanelHttpError(400, 'The request body is not valid JSON');
  }
}

// --- the bodies' shapes ------------------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bool(body: unknown, field: string): boolean {
  const v = isObject(body) ? body[field] : undefined;
  if (typeof v !== 'boolean') throw new PanelHttpError(400, `${field} must be true or false`);
  return v;
}

/** An allocation within the spec's NodeAllocation ranges (the platform checks them again). */
function allocation(body: unknown): Schemas['NodeAllocation'] {
  const ranges = constants.nodeAllocation;
  if (!isObject(body)) throw new PanelHttpError(400, 'The allocation must be an object');
  for (const [k, { minimum, maximum }] of Object.entries(ranges))
    if (!isInt(body[k], minimum, maximum)) throw new PanelHttpError(400, `${k} must be a whole number from ${minimum} to ${maximum}`);
  const extra = Object.keys(body).find((k) => !(k in ranges));
  if (extra) throw new PanelHttpError(400, `Unknown field ${extra}`);
  return {
    cpu_percent: body.cpu_percent as number,
    memory_percent: body.memory_percent as number,
    gpu_percent: body.gpu_percent as number,
    disk_gb: body.disk_gb as number,
  };
}

function poolCreate(body: unknown): Schemas['PoolCreate'] {
  if (!isObject(body)) throw new PanelHttpError(400, 'The pool must be an object');
  const { name, model_id, node_ids } = body;
  if (typeof name !== 'string' || name.length < 1 || name.length > 60) throw new PanelHttpError(400, 'name must be 1 to 60 characters');
  if (typeof model_id !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(model_id)) throw new PanelHttpError(400, 'model_id must be a catalog model id');
  if (!Array.isArray(node_ids) || node_ids.length < 2 || node_ids.length > 16 || !node_ids.every((n) => typeof n === 'string' && UUID.test(n)))
    throw new PanelHttpError(400, 'node_ids must be 2 to 16 node ids');
  return { name, model_id, node_ids: node_ids as string[] };
}

// --- the server --------------------------------------------------------------------------------------

export async function startPanelServer(o: PanelServerOptions): Promise<PanelServer> {
  const secret = o.secret ?? randomBytes(32).toString('base64url');
  let port = 0;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof PanelHttpError) error(res, err.statusCode, err.message);
      else error(res, 500, err instanceof Error ? err.message : String(err));
    });
  });

  const origins = (): string[] => [`http://127.0.0.1:${port}`, `http://localhost:${port}`];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    if (!origins().some((o) => o === `http://${host}`)) return error(res, 403, 'This server answers only at 127.0.0.1 or localhost');
    const url = new URL(req.url ?? '/', `http://${host}`);

    if (!url.pathname.startsWith('/local/')) return serveFile(url.pathname, req, res);
    const given = req.headers[PANEL_SECRET_HEADER];
    if (!sameSecret(typeof given === 'string' ? given : undefined, secret)) return error(res, 403, 'This request does not carry the panel’s secret');

    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      const origin = req.headers.origin;
      if (origin !== undefined && !origins().includes(origin)) return error(res, 403, 'Requests from another site are refused');
      if (req.headers['sec-fetch-site'] === 'cross-site') return error(res, 403, 'Requests from another site are refused');
      if (method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
        return error(res, 415, 'Send a JSON body (Content-Type: application/json)');
    }
    return route(method, url.pathname, req, res);
  }

  async function route(method: string, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const b = o.backend;
    const ok = () => send(res, 200, b.state());
    const key = `${method} ${path}`;
    switch (key) {
      case 'GET /local/state':
        return ok();
      case 'GET /local/platform':
        return send(res, 200, await b.platform());
      case 'POST /local/sharing':
        await b.setSharing(bool(await readJson(req), 'sharing'));
        return ok();
      case 'POST /local/allocation':
        await b.setAllocation(allocation(await readJson(req)));
        return ok();
      case 'POST /local/idle-only': {
        const body = await readJson(req);
        const enabled = bool(body, 'enabled');
        const minutes = isObject(body) ? body.minutes : undefined;
        if (!isInt(minutes, 1, 1440)) throw new PanelHttpError(400, 'minutes must be a whole number from 1 to 1440');
        await b.setIdleOnly({ enabled, minutes });
        return ok();
      }
      case 'POST /local/start-at-login':
        await b.setStartAtLogin(bool(await readJson(req), 'enabled'));
        return ok();
      case 'POST /local/pair': {
        const body = await readJson(req);
        const api = isObject(body) ? body.api : undefined;
        if (api !== undefined && (typeof api !== 'string' || !/^https?:\/\/[^\s]+$/.test(api)))
          throw new PanelHttpError(400, 'api must be the platform’s address, such as https://globnetwork.io');
        await b.pair(api?.replace(/\/+$/, ''));
        return ok();
      }
      case 'POST /local/pools':
        return send(res, 201, await b.createPool(poolCreate(await readJson(req))));
      case 'POST /local/update/check':
        await b.checkUpdate();
        return ok();
      case 'POST /local/update/restart':
        if (b.state().update.phase !== 'ready') throw new PanelHttpError(409, 'No update is ready to install');
        res.on('finish', () => b.restartToUpdate());
        return send(res, 202, { statusCode: 202, message: 'Returning the running jobs, then starting the new version' });
      case 'POST /local/quit':
        res.on('finish', () => b.quit());
        return send(res, 202, { statusCode: 202, message: 'Returning the running jobs, then quitting' });
    }
    const pool = /^\/local\/pools\/([^/]+)$/.exec(path);
    if (pool && method === 'DELETE') {
      const id = decodeURIComponent(pool[1]!);
      if (!UUID.test(id)) throw new PanelHttpError(400, 'Not a pool id');
      await b.leavePool(id);
      return send(res, 204, undefined);
    }
    const known = [
      '/local/state',
      '/local/platform',
      '/local/sharing',
      '/local/allocation',
      '/local/idle-only',
      '/local/start-at-login',
      '/local/pair',
      '/local/pools',
      '/local/update/check',
      '/local/update/restart',
      '/local/quit',
    ];
    if (known.includes(path) || pool) return error(res, 405, `${method} is not allowed on ${path}`);
    return error(res, 404, `No route ${path}`);
  }

  async function serveFile(pathname: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return error(res, 405, 'Only GET');
    const index = join(o.panelDir, 'index.html');
    if (
      !(await stat(index).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      return page(res, 503, NOT_BUILT);
    let rel: string;
    try {
      rel = normalize(decodeURIComponent(pathname)).replace(/^[/\\]+/, '');
    } catch {
      return error(res, 400, 'Bad path');
    }
    let file = join(o.panelDir, rel);
    if (file !== o.panelDir && !file.startsWith(o.panelDir.endsWith(sep) ? o.panelDir : o.panelDir + sep)) return error(res, 404, 'Not found');
    let found = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    // The panel routes in the browser: a path without a file extension is one of its pages.
    if (!found && !extname(rel)) {
      file = index;
      found = true;
    }
    if (!found) return error(res, 404, 'Not found');
    const body = await readFile(file);
    const type = MIME[extname(file).toLowerCase()] ?? 'application/octet-stream';
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': type,
      'content-length': String(body.length),
      // Vite names its assets by content hash; the page itself must be fresh.
      'cache-control': file === index || !rel.startsWith('assets') ? 'no-cache' : 'max-age=31536000, immutable',
      ...(type.startsWith('text/html') ? { 'content-security-policy': CSP } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    secret,
    url: panelUrl(port, secret),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
