import { Outlet, createFileRoute } from '@tanstack/react-router';

/** The web app: no public header or footer under /app (001 §2). */
export const Route = createFileRoute('/app')({
  component: Outlet,
});
