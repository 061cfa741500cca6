import { redirect, type ParsedLocation } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { PAIR_PATH, keepPairCodeForSignIn, pairCodeParam } from '../nodes/pairCode';
import { readSession } from './state';

/**
 * `beforeLoad` of the signed-in area: a visitor who is not signed in goes to /app/auth, and nothing of an
 * earlier user's data stays cached. Kept apart from the area's layout, which the router loads with its chunk.
 * The pair page is opened from outside the app (a machine's app sends its owner there): its address goes along as
 * `?redirect=`, so that signing in leads back to it, and its code is kept for a social sign-in's round trip.
 */
export function requireSignIn({
  context,
  location,
}: {
  context: { queryClient: QueryClient };
  location: Pick<ParsedLocation, 'pathname' | 'href' | 'search'>;
}) {
  if (readSession().signedIn) return;
  context.queryClient.removeQueries();
  if (location.pathname === PAIR_PATH) {
    keepPairCodeForSignIn(pairCodeParam((location.search as Record<string, unknown>).code));
    throw redirect({ to: '/app/auth', search: { redirect: location.href }, replace: true });
  }
  throw redirect({ to: '/app/auth', replace: true });
}
