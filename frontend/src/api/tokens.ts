import type { components } from '@glob/contract';

/**
 * Where the signed-in session lives (the access token, the refresh token and the user are held in
 * local storage under two name sets; both are written, either is read). Other tabs see changes through the
 * `storage` event, so signing out in one tab signs out the others.
 */
export interface StoredTokens {
  access_token: string;
  refresh_token: string | null;
}

/** The user as the web app keeps it (spec `User`). */
export type StoredUser = components['schemas']['User'];

const NAME_SETS = [
  { access: 'access_token', refresh: 'refresh_token', user: 'user' },
  { access: 'glob_access_token', refresh: 'glob_refresh_token', user: 'glob_user' },
] as const;

type Listener = (tokens: StoredTokens | null) => void;
const listeners = new Set<Listener>();

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled (private mode, sandboxed frame)
  }
}

function notify(): void {
  const tokens = tokenStore.get();
  listeners.forEach((l) => l(tokens));
}

const sessionKeys = new Set<string>(NAME_SETS.flatMap((n) => Object.values(n)));
if (typeof window !== 'undefined') {
  // Another tab signed in or out: the same keys changed there.
  window.addEventListener('storage', (event) => {
    if (event.key === null || sessionKeys.has(event.key)) notify();
  });
}

export const tokenStore = {
  get(): StoredTokens | null {
    const s = storage();
    if (!s) return null;
    for (const names of NAME_SETS) {
      const access = s.getItem(names.access);
      if (access) return { access_token: access, refresh_token: s.getItem(names.refresh) };
    }
    return null;
  },
  set(tokens: StoredTokens): void {
    const s = storage();
    if (s) {
      for (const names of NAME_SETS) {
        s.setItem(names.access, tokens.access_token);
        if (tokens.refresh_token) s.setItem(names.refresh, tokens.refresh_token);
        else s.removeItem(names.refresh);
      }
    }
    notify();
  },
  /** The saved user (either name set), or null when none or unreadable. */
  getUser(): StoredUser | null {
    const s = storage();
    if (!s) return null;
    for (const names of NAME_SETS) {
      const raw = s.getItem(names.user);
      if (!raw) continue;
      try {
        return JSON.parse(raw) as StoredUser;
      } catch {
        // a corrupt entry: try the other name set
      }
    }
    return null;
  },
  setUser(user: StoredUser): void {
    const s = storage();
    if (s) for (const names of NAME_SETS) s.setItem(names.user, JSON.stringify(user));
    notify();
  },
  clear(): void {
    const s = storage();
    if (s) for (const names of NAME_SETS) for (const key of Object.values(names)) s.removeItem(key);
    notify();
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
