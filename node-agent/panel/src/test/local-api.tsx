import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import spec from '@glob/contract/openapi.json';
import { PANEL_SECRET_HEADER, type PanelState } from '../../../src/desktop/panel-api';
import { panelStateFixture } from '../../../test/desktop-fixtures';
import type { NodeSelf, Schemas } from '../api';
import { App } from '../App';

/** A node's figures as the spec's example of GET /api/nodes/self gives them (the platform the app relays). */
export function platformFixture(): NodeSelf {
  const example = (
    spec as unknown as { paths: Record<string, { get: { responses: { 200: { content: { 'application/json': { example: NodeSelf } } } } } }> }
  ).paths['/api/nodes/self']!.get.responses[200].content['application/json'].example;
  return JSON.parse(JSON.stringify(example)) as NodeSelf;
}

/** A paired, sharing node (the agent's tests' fixture) with one model ready and one downloading. */
export function stateFixture(overrides: Partial<PanelState> = {}): PanelState {
  return panelStateFixture({
    idle_only: { enabled: false, minutes: 5, idle_seconds: null },
    start_at_login: false,
    models: [
      { id: 'llama-3.2-1b-instruct', state: 'ready', bytes: 807_694_464, total_bytes: 807_694_464, serving: true },
      { id: 'qwen2.5-7b-instruct', state: 'pulling', bytes: 1024 ** 3, total_bytes: 4 * 1024 ** 3, serving: false },
    ],
    ...overrides,
  });
}

/** The secret the app opened the panel with, in its URL's fragment. */
export const TEST_SECRET = 'panel-secret-for-tests';

export interface Call {
  method: string;
  path: string;
  body: unknown;
}

type Reply = { status: number; body?: unknown };
type Handler = (call: Call) => Reply | undefined;

/**
 * A stand-in for the app's local API behind `fetch`: GET /local/state and /local/platform answer the fixtures, a
 * POST that changes the state answers it changed as the app would, and every call is recorded. `handler` answers
 * first when it returns a reply.
 */
export function stubLocalApi(initial: PanelState, platform: NodeSelf | null = platformFixture(), handler?: Handler) {
  let state = initial;
  const calls: Call[] = [];
  const answer = (call: Call): Reply => {
    const custom = handler?.(call);
    if (custom) return custom;
    const body = call.body as Record<string, unknown>;
    switch (`${call.method} ${call.path}`) {
      case 'GET /local/state':
        return { status: 200, body: state };
      case 'GET /local/platform':
        return platform ? { status: 200, body: platform } : { status: 502, body: { statusCode: 502, message: 'The platform cannot be reached.' } };
      case 'POST /local/sharing':
        state = { ...state, sharing: body.sharing as boolean, phase: body.sharing ? 'sharing' : 'paused' };
        return { status: 200, body: state };
      case 'POST /local/allocation':
        state = { ...state, allocation: body as unknown as Schemas['NodeAllocation'] };
        return { status: 200, body: state };
      case 'POST /local/idle-only':
        state = { ...state, idle_only: { ...state.idle_only, enabled: body.enabled as boolean, minutes: body.minutes as number } };
        return { status: 200, body: state };
      case 'POST /local/start-at-login':
        state = { ...state, start_at_login: body.enabled as boolean };
        return { status: 200, body: state };
      case 'POST /local/update/check':
        return { status: 200, body: state };
      case 'POST /local/update/restart':
        return { status: 202 };
      case 'POST /local/quit':
        return { status: 202 };
      default:
        return { status: 404, body: { statusCode: 404, message: `No stub for ${call.method} ${call.path}` } };
    }
  };
  // Opened by the app: its URL's fragment holds the secret (a fresh tab: nothing kept from another test).
  sessionStorage.clear();
  window.history.replaceState(null, '', `/#secret=${TEST_SECRET}`);
  const fetch = jest.fn(async (input: string, init: RequestInit = {}) => {
    // No cookie of 127.0.0.1; the secret in its header on every call.
    expect(init.credentials).toBe('omit');
    expect(new Headers(init.headers).get(PANEL_SECRET_HEADER)).toBe(TEST_SECRET);
    // The app takes a POST only as JSON.
    if (init.method === 'POST') expect(new Headers(init.headers).get('content-type')).toBe('application/json');
    const call: Call = { method: init.method ?? 'GET', path: input, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined };
    calls.push(call);
    const reply = answer(call);
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    return { ok: reply.status < 400, status: reply.status, statusText: '', text: async () => text };
  });
  globalThis.fetch = fetch as unknown as typeof globalThis.fetch;
  return { calls, posts: () => calls.filter((c) => c.method !== 'GET') };
}

export function renderPanel() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const view = render(
    <QueryClientProvider client={client}>
      <App />
    </QueryClientProvider>,
  );
  return { ...view, client };
}
