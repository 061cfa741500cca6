import { redirect } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { readSession } from './state';

/**
 * `beforeLoad` of the signed-in area: a visitor who is not signed in goes to /app/auth, and nothing of an
 * earlier user's data stays cached. Kept apart from the area's layout, which the router loads with its chunk.
 */
export function requireSignIn({ context }: { context: { queryClient: QueryClient } }) {
  if (readSession().signedIn) return;
  context.queryClient.removeQueries();
  throw redirect({ to: '/app/auth', replace: true });
}
