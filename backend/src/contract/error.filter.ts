import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Schemas } from './types';
import { RetryLaterException } from './errors';
import { FIELD_MESSAGES } from './messages';
import { errors } from '../observability/metrics';

type ErrorBody = Schemas['Error'];

interface ValidatorError {
  status: number;
  message: string;
  errors?: Array<{ path: string; message: string; errorCode?: string }>;
  headers?: Record<string, string>;
}

interface BodyParserError {
  status?: number;
  statusCode?: number;
  type?: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function isValidatorError(e: unknown): e is ValidatorError {
  return typeof e === 'object' && e !== null && typeof (e as ValidatorError).status === 'number' && Array.isArray((e as ValidatorError).errors);
}

function isBodyParserError(e: unknown): e is BodyParserError {
  return typeof e === 'object' && e !== null && typeof (e as BodyParserError).type === 'string' && typeof (e as BodyParserError).status === 'number';
}

/**
 * One failing field in words a person can act on: the documents' own message where they have one
 * ('Email is invalid'), else `field: what is wrong` ('subject: must be equal to one of the allowed values').
 */
function describe(d: { path: string; message: string; errorCode?: string }): string {
  const field = d.path.replace(/^\/(body|query|params|headers)\/?/, '').replace(/\//g, '.');
  const keyword = d.errorCode?.split('.')[0] ?? '';
  const product = FIELD_MESSAGES[field]?.[keyword];
  if (product) return product;
  if (/^must have required property/.test(d.message)) return `${field}: is required`;
  // The spec refuses NUL (which PostgreSQL cannot store) in every text field; some fields must not be blank either.
  if (keyword === 'pattern' && d.message.includes('u0000')) {
    return d.message.includes('\\S') ? `${field}: must not be blank or contain NUL characters` : `${field}: must not contain NUL characters`;
  }
  return field ? `${field}: ${d.message}` : d.message;
}

/** The one place that turns any failure into the spec's Error body. */
export function toErrorBody(exception: unknown, logger?: Logger): { body: ErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const res = exception.getResponse();
    let message: string;
    let error: string | undefined;
    if (typeof res === 'string') {
      message = res;
    } else {
      const r = res as { message?: string | string[]; error?: string };
      message = Array.isArray(r.message) ? r.message.join('; ') : (r.message ?? exception.message);
      error = r.error;
    }
    if (exception instanceof RetryLaterException) headers['Retry-After'] = String(exception.retryAfterSeconds);
    return { body: { statusCode: status, message, error: error ?? REASONS[status] ?? 'Error' }, headers };
  }
  if (isValidatorError(exception)) {
    const status = exception.status;
    if (status >= 500) {
      // A response that broke the contract: a server bug, never the client's.
      logger?.error(`Response does not match the spec: ${exception.message}`);
      return { body: { statusCode: 500, message: 'Internal server error', error: REASONS[500] }, headers };
    }
    Object.assign(headers, exception.headers ?? {});
    const details = (exception.errors ?? []).map((e) => ({ path: e.path, message: e.message }));
    const message =
      status === 404
        ? 'Not found'
        : status === 405
          ? 'Method not allowed'
          : status === 400 && details.length
            ? [...new Set((exception.errors ?? []).map(describe))].join('; ')
            : exception.message || 'Invalid request';
    return {
      body: { statusCode: status, message, error: REASONS[status] ?? 'Error', ...(details.length && status === 400 ? { details } : {}) },
      headers,
    };
  }
  if (isBodyParserError(exception)) {
    const status = exception.status!;
    const message =
      exception.type === 'entity.parse.failed'
        ? 'Request body is not valid JSON'
        : exception.type === 'entity.too.large'
          ? 'Request body is too large'
          : 'Invalid request body';
    return { body: { statusCode: status, message, error: REASONS[status] ?? 'Bad Request' }, headers };
  }
  logger?.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  return { body: { statusCode: 500, message: 'Internal server error', error: REASONS[500] }, headers };
}

/** The OpenAI-compatible operations answer errors in OpenAI's shape, so OpenAI clients raise their usual errors. */
export const isOpenAiPath = (path: string) => path.startsWith('/v1/');

type OpenAiError = Schemas['OpenAiError'];

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** The spec's Error body of a /v1 failure, said the way OpenAI says it (type, param and code). */
export function toOpenAiError(body: ErrorBody): OpenAiError {
  const status = body.statusCode;
  const type = OPENAI_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  let message = body.message;
  let param: string | null = null;
  let code: string | null = null;
  const field = body.details?.[0]?.path.replace(/^\/body\/?/, '').split('/')[0] || /^(\w+)[\w.[\]$]*: /.exec(message)?.[1] || null;
  if (status === 400) {
    // A parameter the API does not describe (tools, functions, logprobs…) is unsupported, not merely invalid.
    const unsupported = body.details?.find((d) => /additional properties/.test(d.message));
    const name = unsupported && /^(\w+): must NOT have additional properties/.exec(body.message)?.[1];
    param = unsupported ? unsupported.path.replace(/^\/body\/?/, '') || name || null : field;
    // A value the API describes but cannot serve (a JSON-schema keyword no grammar enforces) is unsupported too.
    code = unsupported || / is not supported$/.test(message) ? 'unsupported_parameter' : 'invalid_value';
    if (unsupported && param) message = `${param}: is not supported`;
    if (/^n: /.test(message)) [param, code, message] = ['n', 'unsupported_parameter', 'n: only one choice (n = 1) is supported'];
  } else if (status === 401) code = 'invalid_api_key';
  else if (status === 402) code = body.error === 'DAILY_LIMIT_REACHED' ? 'daily_limit_reached' : 'insufficient_quota';
  else if (status === 404) {
    const model = /^Model (.+) not found$/.exec(message)?.[1];
    if (model) [param, code, message] = ['model', 'model_not_found', `The model \`${model}\` does not exist.`];
  } else if (status === 429) code = 'rate_limit_exceeded';
  else if (status === 503 && /^Model /.test(message)) [param, code] = ['model', 'model_not_available'];
  else if (status >= 500) code = 'server_error';
  return { error: { message, type, param, code } };
}

/** Any failure as its HTTP answer: the Error body, or OpenAI's shape on the /v1 operations. */
export function errorAnswer(path: string, exception: unknown, logger?: Logger): { status: number; body: object; headers: Record<string, string> } {
  const { body, headers } = toErrorBody(exception, logger);
  const status = body.statusCode ?? HttpStatus.INTERNAL_SERVER_ERROR;
  errors.inc({ type: body.error ?? String(status) });
  return { status, body: isOpenAiPath(path) ? toOpenAiError(body) : body, headers };
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    const { status, body, headers } = errorAnswer(req.path, exception, this.logger);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  }
}
