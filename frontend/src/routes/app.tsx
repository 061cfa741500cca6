import { Outlet, createFileRoute } from '@tanstack/react-router';

/** The web app: no public header or footer under /app. */
export const Route = createFileRoute('/app')({
  component: Outlet,
});
