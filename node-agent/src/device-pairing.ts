/**
 * Pairing without a token to copy (RFC 8628's device authorization grant): the agent asks the API for a device code,
 * shows the user code and the address where the owner confirms it, signed in (opening it in a browser when it may),
 * then polls every `interval` seconds, 5 s more after each `slow_down`, until the owner confirms or the code expires.
 * A confirmation answers a join token, which the agent registers with exactly as it does with --join-token.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenBrowser } from './browser';
import type { HostFacts } from './machine';
import type { Log } from './logging';
import { AgentError, EXIT_FAILED, EXIT_REVOKED, type Session } from './session';

/** RFC 8628: after `slow_down`, this and every later poll waits 5 s longer. */
export const SLOW_DOWN_SECONDS = 5;

export interface DevicePairingDeps {
  session: Session;
  log: Log;
  name: string;
  host: HostFacts;
  /** Opens the confirmation page; null: only print its address (--no-browser). */
  openBrowser: OpenBrowser | null;
  /** The wait between two polls (tests record it instead of waiting). */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Hears of the code while it waits for confirmation, and null once it no longer does (the desktop app shows it). */
  onCode?: (code: DeviceCodeShown | null) => void;
}

/** The code shown to the owner, as the desktop app's panel shows it. */
export interface DeviceCodeShown {
  user_code: string;
  verification_uri_complete: string;
  expires_at: string;
}

const defaultWait = (ms: number, signal: AbortSignal): Promise<void> => sleep(ms, undefined, { signal });

/** An answer other than the expected ones: the API's words, as a refused join token is reported. */
function failure(res: { response: Response; error?: unknown }): AgentError {
  const message = (res.error as { message?: string } | undefined)?.message ?? res.response.statusText;
  return new AgentError(`Pairing failed (${res.response.status}): ${message}`, res.response.status === 401 ? EXIT_REVOKED : EXIT_FAILED);
}

/** Resolves with the join token the owner's confirmation brings; throws AgentError when the code expires. */
export async function joinTokenByDeviceCode(d: DevicePairingDeps): Promise<string> {
  try {
    return await pollForJoinToken(d);
  } finally {
    d.onCode?.(null);
  }
}

async function pollForJoinToken(d: DevicePairingDeps): Promise<string> {
  const { session, log } = d;
  const wait = d.wait ?? defaultWait;
  const now = d.now ?? Date.now;
  const created = await session.conn.call((signal) => session.api.POST('/api/nodes/device-codes', { body: { name: d.name, host: d.host }, signal }), {
    signal: session.signal,
  });
  if (!created.data) throw failure(created);
  const code = created.data;
  const deadline = now() + code.expires_in * 1000;
  const expired = () =>
    new AgentError(`The pairing code ${code.user_code} expired before it was confirmed. Run glob-node again for a new code.`, EXIT_REVOKED);

  log(`To pair this machine, open ${code.verification_uri_complete} and confirm the code ${code.user_code}`, {
    user_code: code.user_code,
    verification_uri: code.verification_uri,
  });
  d.onCode?.({
    user_code: code.user_code,
    verification_uri_complete: code.verification_uri_complete,
    expires_at: new Date(deadline).toISOString(),
  });
  if (d.openBrowser) {
    try {
      d.openBrowser(code.verification_uri_complete);
    } catch {
      // No browser: the address above is enough.
    }
  }
  log(`Waiting for the confirmation (the code is valid ${Math.round(code.expires_in / 60)} min; Ctrl-C stops)…`);

  let interval = code.interval;
  for (;;) {
    await wait(interval * 1000, session.signal);
    if (now() >= deadline) throw expired();
    const res = await session.conn.call(
      (signal) => session.api.POST('/api/nodes/device-codes/token', { body: { device_code: code.device_code }, signal }),
      { signal: session.signal },
    );
    if (res.data) {
      log('Confirmed in the web app; pairing…');
      return res.data.join_token;
    }
    const reason = res.response.status === 400 ? (res.error as { error?: string } | undefined)?.error : undefined;
    if (reason === 'authorization_pending') continue;
    if (reason === 'slow_down') {
      interval += SLOW_DOWN_SECONDS;
      continue;
    }
    if (reason === 'expired_token') throw expired();
    throw failure(res);
  }
}
