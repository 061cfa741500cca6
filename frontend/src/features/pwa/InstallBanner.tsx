import { useEffect, useSyncExternalStore } from 'react';
import { Icon } from '../../components/CoreIcon';
import { listenForInstall, pwaStore } from './store';
import './pwa.css';

/** Shows while the browser offers installation; gone on dismiss, on install, or when installed / standalone. */
export function InstallBanner() {
  const state = useSyncExternalStore(pwaStore.subscribe, pwaStore.getState, pwaStore.getState);
  useEffect(() => listenForInstall(), []);

  const visible = state.installable && !state.dismissed && !state.installed && !state.standalone;
  if (!visible && !state.message) return null;
  return (
    <div className="toast" role="region" aria-label="Install Glob Network">
      <span className="icon-tile" style={{ margin: 0 }}>
        <Icon name="download" />
      </span>
      <div className="toast-body">
        <strong>Install Glob Network</strong>
        <p role="status">{state.message ?? 'Add the app to your device for quick access, even offline.'}</p>
      </div>
      <div className="btn-row">
        {visible && (
          <button type="button" className="btn btn-primary btn-sm" onClick={() => void pwaStore.install()}>
            Install
          </button>
        )}
        <button type="button" className="btn btn-sm" onClick={() => pwaStore.dismiss()}>
          {visible ? 'Not now' : 'Close'}
        </button>
      </div>
    </div>
  );
}
