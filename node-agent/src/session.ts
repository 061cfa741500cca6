/**
 * The node's session with the API: the typed client, the credential it authenticates with and the stop signal every
 * call and wait obeys; and how a run ends (its exit codes, AgentError).
 */
import { Connection, createNodeApi, type NodeApi } from './api-client';
import type { StoredCredential } from './credential-store';
import type { Log } from './logging';

/** Exit codes: 0 stopped (Ctrl-C), 1 cannot start, 2 revoked (or the join token was refused). */
export const EXIT_REVOKED = 2;
export const EXIT_FAILED = 1;

export class AgentError extends Error {
  override readonly name = 'AgentError';
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
  }
}

/** An abort (of a call or a wait); DOMException is not always an Error of this realm, so by name. */
export const isAbort = (err: unknown): boolean => (err as { name?: unknown } | null)?.name === 'AbortError';

export class Session {
  readonly conn: Connection;
  /** Aborted when the agent stops (Ctrl-C, revocation, a failure). */
  readonly stopping = new AbortController();
  api!: NodeApi;
  /** The API's address, and the fetch the client uses: for requests the typed client cannot make (a streamed body). */
  url = '';
  fetch: (request: Request) => Promise<Response> = (request) => globalThis.fetch(request);
  credential: StoredCredential | null = null;

  constructor(readonly log: Log) {
    this.conn = new Connection(log);
  }

  /** The client for the API at `url`; it sends whatever credential the session holds at each call. */
  connect(url: string, fetch?: (request: Request) => Promise<Response>): void {
    this.url = url.replace(/\/+$/, '');
    if (fetch) this.fetch = fetch;
    this.api = createNodeApi(url, () => this.credential?.credential, fetch);
  }

  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  checkRevoked(res: Response): void {
    if (res.status === 401) throw new AgentError('This node was revoked by its owner; pair it again with a new join token.', EXIT_REVOKED);
  }
}
