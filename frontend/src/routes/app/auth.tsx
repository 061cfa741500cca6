import { createFileRoute, redirect } from '@tanstack/react-router';
import { AuthPage } from '../../features/auth/AuthPage';
import { readSession } from '../../features/session/state';

export const Route = createFileRoute('/app/auth')({
  // A visitor who is already signed in goes straight to the dashboard.
  beforeLoad: () => {
    if (readSession().signedIn) throw redirect({ to: '/app/dashboard', replace: true });
  },
  component: AuthPage,
});
