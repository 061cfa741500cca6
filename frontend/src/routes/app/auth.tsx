import { createFileRoute, redirect } from '@tanstack/react-router';
import { AuthPage } from '../../features/auth/AuthPage';
import { validateSignInSearch } from '../../features/session/returnPath';

export const Route = createFileRoute('/app/auth')({
  // `?redirect=`: where the signed-in guard found the visitor, when that page asks to come back to it (the pair page).
  validateSearch: validateSignInSearch,
  // A visitor who is already signed in goes straight there, or to the dashboard.
  // beforeLoad stays in the entry chunk: the session reader (and the token store) is fetched on the way into /app.
  beforeLoad: async ({ search }) => {
    if (!(await import('../../features/session/state')).readSession().signedIn) return;
    throw search.redirect ? redirect({ href: search.redirect, replace: true }) : redirect({ to: '/app/dashboard', replace: true });
  },
  component: AuthPage,
});
