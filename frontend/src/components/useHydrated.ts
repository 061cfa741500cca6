import { useEffect, useSyncExternalStore } from 'react';

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

let waiting: (() => void)[] | null = [];

/** Runs `task` once the page frame has hydrated (its buttons answer clicks), or now if it already has. */
export function whenPageInteractive(task: () => void): void {
  if (waiting) waiting.push(task);
  else task();
}

/** Called by the page frame (SiteLayout): its effects run once everything inside it is hydrated and live. */
export function usePageInteractive(): void {
  useEffect(() => {
    const tasks = waiting;
    waiting = null;
    tasks?.forEach((task) => task());
  }, []);
}
