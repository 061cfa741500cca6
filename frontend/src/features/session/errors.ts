import { ApiError } from '../../api/errors';

/**
 * What to show for a failed call: the server's own message when it sent one (preferred when present), else
 * `fallback`; a request that never got an answer (offline, DNS, CORS) gets `network`.
 */
export function failureText(err: unknown, fallback: string, network: string = fallback): string {
  if (err instanceof ApiError) return err.serverText ?? fallback;
  return network;
}
