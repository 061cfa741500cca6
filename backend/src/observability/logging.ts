import type { LoggerService } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdTimeFunctions, type DestinationStream, type Level, type Logger as Pino } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppConfig } from '../config/config';

/**
 * One structured logger for every process (API and worker): one JSON object per line with `level`, `time`, `msg`,
 * `context` (the Nest logger's name) and `req_id` when the line belongs to a request — in the API, in the jobs that
 * request enqueued (the worker runs each job in its request's id), and on the API's side of a node's job. Every
 * `new Logger('Context')` of the code writes through it (NestPinoLogger). LOG_FORMAT=pretty prints for a terminal.
 */

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming X-Request-Id is kept when it is a plain token (a proxy's or a client's id); anything else is replaced. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The request id for a request that sent `header`: its own if it is sane, else a new random one. */
export function requestIdFrom(header: unknown): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Nest's level names (LOG_LEVEL) → pino's. */
const PINO_LEVELS: Record<AppConfig['logLevel'], Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };

/**
 * Whatever a line is given, these never reach the output (headers are not logged at all; this is the second lock).
 * Secrets in messages are the callers' to avoid: no token, key, password or code is ever interpolated into one.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["set-cookie"]',
  'password',
  'token',
  'access_token',
  'refresh_token',
];

export interface LoggingOptions {
  /** Which process writes (the `name` field): api or worker. */
  name: 'api' | 'worker';
  /** Where lines go instead of stdout (tests read them). */
  destination?: DestinationStream;
}

/** The process's pino logger: JSON lines on stdout, or pino-pretty's (loaded only then) with LOG_FORMAT=pretty. */
export function createLogger(config: Pick<AppConfig, 'logLevel' | 'logFormat'>, options: LoggingOptions): Pino {
  const destination = options.destination ?? (config.logFormat === 'pretty' ? prettyStream() : process.stdout);
  return pino(
    {
      name: options.name,
      level: PINO_LEVELS[config.logLevel],
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
}

function prettyStream(): DestinationStream {
  // A dev dependency, loaded only for LOG_FORMAT=pretty; synchronous, so the last lines before an exit are printed.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty.build({
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req_id,http_req_id',
    messageFormat: '{if context}[{context}] {end}{msg}{if req_id} ({req_id}){end}',
  });
}

// --- the request id of the work in hand -------------------------------------------------------------------------------

interface LogContext {
  /** The id lines are traced by: the HTTP request's, or the request a job or a node's job was enqueued by. */
  requestId: string;
  /** The HTTP request being served, when it is another one (a node's call about a job someone else asked for). */
  httpRequestId?: string;
}

const contexts = new AsyncLocalStorage<LogContext>();

/** The request id of the work in hand (an HTTP request, or a job run in its request's id), if any. */
export function currentRequestId(): string | undefined {
  return contexts.getStore()?.requestId;
}

/**
 * Runs `fn` with `requestId` as the id of its log lines (and of the jobs it enqueues): a worker runs each job so, and
 * the API logs a node's work on a job in the id of the request that asked for it. Without an id `fn` just runs.
 */
export function withRequestId<T>(requestId: string | undefined, fn: () => T): T {
  if (!requestId) return fn();
  const outer = contexts.getStore();
  const http = outer?.httpRequestId ?? outer?.requestId;
  return contexts.run({ requestId, ...(http && http !== requestId ? { httpRequestId: http } : {}) }, fn);
}

// --- HTTP -------------------------------------------------------------------------------------------------------------

/** The path of a request without its query string (which may hold an OAuth code or a state). */
const pathOf = (req: IncomingMessage): string => ((req as Request).originalUrl ?? req.url ?? '').split('?')[0]!;

/** Scrapes and probes would drown the log: no access line for these (they still get a request id). */
const QUIET_PATHS = new Set(['/metrics', '/api/health/live', '/api/health/ready']);

/**
 * The first middleware of the API: takes or makes the request id (answered in X-Request-Id) and writes one access
 * line when the response ends — method, path, status and ms; never a header, a query string or a body.
 */
export function httpLogging(logger: Pino): RequestHandler {
  const access = pinoHttp<IncomingMessage, ServerResponse>({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFrom(req.headers['x-request-id']);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customAttributeKeys: { reqId: 'req_id' },
    quietReqLogger: true,
    quietResLogger: true,
    autoLogging: { ignore: (req) => QUIET_PATHS.has(pathOf(req)) },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: (req, res, ms) => `${req.method} ${pathOf(req)} ${res.statusCode} ${ms} ms`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customSuccessObject: (req, res, val: { responseTime: number }) => accessFields(req, res, val.responseTime),
    customErrorObject: (req, res, _err, val: { responseTime: number }) => accessFields(req, res, val.responseTime),
  });
  return (req, res, next) => access(req, res, () => contexts.run({ requestId: String(req.id) }, next));
}

const accessFields = (req: IncomingMessage, res: ServerResponse, ms: number) => ({
  context: 'HTTP',
  method: req.method,
  path: pathOf(req),
  status: res.statusCode,
  ms,
});

/**
 * Sets the request's logging context again: body parsers read the body in the socket's async context, which is not
 * the request's, so the handlers after them would log without an id.
 */
export function requestContext(): RequestHandler {
  return (req: Request, _res: Response, next) => {
    if (req.id !== undefined && currentRequestId() !== String(req.id)) contexts.run({ requestId: String(req.id) }, next);
    else next();
  };
}

// --- Nest ------------------------------------------------------------------------------------------------------------

/** Nest's own start-up chatter (a line per module and route): debug, so the start of a process stays readable. */
const CHATTY = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's LoggerService over pino: `new Logger('Context').log('…')` becomes {"level":"info","context":"Context",
 * "msg":"…","req_id":…}. A message may be an object of fields (with `msg`), or an Error.
 */
export class NestPinoLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    // Nest passes the logger's context last; error() passes a stack (or undefined) before it.
    const context = params.length > 0 && typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const rest = context === undefined ? params : params.slice(0, -1);
    if (level === 'info' && context && CHATTY.has(context)) level = 'debug';
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    const c = contexts.getStore();
    if (c) {
      fields.req_id = c.requestId;
      if (c.httpRequestId) fields.http_req_id = c.httpRequestId;
    }
    let msg: string | undefined;
    if (message instanceof Error) {
      fields.err = message;
      msg = message.message;
    } else if (message && typeof message === 'object') {
      const { msg: text, ...more } = message as Record<string, unknown>;
      Object.assign(fields, more);
      msg = typeof text === 'string' ? text : undefined;
    } else msg = String(message);
    for (const p of rest) {
      if (p === undefined) continue;
      if (typeof p === 'string' && level === 'error') fields.stack = p;
      else if (p instanceof Error) fields.err = p;
      else if (p && typeof p === 'object') Object.assign(fields, p);
    }
    this.pino[level](fields, msg);
  }
}
