import { useSyncExternalStore } from 'react';

const subscribe = () => () => undefined;

/**
 * False while React hydrates a prerendered page (and on the server), true otherwise. Parts that show API data
 * or facts of this browser (release info, detected OS, live stats) render their server state first, so the
 * first client render matches the prerendered markup, then switch right after hydration.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
