import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Outlet, RouterProvider, createMemoryHistory, createRootRoute, createRoute, createRouter } from '@tanstack/react-router';

export function testQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
}

/**
 * Renders a component inside a query client and a router (so <Link> works), at `path`.
 * Every other path renders nothing, so links can be followed.
 */
export async function renderWithProviders(ui: ReactNode, { path = '/', queryClient = testQueryClient() } = {}) {
  const rootRoute = createRootRoute({ component: Outlet });
  const catchAll = createRoute({ getParentRoute: () => rootRoute, path: '$', component: () => <>{ui}</> });
  const index = createRoute({ getParentRoute: () => rootRoute, path: '/', component: () => <>{ui}</> });
  const router = createRouter({
    routeTree: rootRoute.addChildren([index, catchAll]),
    history: createMemoryHistory({ initialEntries: [path] }),
  });
  await router.load();
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router as never} />
    </QueryClientProvider>,
  );
  return { ...result, router, queryClient };
}

/** Renders the app's real route tree at `path` (every page, the guard's redirects), with a fresh query client. */
export async function visitRoute(path: string, queryClient = testQueryClient()) {
  const { routeTree } = await import('../routeTree.gen');
  const router = createRouter({ routeTree, context: { queryClient }, history: createMemoryHistory({ initialEntries: [path] }) });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return Object.assign(router, { unmount: result.unmount, queryClient });
}
