import { pwaStore } from './store';

/**
 * Registers the Workbox service worker that vite-plugin-pwa generates (/sw.js, scope /). When a new worker has
 * finished installing while an old one controls the page, the 'Update Available' notice appears; Refresh tells the
 * waiting worker to take over (its SKIP_WAITING message) and reloads once it does.
 */
export function registerServiceWorker(container: ServiceWorkerContainer | undefined = navigator.serviceWorker) {
  if (!container) return;
  let refreshing = false;
  const offer = (worker: ServiceWorker) =>
    pwaStore.showUpdate(() => {
      refreshing = true;
      worker.postMessage({ type: 'SKIP_WAITING' });
    });
  container.addEventListener('controllerchange', () => {
    if (refreshing) window.location.reload();
  });
  container
    .register('/sw.js', { scope: '/' })
    .then((registration) => {
      if (registration.waiting && container.controller) offer(registration.waiting);
      registration.addEventListener('updatefound', () => {
        const installing = registration.installing;
        installing?.addEventListener('statechange', () => {
          if (installing.state === 'installed' && container.controller) offer(installing);
        });
      });
    })
    .catch((error: unknown) => {
      // Worker registration failure is logged only.
      console.warn('Service worker registration failed', error);
    });
}
