/**
 * Build-time rendering of the marketing pages (build/prerender.ts runs it after the client build). Each page is
 * rendered at its path into HTML that the browser then hydrates (src/main.tsx). Never shipped to the browser.
 *
 * API data (stats strip, latest release) is not fetched here: those parts render their loading state, exactly
 * what the first client render shows before its own request answers (see components/useHydrated.ts).
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider, createMemoryHistory } from '@tanstack/react-router';
import { headFields, headTagsHtml } from './components/head';
import { HeadCollector, pageHeadFields, type HeadOptions } from './components/PageHead';
import { createAppRouter, createQueryClient } from './router';

export interface RenderedPage {
  /** The markup of #root. */
  html: string;
  /** The page's title, description, canonical, robots, Open Graph and Twitter tags. */
  head: string;
  /** True when the router fell through to the 404 page (root not-found). */
  notFound: boolean;
  /** The matched routes' ids ('__root__', '/_site', '/_site/downloads'): which chunks and CSS the page needs. */
  routeIds: string[];
}

export async function render(path: string): Promise<RenderedPage> {
  const queryClient = createQueryClient();
  // Loaders only start requests for the browser's sake; nothing is fetched at build time.
  queryClient.prefetchQuery = async () => undefined;
  const router = createAppRouter(queryClient, { history: createMemoryHistory({ initialEntries: [path] }) });
  await router.load();
  let head: HeadOptions | null = null;
  const html = renderToString(
    <StrictMode>
      <HeadCollector.Provider value={(options) => (head = options)}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </HeadCollector.Provider>
    </StrictMode>,
  );
  queryClient.clear();
  const collected = head as HeadOptions | null;
  if (!collected) throw new Error(`${path}: the page rendered no <PageHead>`);
  const notFound = router.state.matches.some((m) => m.status === 'notFound' || Boolean(m._notFound));
  const routeIds = router.state.matches.map((m) => m.routeId as string);
  return { html, head: headTagsHtml(pageHeadFields(collected)), notFound, routeIds };
}

/** Every route's path pattern ('/blog/$slug', '/app/auth', …): the server answers 404 for paths matching none. */
export function routePatterns(): string[] {
  const router = createAppRouter(createQueryClient(), { history: createMemoryHistory() });
  const paths = Object.values(router.routesById).map((r: { fullPath: string }) => r.fullPath.replace(/\/$/, '') || '/');
  return [...new Set(paths)].sort();
}

export { headFields, headTagsHtml };
