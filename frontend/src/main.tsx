import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { whenPageInteractive } from './components/useHydrated';
import { createAppRouter, createQueryClient } from './router';
import './styles/global.css';

/** build/early-clicks.js: clicks kept while a prerendered page waited for this code. */
interface EarlyClicks {
  stop(): Element[];
}
const win = window as Window & { __globApp?: boolean; __globEarlyClicks?: EarlyClicks };
win.__globApp = true;

const mocking = import.meta.env.VITE_API_MOCKING === '1';

type AppRouter = ReturnType<typeof createAppRouter>;

const normalize = (path: string) => path.replace(/\/+$/, '') || '/';

/**
 * Whether the markup in #root was prerendered for the page the router has just loaded: `data-prerendered` holds
 * the path it was built for, or '404' for the not-found page (served for any unknown path).
 */
function markupFits(prerendered: string, router: AppRouter): boolean {
  if (prerendered === '404') return router.state.matches.some((m) => m.status === 'notFound' || Boolean(m._notFound));
  let path = router.state.location.pathname;
  try {
    path = decodeURI(path);
  } catch {
    // keep it as it is
  }
  return normalize(path) === normalize(prerendered);
}

/** Runs when the browser is idle (or soon, where it has no idle callback). */
const whenIdle = (task: () => void) =>
  'requestIdleCallback' in window ? window.requestIdleCallback(task, { timeout: 4000 }) : setTimeout(task, 1500);

async function start() {
  if (mocking) {
    const { startMocking } = await import('./mocks/browser');
    await startMocking();
  }
  const container = document.getElementById('root')!;
  const prerendered = container.dataset.prerendered;
  const queryClient = createQueryClient();
  const router = createAppRouter(queryClient, { prerendered: Boolean(prerendered) });
  const app = (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>
  );
  if (prerendered) {
    // The page's route code must be loaded before React compares it with the markup.
    await router.load();
    // From here on React handles clicks itself (also those during hydration).
    const early = win.__globEarlyClicks?.stop() ?? [];
    if (markupFits(prerendered, router)) {
      // As on the server (src/entry-server.tsx): no suspense boundary around the route matches.
      router.ssr = { manifest: undefined };
      // The clicks kept before, replayed once the page frame is hydrated and its buttons are live.
      whenPageInteractive(() => {
        for (const el of early) if (el.isConnected && el instanceof HTMLElement) el.click();
      });
      // A transition: hydration yields to the browser between components instead of one long task.
      startTransition(() => {
        hydrateRoot(container, app);
      });
    } else {
      // e.g. the 404 page's file served for /blog/<unknown>: render afresh (React replaces the markup).
      delete container.dataset.prerendered;
      createRoot(container).render(app);
    }
  } else {
    createRoot(container).render(app);
  }
  // The installable app's worker, once the page is idle; on mocks the scope belongs to MSW's worker instead.
  if (!mocking && import.meta.env.PROD) {
    whenIdle(() => {
      void import('./features/pwa/register').then(({ registerServiceWorker }) => registerServiceWorker());
    });
  }
}

void start();
