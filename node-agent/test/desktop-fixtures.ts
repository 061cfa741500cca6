import type { PanelState, PanelUpdate } from '../src/desktop/panel-api';

/** An app that is up to date (one that updates itself); tests change what they look at. */
export function panelUpdateFixture(over: Partial<PanelUpdate> = {}): PanelUpdate {
  return { current: '0.1.0', ready: false, available: true, phase: 'idle', version: null, progress: null, message: null, ...over };
}

/** A panel state of a paired node sharing its models; tests change what they look at. */
export function panelStateFixture(over: Partial<PanelState> = {}): PanelState {
  return {
    phase: 'sharing',
    paused_reason: null,
    api: 'https://globnetwork.io',
    device: null,
    node: { id: '7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08', name: 'living-room-pc' },
    sharing: true,
    idle_only: { enabled: false, minutes: 10, idle_seconds: 0 },
    start_at_login: true,
    update: panelUpdateFixture(),
    allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 },
    models: [{ id: 'glob-tiny-chat', state: 'ready', bytes: 1000, total_bytes: 1000, serving: true }],
    running_jobs: 0,
    host: { hostname: 'living-room-pc', cpu_cores: 8, memory_bytes: 34359738368, gpu: null },
    wallet_url: 'https://globnetwork.io/app/wallet',
    ...over,
  };
}
