import { useSyncExternalStore } from 'react';

/**
 * Light or dark theme. Without a choice the page follows the OS (@glob/ui/tokens.css: prefers-color-scheme); a
 * choice is kept in localStorage and shown as `data-theme` on <html>. index.html's inline script applies a stored
 * choice before first paint, with the same key and values as here (theme.test.tsx runs it to make sure).
 *
 * One button toggles between light and dark. Choosing the theme the OS asks for forgets the choice, so the page
 * follows the OS again: two states reach all three (system, light, dark) without a menu in the header.
 */
export type Theme = 'light' | 'dark';

export const THEME_KEY = 'theme';

const LIGHT_QUERY = '(prefers-color-scheme: light)';

const isTheme = (value: unknown): value is Theme => value === 'light' || value === 'dark';

/** The stored choice, or null (none, or storage unavailable). */
export function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(THEME_KEY);
    return isTheme(value) ? value : null;
  } catch {
    return null;
  }
}

/** What the OS asks for; dark where the browser cannot say, as the stylesheet's base palette is dark. */
export function systemTheme(): Theme {
  return typeof window.matchMedia === 'function' && window.matchMedia(LIGHT_QUERY).matches ? 'light' : 'dark';
}

/** The theme on screen. */
export function currentTheme(): Theme {
  return storedTheme() ?? systemTheme();
}

const listeners = new Set<() => void>();

function applyStored(): void {
  const theme = storedTheme();
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

/** Shows `theme`: stored while it differs from the OS's, forgotten (follow the OS) when it is the same. */
export function setTheme(theme: Theme): void {
  const followOs = theme === systemTheme();
  try {
    if (followOs) localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Storage refused (private mode, quota): the choice still holds for this page.
  }
  if (followOs) delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  listeners.forEach((listener) => listener());
}

export function toggleTheme(): Theme {
  const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
  setTheme(next);
  return next;
}

/** Calls `listener` when the theme changes here, in another tab (storage event) or in the OS. */
export function subscribeTheme(listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key !== THEME_KEY && event.key !== null) return;
    applyStored();
    listener();
  };
  const media = typeof window.matchMedia === 'function' ? window.matchMedia(LIGHT_QUERY) : null;
  listeners.add(listener);
  window.addEventListener('storage', onStorage);
  media?.addEventListener('change', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
    media?.removeEventListener('change', listener);
  };
}

/** The theme on screen; null on the server and while hydrating (the build cannot know it). */
export function useTheme(): Theme | null {
  return useSyncExternalStore(subscribeTheme, currentTheme, () => null);
}
