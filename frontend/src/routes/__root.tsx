import { Outlet, createRootRouteWithContext } from '@tanstack/react-router';
import { NotFound } from '../components/NotFound';
import { SiteLayout } from '../components/SiteLayout';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: () => (
    <SiteLayout dots={10}>
      <NotFound />
    </SiteLayout>
  ),
});
