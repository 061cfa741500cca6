import { Suspense, lazy, useEffect, useSyncExternalStore } from 'react';
import { listenForInstall, pwaStore } from './store';

const InstallBanner = lazy(() => import('./InstallBanner').then((m) => ({ default: m.InstallBanner })));
const UpdateNotice = lazy(() => import('./UpdateNotice').then((m) => ({ default: m.UpdateNotice })));

/**
 * The installable-app helpers of the site frame: listens for the browser's install offer from the start, and
 * loads the install banner or the update notice only once one of them has something to show (most visits:
 * never), keeping their code off the page's first load.
 */
export function PwaNotices() {
  const state = useSyncExternalStore(pwaStore.subscribe, pwaStore.getState, pwaStore.getState);
  useEffect(() => listenForInstall(), []);
  return (
    <Suspense fallback={null}>
      {(state.installable || state.message) && <InstallBanner />}
      {state.updateAvailable && <UpdateNotice />}
    </Suspense>
  );
}
