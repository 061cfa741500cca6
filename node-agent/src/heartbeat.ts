/**
 * The heartbeat: the node's report to the API every 5 s (models, slots, load, battery, proofs, pool), and what the
 * answer updates here: the name, the owner's and the battery's pause, the allocation, the pool, the version, earnings.
 */
import type { Schemas } from './contract';
import { sameAllocation } from './allocation';
import { type BatterySource, type BatteryState, batteryPause, batteryPercent } from './battery';
import type { CredentialStore } from './credential-store';
import type { Log } from './logging';
import type { ModelProofs } from './model-proofs';
import type { PoolPart } from './pool-part';
import type { Serving } from './serving';
import type { Session } from './session';
import { AGENT_VERSION } from './version';

type NodeState = Schemas['NodeState'];

const glob = (n: number): string => `${Math.round(n * 1000) / 1000} GLOB`;

export interface HeartbeatDeps {
  session: Session;
  store: CredentialStore;
  battery: BatterySource;
  cpuLoad?: () => number | null;
  /** Between heartbeats; 5 s unless a test says otherwise. */
  intervalMs?: number;
  serving: Serving;
  pool: PoolPart;
  proofs: ModelProofs;
  /** The jobs running now. */
  runningJobs: () => number;
  /** Something the work loop waits on changed (a pause, the allocation, the version). */
  wake: () => void;
  fail: (err: unknown) => void;
}

export class Heartbeat {
  private readonly log: Log;
  private ownerPaused = false;
  private batteryPaused = false;
  /** What the platform said when it found this agent too old to take jobs; null while it accepts it. */
  private updateRequired: string | null = null;
  private battery: BatteryState | null = null;
  /** The last battery reading changed the pause (its log says so; the platform's echo of it needs no second line). */
  private batteryChanged = false;
  private earned: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Something the API should hear of at once changed: the next scheduled heartbeat goes out without waiting. */
  private soon = false;

  constructor(private readonly deps: HeartbeatDeps) {
    this.log = deps.session.log;
  }

  /** No jobs are claimed: paused by the owner, on a low battery, or too old for the network. */
  get paused(): boolean {
    return this.ownerPaused || this.batteryPaused || this.updateRequired !== null;
  }

  /** Why no jobs are claimed, each on its own (the desktop app says which). */
  get pauses(): { owner: boolean; battery: boolean; updateRequired: string | null } {
    return { owner: this.ownerPaused, battery: this.batteryPaused, updateRequired: this.updateRequired };
  }

  /** The next heartbeat, after the interval (at once when hurried); each schedules the one after it. */
  schedule(): void {
    if (this.deps.session.signal.aborted) return;
    this.timer = setTimeout(
      () => {
        this.soon = false;
        this.running = this.send({ retry: false })
          .then((s) => {
            if (s) this.onState(s);
          })
          .catch((err: unknown) => this.deps.fail(err))
          .finally(() => {
            this.running = null;
            this.schedule();
          });
      },
      this.soon ? 0 : (this.deps.intervalMs ?? 5_000),
    );
  }

  /**
   * The API should hear of a change at once. A heartbeat in flight may have been written before the change, so another
   * follows it at once; before start-up has scheduled any, the first one goes out at once.
   */
  hurry(): void {
    this.soon = true;
    if (this.deps.session.signal.aborted || this.running || !this.timer) return;
    clearTimeout(this.timer);
    this.schedule();
  }

  /** No more scheduled heartbeats (the agent is stopping). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The heartbeat in flight, if any, settled. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** One heartbeat, and its answer applied (nothing when the API is unreachable). */
  async report(): Promise<void> {
    const state = await this.send({ retry: false });
    if (state) this.onState(state);
  }

  private async readBattery(): Promise<void> {
    const b = await this.deps.battery().catch(() => null);
    this.battery = b;
    const pause = batteryPause(b);
    if (pause && !this.batteryPaused) this.log(`Paused: on battery at ${b!.percent} %`);
    if (!pause && this.batteryPaused) this.log(b?.onBattery ? `Resumed: battery at ${b.percent} %` : 'Resumed: charging');
    this.batteryChanged = pause !== this.batteryPaused;
    if (this.batteryChanged) {
      this.batteryPaused = pause;
      this.deps.wake();
    }
  }

  /** One heartbeat; null when the API is unreachable (and `retry` is false). */
  async send(opts: { retry: boolean }): Promise<NodeState | null> {
    const { session, serving, pool, proofs } = this.deps;
    await this.readBattery();
    const call = (signal: AbortSignal) =>
      session.api.POST('/api/nodes/heartbeat', {
        body: {
          models: serving.servedModels(),
          running_jobs: this.deps.runningJobs(),
          slots: serving.jobSlots(),
          agent_version: AGENT_VERSION,
          compute: serving.compute(),
          ...(proofs.waiting ? { proofs: proofs.take() } : {}),
          cpu_load: (this.deps.cpuLoad ?? (() => null))(),
          battery_percent: batteryPercent(this.battery),
          ...pool.report(serving.files),
        },
        signal,
      });
    const res = opts.retry
      ? await session.conn.call(call, { signal: session.signal, timeoutMs: 10_000 })
      : await session.conn.call(call, { signal: session.signal, timeoutMs: 10_000, retry: false });
    if (!res) return null;
    session.checkRevoked(res.response);
    if (!res.data) {
      this.log(`Heartbeat refused (${res.response.status}): ${(res.error as { message?: string } | undefined)?.message ?? ''}`);
      return null;
    }
    return res.data;
  }

  /** The heartbeat's answer; `initial`: the first one of a restart, whose allocation the models are loaded with. */
  onState(state: NodeState, initial = false): void {
    const { session, serving } = this.deps;
    if (session.credential && state.name !== session.credential.name) {
      if (!initial) this.log(`Renamed to ${state.name}`);
      session.credential = { ...session.credential, name: state.name };
      void this.deps.store.write(session.credential).catch(() => undefined);
    }
    if (state.paused !== this.ownerPaused) {
      // The platform also reports the battery pause it was told of; say only what the owner did.
      if (!this.batteryPaused && !this.batteryChanged)
        this.log(state.paused ? 'Paused: this node takes no jobs until it is resumed' : 'Resumed: taking jobs');
      this.ownerPaused = state.paused;
      this.deps.wake();
    }
    if (initial) serving.allocation = state.allocation;
    else if (!sameAllocation(state.allocation, serving.pendingAllocation ?? serving.allocation)) {
      const a = state.allocation;
      this.log(`Allocation changed: CPU ${a.cpu_percent} %, memory ${a.memory_percent} %, GPU ${a.gpu_percent} %, disk ${a.disk_gb} GB`);
      serving.pendingAllocation = sameAllocation(a, serving.allocation) ? null : a;
      this.deps.wake();
    }
    if (state.pool !== undefined) this.deps.pool.assign(state.pool);
    // Too old for the network: say how to update, once, and take no jobs until the platform accepts this version.
    const update = state.update_required?.message ?? null;
    if (update !== this.updateRequired) {
      this.log(update ?? `Version ${AGENT_VERSION} is accepted again: taking jobs`);
      this.updateRequired = update;
      this.deps.wake();
    }
    for (const c of state.challenges ?? []) this.deps.proofs.prove(c);
    const earned = `${state.earned}/${state.pending}`;
    if (earned !== this.earned) {
      const first = this.earned === null;
      this.earned = earned;
      if (!first || state.earned > 0 || state.pending > 0) this.log(`Earned so far: ${glob(state.earned)} (${state.pending} pending)`);
    }
  }
}
