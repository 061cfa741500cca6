import { Navigate, Outlet } from '@tanstack/react-router';
import './app.css';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { meQuery } from '../../api/queries/accounts';
import { useSession } from '../session/session';
import { AppShell } from './AppShell';

/**
 * A spinner while the authentication state loads; once known, a visitor who is not signed in goes to
 * /app/auth. A token the server refuses (and cannot refresh) is cleared by the API client, which lands here too,
 * and so does a sign-out in another tab (the token store hears the `storage` event).
 */
export function AppGuard() {
  const session = useSession();
  const queryClient = useQueryClient();
  const me = useQuery({ ...meQuery(), enabled: session.signedIn });
  // Signed out (here, by the server or in another tab): nothing of that user's data stays cached.
  useEffect(() => {
    if (!session.signedIn) queryClient.removeQueries();
  }, [session.signedIn, queryClient]);
  if (!session.signedIn) return <Navigate to="/app/auth" replace />;
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
