/**
 * The desktop app (`glob-node desktop`): the node agent's serving loop, its control panel (panel-server.ts) opened
 * as an app window of the browser, a tray icon, idle-only sharing and the start at login. The agent runs as it does
 * headless; the app adds local pauses (the sharing switch, idle-only), pairing from the panel, and starts the agent
 * again when it stops on its own (a revoked node pairs anew). Quit returns the running jobs, then exits.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from '../agent';
import type { NodeApi } from '../api-client';
import type { OpenBrowser } from '../browser';
import type { Schemas } from '../contract';
import type { Log } from '../logging';
import { RESTART_FOR_UPDATE } from '../launcher/bundle';
import { AgentError, EXIT_REVOKED, isAbort } from '../session';
import { idlePauseReason, type IdleSource } from './idle';
import type { PanelState } from './panel-api';
import { type PanelBackend, PanelHttpError, type PanelServer, startPanelServer } from './panel-server';
import { type DesktopSettings, type SettingsStore } from './settings';
import { acquireInstance, type SingleInstanceDeps } from './single-instance';
import { panelState, SHARING_OFF } from './state';
import { Tray, type TrayAction, trayMenu } from './tray';
import type { Updater } from './updater';

/** What the app needs of an agent (Agent; a fake in tests). */
export type DesktopAgent = Pick<Agent, 'run' | 'stop' | 'snapshot' | 'setLocalPause' | 'refresh' | 'callPlatform'>;

/** What the app needs of its updater (Updater; a fake in tests). */
export type DesktopUpdater = Pick<Updater, 'check' | 'snapshot' | 'ready'>;

/** Updates are looked for at start and then daily. */
export const UPDATE_CHECK_MS = 24 * 3600_000;
/** While the platform refuses this version, a new release is looked for this often. */
const REQUIRED_UPDATE_CHECK_MS = 10 * 60_000;

export interface Autostart {
  enable(): Promise<boolean>;
  disable(): Promise<void>;
}

export interface DesktopDeps {
  log: Log;
  dataDir: string;
  /** The API given with --api, if any. */
  api: string | undefined;
  /** A new agent for one run; `waitForApi` resolves with the API the panel is given when none is known. */
  createAgent: (hooks: { waitForApi: (signal: AbortSignal) => Promise<string>; apiUrl: () => string }) => DesktopAgent;
  settings: SettingsStore;
  idle: IdleSource;
  /** Opens the panel (an app window where it can). */
  openPanel: OpenBrowser;
  /** Only print the panel's address. */
  noBrowser: boolean;
  tray: boolean;
  autostart: Autostart;
  panelDir: string;
  panelPort?: number;
  instance?: SingleInstanceDeps;
  idlePollMs?: number;
  /** After the agent stops on its own (not revoked), the wait before it starts again. */
  restartMs?: number;
  /** This app's version. */
  version: string;
  /** The installed app's updates; null when this copy does not update itself (npm, a container). */
  updater?: DesktopUpdater | null;
  /** Written once the app runs, for the launcher that started it (its sign that this version starts). */
  startedFile?: string | null;
}

export class DesktopApp {
  private readonly log: Log;
  private settings!: DesktopSettings;
  private agent!: DesktopAgent;
  private idleSeconds: number | null = null;
  private problem: string | null = null;
  /** The platform should hear of the sharing switch (an earlier attempt found it unreachable, or not paired yet). */
  private pauseToSend: boolean | null = null;
  /** What the app last wanted the platform's pause to be (it starts as the platform's own: not paused by the app). */
  private platformPaused = false;
  private apiWaiter: ((api: string) => void) | null = null;
  private readonly quitting = new AbortController();
  private tray: Tray | null = null;
  private server: PanelServer | null = null;
  private exitCode = 0;
  private lastUpdateCheck = 0;

  constructor(private readonly deps: DesktopDeps) {
    this.log = deps.log;
  }

  /** Runs until Quit; resolves with the exit code (0; 1 when the panel cannot start). */
  async run(): Promise<number> {
    const { deps } = this;
    const read = await deps.settings.read();
    this.settings = read.settings;
    if (read.firstRun) await this.saveSettings();
    this.agent = this.newAgent();

    this.server = await startPanelServer({ backend: this.backend(), panelDir: deps.panelDir, port: deps.panelPort ?? 0 });
    const lock = await acquireInstance(deps.dataDir, { pid: process.pid, port: this.server.port, secret: this.server.secret }, deps.instance);
    if (lock.kind === 'running') {
      this.log(`Glob Network is already running (process ${lock.pid}): opening its panel`);
      this.open(lock.url);
      await this.server.close();
      return 0;
    }
    try {
      if (deps.startedFile) await writeFile(deps.startedFile, `${process.pid}\n`).catch((err: unknown) => this.log(`Launcher: ${message(err)}`));
      await this.applyAutostart(this.settings.start_at_login).catch((err: unknown) => this.log(`Start at login: ${message(err)}`));
      // The node starts at once; the tray (which may take seconds to fail) and the browser come beside it.
      const agents = this.runAgents();
      if (deps.tray) {
        this.tray = await Tray.start({
          menu: trayMenu(this.state(), this.settings.start_at_login),
          onAction: (a) => this.onTray(a),
          log: this.log,
          cacheDir: join(this.deps.dataDir, 'tray'),
        });
      } else this.log('No tray icon (--no-tray)');
      this.log(`Control panel: ${this.server.url}`);
      this.open(this.server.url);
      const timers = this.startTimers();
      try {
        await agents;
      } finally {
        timers.forEach((t) => clearInterval(t));
      }
    } finally {
      await this.tray?.close();
      await this.server.close();
      await lock.release().catch(() => undefined);
    }
    return this.exitCode;
  }

  /** Tray Quit, POST /local/quit, Ctrl-C: the agent returns its jobs and stops; run() then resolves. */
  quit(): void {
    if (this.quitting.signal.aborted) return;
    this.log('Quitting…');
    this.quitting.abort();
    this.agent?.stop();
  }

  /** "Restart to update": the agent returns its jobs and stops, then the launcher starts the downloaded version. */
  restartForUpdate(): void {
    if (!this.deps.updater?.ready) throw new PanelHttpError(409, 'No update is ready to install');
    this.log(`Restarting to update to ${this.deps.updater.snapshot().version}…`);
    this.exitCode = RESTART_FOR_UPDATE;
    this.quit();
  }

  /** The state the panel and the tray show. */
  state(): PanelState {
    return {
      ...panelState({
        agent: this.agent.snapshot(),
        settings: this.settings,
        idleSeconds: this.idleSeconds,
        api: this.deps.api ?? this.settings.api,
        update: this.deps.updater?.snapshot() ?? null,
        version: this.deps.version,
      }),
      problem: this.problem,
    };
  }

  // --- the agent ---------------------------------------------------------------------------------------

  private newAgent(): DesktopAgent {
    const agent = this.deps.createAgent({
      waitForApi: (signal) =>
        new Promise<string>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          this.apiWaiter = resolve;
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }).finally(() => (this.apiWaiter = null)),
      apiUrl: () => agent.snapshot().api ?? 'http://localhost',
    });
    this.applyPauses(agent);
    return agent;
  }

  /**
   * The sharing switch and idle-only sharing, here (no claims) and on the platform: both are the owner's pause there,
   * so the platform offers this computer's models, and queues replies for them, only while it takes jobs.
   */
  private applyPauses(agent = this.agent): void {
    const idle = idlePauseReason(this.settings.idle_only, this.idleSeconds);
    agent.setLocalPause('sharing', this.settings.sharing ? null : SHARING_OFF);
    agent.setLocalPause('idle', idle);
    const paused = !this.settings.sharing || idle !== null;
    // Sent on a change only: a pause the owner set in the web app stays until the app itself changes its mind.
    if (paused !== this.platformPaused) {
      this.platformPaused = paused;
      this.pauseToSend = paused;
    }
  }

  /** Sends a pause the platform has not heard of yet, when paired; an unreachable platform hears of it at a later tick. */
  private async sendPendingPause(): Promise<void> {
    if (this.pauseToSend === null || !this.agent.snapshot().node) return;
    await this.sendPause(this.pauseToSend).catch((err: unknown) => {
      if (!(err instanceof PanelHttpError && err.statusCode === 503)) throw err;
    });
  }

  /** One agent after another until Quit: one that stops on its own is started again (a revoked one pairs anew). */
  private async runAgents(): Promise<void> {
    while (!this.quitting.signal.aborted) {
      let code: number;
      try {
        code = await this.agent.run();
      } catch (err) {
        this.log(`The node stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        code = 1;
      }
      if (this.quitting.signal.aborted) return;
      const revoked = code === EXIT_REVOKED;
      this.problem = revoked
        ? 'This computer was removed from your nodes (or its pairing was refused): pair it again from here.'
        : 'The node stopped (see the log); it starts again in a minute.';
      if (!revoked) {
        try {
          await sleep(this.deps.restartMs ?? 60_000, undefined, { signal: this.quitting.signal });
        } catch {
          return;
        }
      }
      this.agent = this.newAgent();
      this.problem = revoked ? this.problem : null;
    }
  }

  private startTimers(): NodeJS.Timeout[] {
    const tick = () => void this.tick().catch((err: unknown) => this.log(`Desktop: ${message(err)}`));
    tick();
    const idle = setInterval(tick, this.deps.idlePollMs ?? 10_000);
    // The tray shows changes within a second; update() sends nothing when the menu is the same.
    const tray = setInterval(() => this.tray?.update(trayMenu(this.state(), this.settings.start_at_login)), 1_000);
    const updates = setInterval(() => this.checkForUpdate(), UPDATE_CHECK_MS);
    return [idle, tray, updates];
  }

  /** Looks for a newer release (at start, daily, often while the platform refuses this version); logged, never thrown. */
  private checkForUpdate(): void {
    if (!this.deps.updater) return;
    this.lastUpdateCheck = Date.now();
    this.deps.updater.check().catch((err: unknown) => this.log(`Update: ${message(err)}`));
  }

  /** Reads the idle time and applies idle-only sharing; sends a sharing switch the platform has not heard of yet. */
  private async tick(): Promise<void> {
    this.idleSeconds = await this.deps.idle();
    this.applyPauses();
    await this.sendPendingPause().catch(() => undefined);
    await this.followRequiredUpdate();
  }

  /**
   * The platform takes no jobs from this version (its minimum agent version): the release it names is looked for at
   * once rather than the next day, and applied as soon as it is verified, since this version earns nothing meanwhile.
   */
  private async followRequiredUpdate(): Promise<void> {
    const { updater } = this.deps;
    if (!updater) return;
    const first = this.lastUpdateCheck === 0;
    const required = this.agent.snapshot().pauses.updateRequired !== null;
    if (first || (required && !updater.ready && Date.now() - this.lastUpdateCheck > REQUIRED_UPDATE_CHECK_MS)) this.checkForUpdate();
    if (required && updater.ready && !this.quitting.signal.aborted) this.restartForUpdate();
  }

  // --- what the panel and the tray do ------------------------------------------------------------------

  private backend(): PanelBackend {
    return {
      state: () => this.state(),
      platform: () => this.platform((api, signal) => api.GET('/api/nodes/self', { signal })),
      setSharing: (on) => this.setSharing(on),
      setAllocation: async (allocation) => {
        await this.platform((api, signal) => api.PATCH('/api/nodes/self', { body: { allocation }, signal }));
        this.agent.refresh();
      },
      setIdleOnly: async (idleOnly) => {
        if (idleOnly.enabled) {
          this.idleSeconds = await this.deps.idle();
          if (this.idleSeconds === null)
            throw new PanelHttpError(409, 'This computer does not say how long it has been idle, so sharing cannot wait for it');
        }
        this.settings.idle_only = idleOnly;
        await this.saveSettings();
        this.applyPauses();
        await this.sendPendingPause();
      },
      setStartAtLogin: (enabled) => this.setStartAtLogin(enabled),
      pair: (api) => this.pair(api),
      createPool: (body) => this.platform((a, signal) => a.POST('/api/nodes/self/pools', { body, signal })) as Promise<Schemas['Pool']>,
      checkUpdate: async () => {
        if (!this.deps.updater) throw new PanelHttpError(409, 'This copy of the app is updated with npm or its container image, not from here');
        this.lastUpdateCheck = Date.now();
        await this.deps.updater.check();
      },
      restartToUpdate: () => this.restartForUpdate(),
      leavePool: async (poolId) => {
        await this.platform((a, signal) => a.DELETE('/api/nodes/self/pools/{poolId}', { params: { path: { poolId } }, signal }));
        this.agent.refresh();
      },
      quit: () => this.quit(),
    };
  }

  private async setSharing(on: boolean): Promise<void> {
    if (this.settings.sharing !== on) {
      this.settings.sharing = on;
      await this.saveSettings();
    }
    this.applyPauses();
    // Before pairing the platform has no node to pause, and an unreachable one hears of it later (tick): either way the
    // switch is sent once it can be.
    await this.sendPendingPause();
  }

  /** The platform hears of the switch as the owner's pause (the web app shows it); unreachable: sent again later. */
  private async sendPause(paused: boolean): Promise<void> {
    try {
      await this.platform((api, signal) => api.PATCH('/api/nodes/self', { body: { paused }, signal }));
      if (this.pauseToSend === paused) this.pauseToSend = null;
      this.agent.refresh();
    } catch (err) {
      // A platform that refuses (409: suspended) has said its word; one that cannot be reached hears it later.
      if (err instanceof PanelHttpError && err.statusCode !== 503) this.pauseToSend = null;
      throw err;
    }
  }

  private async setStartAtLogin(enabled: boolean): Promise<void> {
    try {
      await this.applyAutostart(enabled);
    } catch (err) {
      throw new PanelHttpError(500, `Could not ${enabled ? 'add' : 'remove'} the start at login: ${message(err)}`);
    }
    this.settings.start_at_login = enabled;
    await this.saveSettings();
  }

  private async applyAutostart(enabled: boolean): Promise<void> {
    if (!enabled) return this.deps.autostart.disable();
    if (!(await this.deps.autostart.enable())) this.log('Start at login is not supported on this system');
  }

  private async pair(given: string | undefined): Promise<void> {
    const s = this.agent.snapshot();
    if (s.node) throw new PanelHttpError(409, `Already paired as ${s.node.name}`);
    if (s.stage !== 'unpaired' || !this.apiWaiter) throw new PanelHttpError(409, 'Pairing has already started');
    const api = given ?? this.settings.api;
    if (!api) throw new PanelHttpError(400, 'The platform’s address is needed (api), such as https://globnetwork.io');
    this.settings.api = api;
    await this.saveSettings();
    this.problem = null;
    this.apiWaiter(api);
  }

  /** One call to the platform for the panel: its answer's data, or its error as the panel's. */
  private async platform<T extends { data?: unknown; error?: unknown; response: Response }>(
    fn: (api: NodeApi, signal: AbortSignal) => Promise<T>,
  ): Promise<NonNullable<T['data']>> {
    if (!this.agent.snapshot().node) throw new PanelHttpError(409, 'This computer is not paired yet');
    let res: T | null;
    try {
      res = await this.agent.callPlatform(fn);
    } catch (err) {
      if (err instanceof AgentError) throw new PanelHttpError(409, err.message);
      if (isAbort(err)) throw new PanelHttpError(503, 'The node is stopping');
      throw err;
    }
    if (!res) throw new PanelHttpError(503, 'The platform cannot be reached; try again in a moment');
    if (!res.response.ok) {
      const msg = (res.error as { message?: string } | undefined)?.message ?? res.response.statusText;
      throw new PanelHttpError(res.response.status, msg);
    }
    return res.data as NonNullable<T['data']>;
  }

  private onTray(action: TrayAction): void {
    const report = (err: unknown) => this.log(`${message(err)}`);
    if (action === 'open') this.open(this.server!.url);
    else if (action === 'sharing') this.setSharing(!this.settings.sharing).catch(report);
    else if (action === 'start-at-login') this.setStartAtLogin(!this.settings.start_at_login).catch(report);
    else if (action === 'restart-update') {
      try {
        this.restartForUpdate();
      } catch (err) {
        report(err);
      }
    } else this.quit();
  }

  private open(url: string): void {
    if (this.deps.noBrowser) this.log(`Open ${url} in your browser to see the control panel`);
    else this.deps.openPanel(url);
  }

  private saveSettings(): Promise<void> {
    return this.deps.settings.write(this.settings);
  }
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
