/**
 * Where the signed-in session lives (001 §3: the access token, the refresh token and the user are held in
 * local storage under two name sets; both are written, either is read).
 */
export interface StoredTokens {
  access_token: string;
  refresh_token: string | null;
}

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
    listeners.forEach((l) => l(tokens));
  },
  clear(): void {
    const s = storage();
    if (s) for (const names of NAME_SETS) for (const key of Object.values(names)) s.removeItem(key);
    listeners.forEach((l) => l(null));
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
