/** Test-only helpers for the web app's screens (never imported by app code). */
import { StrictMode } from 'react';
import { act, render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import {
  Outlet,
  RouterProvider,
  createMemoryHistory,
  createRootRouteWithContext,
  createRoute,
  createRouter,
  useLocation,
} from '@tanstack/react-router';
import { testQueryClient } from '../../test/render';
import type { RouterContext } from '../../router';
import { requireSignIn } from '../session/guard';
import { SignedInLayout } from './SignedInLayout';
import { OAuthCallbackPage } from '../auth/OAuthCallbackPage';

/** A stand-in page that names where the router is. */
function Stub() {
  const pathname = useLocation({ select: (l) => l.pathname });
  return <p data-testid="page">{pathname}</p>;
}

/**
 * A router shaped like the app's /app area: /app/auth and /downloads as stand-ins, the guarded shell over
 * stand-in dashboard / assistant / wallet pages, and the real OAuth callback page.
 */
export async function renderApp(path: string, { strict = false }: { strict?: boolean } = {}) {
  const queryClient = testQueryClient();
  const root = createRootRouteWithContext<RouterContext>()({ component: Outlet });
  const shell = createRoute({ getParentRoute: () => root, id: '_shell', beforeLoad: requireSignIn, component: SignedInLayout });
  const pages = ['app/dashboard', 'app/assistant', 'app/wallet'].map((p) => createRoute({ getParentRoute: () => shell, path: p, component: Stub }));
  const router = createRouter({
    routeTree: root.addChildren([
      createRoute({ getParentRoute: () => root, path: 'app/auth', component: Stub }),
      createRoute({ getParentRoute: () => root, path: 'downloads', component: Stub }),
      createRoute({ getParentRoute: () => root, path: 'app/oauth/callback/$provider', component: OAuthCallbackPage }),
      shell.addChildren(pages),
    ]),
    context: { queryClient },
    history: createMemoryHistory({ initialEntries: [path] }),
  });
  await router.load();
  const tree = (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router as never} />
    </QueryClientProvider>
  );
  const result = render(strict ? <StrictMode>{tree}</StrictMode> : tree);
  // Let effects that settle at once (a refused OAuth redirect) do so inside act.
  await act(async () => undefined);
  return { ...result, router, queryClient };
}

/** A signed-in browser: tokens and user under both name sets, as startSession leaves them. */
export function signIn(user: Record<string, unknown> = {}) {
  const full = {
    id: '0b9f4a2e-6c1d-4f7e-9a51-3d2c8e7b1f60',
    email: 'ada@example.com',
    username: 'ada',
    token_balance: 1000,
    created_at: '2026-11-21T10:15:00.000Z',
    ...user,
  };
  for (const [access, refresh, u] of [
    ['access_token', 'refresh_token', 'user'],
    ['glob_access_token', 'glob_refresh_token', 'glob_user'],
  ] as const) {
    localStorage.setItem(access, 'access-1');
    localStorage.setItem(refresh, 'refresh-1');
    localStorage.setItem(u, JSON.stringify(full));
  }
  return full;
}

export const SESSION_KEYS = ['access_token', 'refresh_token', 'user', 'glob_access_token', 'glob_refresh_token', 'glob_user'];
