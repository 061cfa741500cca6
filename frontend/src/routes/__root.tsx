import { Outlet, createRootRouteWithContext, lazyRouteComponent } from '@tanstack/react-router';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  // Loaded only for unknown paths (the root route's options are never split by the router plugin).
  notFoundComponent: lazyRouteComponent(() => import('../components/NotFound'), 'NotFoundPage'),
});
