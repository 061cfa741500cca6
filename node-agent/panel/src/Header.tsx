import type { PanelState } from '../../src/desktop/panel-api';
import { TEXTS } from './texts';

/** The app's name, its phase and this node's name; why it is paused and a waiting update under them. */
export function Header({ state }: { state: PanelState }) {
  return (
    <header className="panel-header">
      <div className="panel-brand">
        <h1>{TEXTS.brand}</h1>
        {state.node ? <p className="panel-node-name">{state.node.name}</p> : null}
      </div>
      <div className="panel-status">
        <p role="status" className={`panel-phase phase-${state.phase}`}>
          <span className="panel-phase-dot" aria-hidden="true" />
          {TEXTS.phases[state.phase]}
        </p>
        {state.running_jobs > 0 ? <p className="panel-muted">{TEXTS.runningJobs(state.running_jobs)}</p> : null}
      </div>
      {state.phase === 'paused' && state.paused_reason ? <p className="panel-note">{state.paused_reason}</p> : null}
      {state.update.ready ? (
        <p className="panel-note">
          <strong>{TEXTS.updateReady}</strong>
          {state.update.message ? `: ${state.update.message}` : null}
        </p>
      ) : null}
    </header>
  );
}
