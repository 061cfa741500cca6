import { createFileRoute } from '@tanstack/react-router';
import { AppGuard } from '../../features/shell/AppGuard';

/** The signed-in area: the guard (spinner, then /app/auth when signed out) and the app shell. */
export const Route = createFileRoute('/app/_shell')({
  component: AppGuard,
});
