import { Outlet, useRouter } from '@tanstack/react-router';
import './app.css';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { meQuery } from '../../api/queries/accounts';
import { tokenStore } from '../../api/tokens';
import { useSession } from '../session/session';
import { AppShell } from './AppShell';

/**
 * The signed-in area's layout: a spinner while the user loads, then the app shell. A session that ends while it
 * is open — a token the server refuses (and cannot refresh) is cleared by the API client, or a sign-out here or in
 * another tab (the token store hears the `storage` event) — makes the router run `requireSignIn` (../session/guard) again.
 */
export function SignedInLayout() {
  const session = useSession();
  const router = useRouter();
  const me = useQuery({ ...meQuery(), enabled: session.signedIn });
  useEffect(
    () =>
      tokenStore.subscribe((tokens) => {
        if (!tokens?.access_token) void router.invalidate();
      }),
    [router],
  );
  // Signed out: nothing of the shell (its queries would fetch again) while the router redirects.
  if (!session.signedIn) return null;
  if (!session.user && me.isPending) {
    return (
      <div className="app-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        <span className="visually-hidden">Loading...</span>
      </div>
    );
  }
  return (
    <AppShell>
      <Outlet />
    </AppShell>
  );
}
