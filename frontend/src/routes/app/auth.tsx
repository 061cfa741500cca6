import { createFileRoute, redirect } from '@tanstack/react-router';
import { AuthPage } from '../../features/auth/AuthPage';

export const Route = createFileRoute('/app/auth')({
  // A visitor who is already signed in goes straight to the dashboard.
  // beforeLoad stays in the entry chunk: the session reader (and the token store) is fetched on the way into /app.
  beforeLoad: async () => {
    if ((await import('../../features/session/state')).readSession().signedIn) throw redirect({ to: '/app/dashboard', replace: true });
  },
  component: AuthPage,
});
