import { setupWorker } from 'msw/browser';
import { handlers } from './handlers';

/** VITE_API_MOCKING=1: the whole frontend runs on the spec's examples. */
export const worker = setupWorker(...handlers);

export async function startMocking(): Promise<void> {
  // A page restored from the back/forward cache is no longer a client of the mock worker: load it afresh.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) window.location.reload();
  });
  await worker.start({
    serviceWorker: { url: '/mockServiceWorker.js' },
    onUnhandledRequest: (request, print) => {
      // Only the API must be mocked; pages, assets and media come from the server.
      if (new URL(request.url).pathname.startsWith('/api/')) print.error();
    },
    quiet: true,
  });
}
