/** The API's one error body (spec `Error`), read defensively: any JSON may come back from a proxy. */
interface ErrorLike {
  message?: unknown;
  error?: unknown;
}

/** The server's own words for a failure: its `message`, else its `error`, else null. */
export function serverErrorText(body: unknown): string | null {
  if (body && typeof body === 'object') {
    const { message, error } = body as ErrorLike;
    if (typeof message === 'string' && message.trim()) return message;
    if (typeof error === 'string' && error.trim()) return error;
  }
  return null;
}

/** The server's message or error field, else 'HTTP {status}: {statusText}'. */
export function errorMessage(body: unknown, response: Pick<Response, 'status' | 'statusText'>): string {
  return serverErrorText(body) ?? `HTTP ${response.status}: ${response.statusText}`;
}

/** A failed API call; `message` follows the error rule below, `serverText` is the server's own text if any. */
export class ApiError extends Error {
  readonly status: number;
  readonly serverText: string | null;
  readonly body: unknown;

  constructor(body: unknown, response: Pick<Response, 'status' | 'statusText'>) {
    super(errorMessage(body, response));
    this.name = 'ApiError';
    this.status = response.status;
    this.serverText = serverErrorText(body);
    this.body = body;
  }
}

/**
 * The one rule for what a failed call shows: the server's own text when it sent one, else `fallback` (without one,
 * the HTTP status line); a request that never got an answer (offline, DNS, CORS) shows `network`.
 */
export function failureText(err: unknown, fallback?: string, network: string | undefined = fallback): string {
  if (err instanceof ApiError) return err.serverText ?? fallback ?? err.message;
  return network ?? (err instanceof Error ? err.message : String(err));
}

/**
 * A request dropped on purpose (its query cancelled, or the session ended at logout) rather than failed: nothing to
 * log or show.
 */
export function wasAborted(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}
