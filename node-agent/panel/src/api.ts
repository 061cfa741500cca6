import { queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { PANEL_SECRET_HEADER, PANEL_SECRET_PARAM, type PanelError, type PanelState } from '../../src/desktop/panel-api';

export type Schemas = components['schemas'];
export type NodeSelf = Schemas['NodeSelf'];
export type Allocation = Schemas['NodeAllocation'];

/** A refused or failed request, with the message the app answered. */
export class PanelRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const SECRET_KEY = 'glob-panel-secret';

/**
 * The secret the app opened this page with (`#secret=…`), kept in this origin's sessionStorage so a reload keeps
 * working, and taken off the address bar. Null when the page was opened some other way.
 */
export function panelSecret(): string | null {
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get(PANEL_SECRET_PARAM);
  if (fromUrl) {
    sessionStorage.setItem(SECRET_KEY, fromUrl);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(SECRET_KEY);
}

/** One call to the app's local API on this page's own origin, with the panel's secret in its header. */
export async function request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const secret = panelSecret();
  // Every POST is JSON (the app refuses any other body: a form of another site cannot send one), `{}` when empty.
  const json = method === 'POST' ? JSON.stringify(body ?? {}) : undefined;
  const res = await fetch(path, {
    method,
    credentials: 'omit',
    headers: {
      accept: 'application/json',
      ...(secret ? { [PANEL_SECRET_HEADER]: secret } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json,
  });
  const text = await res.text();
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`.trim();
    try {
      message = (JSON.parse(text) as PanelError).message || message;
    } catch {
      // Not the API's JSON error (a proxy's page): the status line says enough.
    }
    throw new PanelRequestError(res.status, message);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

export const panelQueries = {
  /** The app's own state, polled every 2 s: the tray and the panel show the same phase. */
  state: () =>
    queryOptions({
      queryKey: ['local', 'state'] as const,
      queryFn: () => request<PanelState>('GET', '/local/state'),
      refetchInterval: 2_000,
      retry: 1,
    }),
  /** The platform's figures for this node (through its credential), polled every 10 s once the node is paired. */
  platform: (enabled: boolean) =>
    queryOptions({
      queryKey: ['local', 'platform'] as const,
      queryFn: () => request<NodeSelf>('GET', '/local/platform'),
      refetchInterval: 10_000,
      retry: 1,
      enabled,
    }),
};
