import { useId, useState, type FormEvent } from 'react';
import { Card, Toggle } from '@glob/ui';
import type { PanelState } from '../../src/desktop/panel-api';
import { ActionError, useStateAction } from './actions';
import { AllocationForm } from './Allocation';
import { Models } from './Models';
import { TEXTS } from './texts';

/** The owner's switches for this computer: sharing, how much of it, only while idle, start at login; its models. */
export function ResourceSharing({ state }: { state: PanelState }) {
  const sharing = useStateAction<{ sharing: boolean }>('/local/sharing');
  const startAtLogin = useStateAction<{ enabled: boolean }>('/local/start-at-login');
  return (
    <Card title={TEXTS.sharing.title}>
      <Toggle
        label={TEXTS.sharing.share}
        hint={state.phase === 'paused' && state.paused_reason ? state.paused_reason : TEXTS.sharing.shareHint}
        checked={state.sharing}
        disabled={sharing.isPending}
        onChange={(on) => sharing.mutate({ sharing: on })}
      />
      <ActionError error={sharing.error} />
      {state.allocation ? <AllocationForm allocation={state.allocation} hasGpu={state.host.gpu !== null} /> : null}
      <IdleOnly idle={state.idle_only} />
      <Toggle
        label={TEXTS.sharing.startAtLogin}
        hint={TEXTS.sharing.startAtLoginHint}
        checked={state.start_at_login}
        disabled={startAtLogin.isPending}
        onChange={(on) => startAtLogin.mutate({ enabled: on })}
      />
      <ActionError error={startAtLogin.error} />
      <Models models={state.models} diskGb={state.allocation?.disk_gb ?? null} />
    </Card>
  );
}

/** Idle-only sharing: a switch and the minutes without input after which the computer counts as idle. */
function IdleOnly({ idle }: { idle: PanelState['idle_only'] }) {
  const action = useStateAction<{ enabled: boolean; minutes: number }>('/local/idle-only');
  const id = useId();
  // The owner's unsaved minutes; the app's value shows again once they are saved (or dropped as unchanged).
  const [draft, setDraft] = useState<string | null>(null);
  const minutes = draft ?? String(idle.minutes);

  const saveMinutes = (e?: FormEvent) => {
    e?.preventDefault();
    const value = Math.round(Number(minutes));
    if (!Number.isFinite(value) || value < 1 || value === idle.minutes) return setDraft(null);
    action.mutate({ enabled: idle.enabled, minutes: value }, { onSuccess: () => setDraft(null) });
  };

  return (
    <div className="panel-idle">
      <Toggle
        label={TEXTS.sharing.idleOnly}
        hint={idle.enabled && idle.idle_seconds !== null ? TEXTS.sharing.idleNow(idle.idle_seconds) : TEXTS.sharing.idleHint}
        checked={idle.enabled}
        disabled={action.isPending}
        onChange={(on) => action.mutate({ enabled: on, minutes: idle.minutes })}
      />
      {idle.enabled ? (
        <form className="panel-inline-field" onSubmit={saveMinutes}>
          <label htmlFor={id}>{TEXTS.sharing.idleMinutes}</label>
          <input
            id={id}
            className="panel-input panel-number"
            type="number"
            min={1}
            step={1}
            required
            value={minutes}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={() => saveMinutes()}
          />
        </form>
      ) : null}
      <ActionError error={action.error} />
    </div>
  );
}
