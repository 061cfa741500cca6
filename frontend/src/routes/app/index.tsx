import { createFileRoute, redirect } from '@tanstack/react-router';

/** /app redirects to /app/dashboard (which signs the visitor in first if needed). */
export const Route = createFileRoute('/app/')({
  beforeLoad: () => {
    throw redirect({ to: '/app/dashboard', replace: true });
  },
});
