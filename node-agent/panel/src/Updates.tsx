import { useMutation } from '@tanstack/react-query';
import type { PanelState } from '../../src/desktop/panel-api';
import { request } from './api';
import { ActionError, useStateAction } from './actions';
import { TEXTS } from './texts';

/**
 * This app's version and its updates: what the last check found, a download under way, and "Restart to update" once
 * a verified version waits (the app returns its jobs, then its launcher starts the new version).
 */
export function Updates({ state }: { state: PanelState }) {
  const u = state.update;
  const check = useStateAction<undefined>('/local/update/check');
  const restart = useMutation({ mutationFn: () => request<void>('POST', '/local/update/restart') });
  if (restart.isSuccess)
    return (
      <p role="status" className="panel-muted">
        {TEXTS.updates.restarting(u.version ?? '')}
      </p>
    );
  const line =
    u.phase === 'checking' || check.isPending
      ? TEXTS.updates.checking
      : u.phase === 'downloading' && u.version
        ? TEXTS.updates.downloading(u.version, u.progress)
        : u.phase === 'ready' && u.version
          ? TEXTS.updates.ready(u.version)
          : u.available
            ? u.message
            : TEXTS.updates.elsewhere;
  return (
    <div className="panel-updates" aria-label={TEXTS.updates.version(u.current)} role="group">
      <p className="panel-muted">
        <strong>{TEXTS.updates.version(u.current)}</strong>
        {line ? ` · ${line}` : null}
      </p>
      {u.phase === 'ready' ? (
        <button type="button" className="btn btn-primary" onClick={() => restart.mutate()} disabled={restart.isPending}>
          {TEXTS.updates.restart}
        </button>
      ) : u.available ? (
        <button
          type="button"
          className="btn"
          onClick={() => check.mutate(undefined)}
          disabled={check.isPending || u.phase === 'checking' || u.phase === 'downloading'}
        >
          {TEXTS.updates.check}
        </button>
      ) : null}
      <ActionError error={check.error ?? restart.error} />
    </div>
  );
}
