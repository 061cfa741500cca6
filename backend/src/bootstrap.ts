import { INestApplicationContext, Logger, PayloadTooLargeException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import express, { ErrorRequestHandler, Request } from 'express';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import helmet from 'helmet';
import { ApiModule, WorkerModule } from './app.module';
import { httpMetrics } from './observability/http-metrics';
import { startProcessMetrics } from './observability/metrics';
import type { AppConfig } from './config/config';
import { createLogger, httpLogging, NestPinoLogger, REQUEST_ID_HEADER, requestContext, type LoggingOptions } from './observability/logging';
import { ErrorFilter, errorAnswer } from './contract/error.filter';
import { NODE_EVENTS_BODY_MAX_BYTES, NODE_EVENTS_TOO_LARGE } from './modules/nodes/node-job-events.service';
import { loadSpec } from './contract/spec';
import { RATE_LIMIT_HEADERS } from './modules/openai/key-limits';
import { isUndescribedPath, specValidator } from './contract/validator';
import type { RawBodyRequest } from './common/raw-body';
import { NOT_FOUND_FILE, pageResolver, ROUTES_FILE, SHELL_FILE, type SiteRoutes } from './common/web-pages';

/**
 * Which file of the web build answers a page request (see common/web-pages). A build without routes.json is a plain
 * single-page app: index.html; one without app.html or 404.html answers with index.html or the shell instead.
 */
export function webPages(dist: string): (path: string) => { file: string; status: 200 | 404 } {
  const routesFile = join(dist, ROUTES_FILE);
  if (!existsSync(routesFile)) return () => ({ file: 'index.html', status: 200 });
  const resolve = pageResolver(JSON.parse(readFileSync(routesFile, 'utf8')) as SiteRoutes);
  const shell = existsSync(join(dist, SHELL_FILE)) ? SHELL_FILE : 'index.html';
  const hasNotFound = existsSync(join(dist, NOT_FOUND_FILE));
  return (path) => {
    const page = resolve(path);
    if (page.file === SHELL_FILE) return { file: shell, status: 200 };
    if (page.status === 404 && !hasNotFound) return { file: shell, status: 200 };
    return page;
  };
}

/**
 * CSP sources for the inline scripts of the web build's pages (index.html's theme script, which must run before
 * first paint): one 'sha256-…' per script. Every page is made from the same template, so the shell's are all of them.
 */
export function inlineScriptHashes(dist: string): string[] {
  const shell = [SHELL_FILE, 'index.html'].map((file) => join(dist, file)).find((file) => existsSync(file));
  if (!shell) return [];
  const scripts = readFileSync(shell, 'utf8').matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi);
  const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');
  return [...scripts].map(([, body]) => `'sha256-${sha256(body ?? '')}'`);
}

/** Everything between Express and the controllers, shared by main.ts and the tests. */
export function configureApi(app: NestExpressApplication, config: AppConfig, log: NestPinoLogger): void {
  const logger = new Logger('HTTP');
  // First of all: the request id (X-Request-Id) and the one access line per request.
  app.use(httpLogging(log.pino));
  // Request metrics only when someone can read them (METRICS_TOKEN set): otherwise they would cost for nothing.
  if (config.metricsToken) {
    startProcessMetrics('api');
    app.use(httpMetrics());
  }
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // make serve: the built web app beside /api (below).
  const dist = config.web.dist && existsSync(join(config.web.dist, 'index.html')) ? config.web.dist : undefined;
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'script-src': ["'self'", ...(dist ? inlineScriptHashes(dist) : [])],
          'img-src': ["'self'", 'data:', 'blob:'],
          'media-src': ["'self'", 'blob:'],
          // The downloads page reads latest.json from the release host first.
          'connect-src': ["'self'", 'https://releases.globnetwork.io'],
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.enableCors({ origin: config.web.origin, credentials: true, exposedHeaders: ['Retry-After', REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS] });
  // gzip for JSON and the web app; never for event streams, which must reach the client token by token, nor for
  // binary files (release files, models): they keep their Content-Length and byte ranges, so a download resumes.
  const uncompressed = /^(text\/event-stream|application\/octet-stream|application\/x-ndjson)/;
  app.use(
    compression({
      filter: (req, res) => !uncompressed.test(String(res.getHeader('Content-Type') ?? '')) && compression.filter(req, res),
    }),
  );

  // A node's job events: 256 KiB of text per call (checked once parsed) and a done event's logprobs; beyond, 413 in the
  // Error shape (parsed here, so the general parser skips it).
  const nodeEvents = express.json({ limit: NODE_EVENTS_BODY_MAX_BYTES });
  app.use('/api/nodes/jobs', (req: Request, res: express.Response, next: express.NextFunction) => {
    if (!/^\/[^/]+\/events$/.test(req.path)) return next();
    nodeEvents(req, res, (err?: unknown) => {
      next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE) : err);
    });
  });
  // An embed job's vectors (base64 float32), a verify job's recomputation (a long reply's numbers): past the general 1 MB limit.
  const nodeResults = express.json({ limit: '16mb' });
  app.use('/api/nodes/jobs', (req: Request, res: express.Response, next: express.NextFunction) =>
    /^\/[^/]+\/(embeddings|recomputation)$/.test(req.path) ? nodeResults(req, res, next) : next(),
  );
  // JSON bodies for /api and /v1 only; the raw bytes are kept for signature checks (payment webhooks).
  app.use(
    ['/api', '/v1'],
    express.json({
      limit: '1mb',
      verify: (req, _res, buf) => {
        (req as RawBodyRequest).rawBody = buf;
      },
    }),
  );
  app.use(requestContext());
  // Every /api request is checked against the spec before a controller runs.
  app.use(specValidator(loadSpec(), { validateResponses: config.validateResponses }));
  const contractErrors: ErrorRequestHandler = (err, req, res, _next) => {
    const { status, body, headers } = errorAnswer(req.path, err, logger);
    res.set(headers).status(status).json(body);
  };
  app.use(contractErrors);

  // The hand-written spec, served as docs and JSON (never generated from decorators).
  SwaggerModule.setup('api/docs', app, loadSpec(), {
    jsonDocumentUrl: 'api/openapi.json',
    customSiteTitle: 'Glob Network API',
  });

  // make serve: the built web app beside /api — prerendered pages, the app shell for other routes, 404 page.
  if (dist) {
    // Hashed build assets never change under their name: cache them for a year; everything else briefly.
    app.use('/assets', express.static(join(dist, 'assets'), { index: false, immutable: true, maxAge: '365d' }));
    // A missing asset (an old chunk after a deploy) is a plain 404, never a page.
    app.use('/assets', (_req: Request, res: express.Response) => res.status(404).type('text/plain').send('Not Found'));
    app.use(
      express.static(dist, {
        index: false,
        // /downloads is a page (downloads/index.html, below), not a redirect to /downloads/.
        redirect: false,
        maxAge: '1h',
        // Pages name the current hashed assets: always revalidated.
        setHeaders: (res, file) => {
          if (file.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
        },
      }),
    );
    const pageFor = webPages(dist);
    app.use((req: Request, res: express.Response, next: express.NextFunction) => {
      if ((req.method === 'GET' || req.method === 'HEAD') && isUndescribedPath(req.path) && !req.path.startsWith('/api/')) {
        const { file, status } = pageFor(req.path);
        res.setHeader('Cache-Control', 'no-cache');
        res.status(status).sendFile(join(dist, file));
      } else next();
    });
  }

  app.useGlobalFilters(new ErrorFilter());
  app.enableShutdownHooks();
}

/** `logs`: where the process's log lines go instead of stdout (tests read them). */
export async function createApi(config: AppConfig, logs?: LoggingOptions['destination']): Promise<NestExpressApplication> {
  const logger = new NestPinoLogger(createLogger(config, { name: 'api', destination: logs }));
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), { bodyParser: false, logger });
  configureApi(app, config, logger);
  return app;
}

export async function createWorker(config: AppConfig, logs?: LoggingOptions['destination']): Promise<INestApplicationContext> {
  const logger = new NestPinoLogger(createLogger(config, { name: 'worker', destination: logs }));
  const ctx = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger });
  ctx.enableShutdownHooks();
  return ctx;
}
