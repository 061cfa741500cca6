import { QueryClient } from '@tanstack/react-query';
import { createRouter, type RouterHistory } from '@tanstack/react-router';
import { routeTree } from './routeTree.gen';

export interface RouterContext {
  queryClient: QueryClient;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: 1 },
    },
  });
}

export interface AppRouterOptions {
  /** The prerender's (src/entry-server.tsx) memory history at the page's path. */
  history?: RouterHistory;
  /** A prerendered page: the visitor may have scrolled it before the code ran, so its first render keeps the scroll. */
  prerendered?: boolean;
}

export function createAppRouter(queryClient: QueryClient, { history, prerendered = false }: AppRouterOptions = {}) {
  let keepScroll = prerendered;
  return createRouter({
    routeTree,
    context: { queryClient },
    history,
    defaultPreload: 'intent',
    // The query cache owns freshness; loaders only start fetches.
    defaultPreloadStaleTime: 0,
    // Browser only (on the server it would write a restoration script into the markup); asked on every render.
    scrollRestoration: history
      ? false
      : () => {
          const restore = !keepScroll;
          keepScroll = false;
          return restore;
        },
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
  interface StaticDataRouteOption {
    /** How many decorative floating dots the page draws (20, 15 or 10). */
    dots?: 10 | 15 | 20;
  }
}
