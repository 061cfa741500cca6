/** The panel's and the tray's PanelState, from the agent's snapshot and the app's own settings. */
import type { AgentSnapshot } from '../agent';
import type { PanelPhase, PanelState, PanelUpdate } from './panel-api';
import type { UpdateSnapshot } from './updater';
import type { DesktopSettings } from './settings';
import { idlePauseReason } from './idle';

export const SHARING_OFF = 'Sharing is off: this computer takes no jobs until you resume it';

export interface StateInput {
  agent: AgentSnapshot;
  settings: DesktopSettings;
  /** The last idle reading (null: unknown). */
  idleSeconds: number | null;
  /** The API known to the app: the agent's, else the one the panel was given before pairing. */
  api: string | null;
  /** The updater's state; null when this copy does not update itself. */
  update: UpdateSnapshot | null;
  /** This app's version. */
  version: string;
}

/** The first reason that applies, in the order a provider can act on them. */
function pausedReason(i: StateInput): string | null {
  const { pauses } = i.agent;
  if (pauses.updateRequired) return pauses.updateRequired;
  if (!i.settings.sharing) return SHARING_OFF;
  if (pauses.owner) return 'Paused in the web app (Your nodes): resume it there or here';
  if (pauses.battery) return 'On battery below 20 %: sharing resumes when the computer is charging';
  const idle = idlePauseReason(i.settings.idle_only, i.idleSeconds);
  if (idle) return idle;
  if (i.agent.stage === 'running' && !i.agent.models.some((m) => m.serving))
    return 'No model is loaded: a larger memory or disk allocation may let one in';
  return null;
}

function phase(i: StateInput, reason: string | null): PanelPhase {
  const a = i.agent;
  if (a.stage === 'stopping') return 'stopping';
  if (a.stage === 'unpaired') return 'unpaired';
  if (a.device) return 'pairing';
  if (!a.reachable) return 'offline';
  if (a.stage === 'starting') return 'starting';
  return reason ? 'paused' : 'sharing';
}

function walletUrl(api: string | null): string | null {
  if (!api) return null;
  try {
    return new URL('/app/wallet', api).href;
  } catch {
    return null;
  }
}

function update(i: StateInput): PanelUpdate {
  const required = i.agent.pauses.updateRequired;
  const u = i.update;
  return {
    current: i.version,
    ready: required !== null || u?.phase === 'ready',
    available: u !== null,
    phase: u?.phase ?? 'idle',
    version: u?.version ?? null,
    progress: u?.progress ?? null,
    message: required ?? u?.message ?? null,
  };
}

export function panelState(i: StateInput): PanelState {
  const a = i.agent;
  const reason = pausedReason(i);
  const p = phase(i, reason);
  const api = a.api ?? i.api;
  return {
    phase: p,
    paused_reason: p === 'paused' ? reason : null,
    api,
    device: a.device,
    node: a.node,
    sharing: i.settings.sharing,
    idle_only: { ...i.settings.idle_only, idle_seconds: i.idleSeconds },
    start_at_login: i.settings.start_at_login,
    update: update(i),
    allocation: a.allocation,
    models: a.models.map((m) => ({
      id: m.id,
      state: m.state,
      bytes: m.bytes,
      total_bytes: m.total_bytes,
      serving: m.serving,
      ...(m.error ? { error: m.error } : {}),
    })),
    running_jobs: a.runningJobs,
    host: { hostname: a.host.hostname, cpu_cores: a.host.cpu_cores, memory_bytes: a.host.memory_bytes, gpu: a.host.gpu ?? null },
    wallet_url: walletUrl(api),
  };
}
