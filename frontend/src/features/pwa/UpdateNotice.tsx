import { useEffect, useSyncExternalStore } from 'react';
import { UPDATE_NOTICE_MS, pwaStore } from './store';
import './pwa.css';

/** 'Update Available' with Refresh; vanishes by itself after 10 s. */
export function UpdateNotice() {
  const { updateAvailable } = useSyncExternalStore(pwaStore.subscribe, pwaStore.getState, pwaStore.getState);
  useEffect(() => {
    if (!updateAvailable) return;
    const timer = setTimeout(() => pwaStore.hideUpdate(), UPDATE_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [updateAvailable]);
  if (!updateAvailable) return null;
  return (
    <div className="toast toast-update" role="status" aria-live="polite">
      <div className="toast-body">
        <strong>Update Available</strong>
        <p>A new version of Glob Network is ready.</p>
      </div>
      <button type="button" className="btn btn-primary btn-sm" onClick={() => pwaStore.refresh()}>
        Refresh
      </button>
    </div>
  );
}
