/**
 * The node agent: pairs the machine (once), loads the models its allocation allows, reports in every 5 s and,
 * while not paused, takes jobs from the network and streams their replies back — over HTTP only. Agent composes
 * the parts: the session with the API, the models it serves, the heartbeat, the work loop, model proofs and pools.
 */
import type { Schemas } from './contract';
import type { EngineOptions } from '@glob/engine/llama-engine';
import { type Allocation, DEFAULT_ALLOCATION, sameAllocation } from './allocation';
import type { NodeApi } from './api-client';
import type { BatterySource } from './battery';
import type { OpenBrowser } from './browser';
import type { CredentialStore } from './credential-store';
import { type DeviceCodeShown, joinTokenByDeviceCode } from './device-pairing';
import { Heartbeat } from './heartbeat';
import { JobRunner } from './jobs';
import type { HostFacts, LocalModel } from './machine';
import { ModelProofs } from './model-proofs';
import type { AgentOptions } from './options';
import type { Library, ModelStatus } from './model-library';
import type { Log } from './logging';
import type { PoolMember } from './pool-member';
import { PoolPart } from './pool-part';
import { type Engine, Serving } from './serving';
import { AgentError, EXIT_FAILED, EXIT_REVOKED, isAbort, Session } from './session';
import { WorkLoop } from './work-loop';

export { AGENT_VERSION } from './version';
export type { Engine } from './serving';

export interface AgentDeps {
  options: AgentOptions;
  store: CredentialStore;
  log: Log;
  battery: BatterySource;
  createEngine: (opts: EngineOptions) => Promise<Engine>;
  host: HostFacts;
  /** node-llama-cpp's backend for the machine's GPU (none without one). */
  gpuBackend?: 'cuda' | 'vulkan' | 'metal' | null;
  /** The models directory: verifies and pulls the catalog's models, and says which are ready to load. */
  library: Library;
  /** The ready models' files with their layer counts, reported so a pool can plan its split. */
  poolFiles?: (models: LocalModel[]) => Promise<Schemas['PoolFile'][]>;
  /** The node's part in a pool (none in tests that do not pool). */
  pool?: (onChange: () => void, threads: () => number, models: () => LocalModel[], nodeId: () => string | null) => PoolMember;
  cpuLoad?: () => number | null;
  /** Opens the page where the owner confirms a device code (none: the address is only printed). */
  openBrowser?: OpenBrowser;
  /** The wait between two polls for that confirmation (tests record it instead of waiting). */
  pollWait?: (ms: number, signal: AbortSignal) => Promise<void>;
  fetch?: (request: Request) => Promise<Response>;
  heartbeatMs?: number;
  claimWaitSeconds?: number;
  /**
   * The desktop app: with no API given or stored, the agent waits for the one its panel is given instead of exiting
   * (the headless agent exits asking for --api).
   */
  waitForApi?: (signal: AbortSignal) => Promise<string>;
}

/** What the agent is doing, for the desktop app's tray and panel (a copy: changing it changes nothing). */
export interface AgentSnapshot {
  /** `unpaired`: waiting for an API to pair with; `starting`: models pulled and loaded, pairing, the first heartbeat. */
  stage: 'unpaired' | 'starting' | 'running' | 'stopping';
  /** False while calls to the API fail (the last one did). */
  reachable: boolean;
  api: string | null;
  node: { id: string; name: string } | null;
  /** The code the owner should confirm, while pairing by code waits for it. */
  device: DeviceCodeShown | null;
  pauses: { owner: boolean; battery: boolean; updateRequired: string | null; local: string[] };
  runningJobs: number;
  models: Array<ModelStatus & { serving: boolean }>;
  /** The allocation in force or about to be (null before pairing). */
  allocation: Allocation | null;
  host: HostFacts;
}

const short = (id: string): string => `${id.slice(0, 4)}…`;

export class Agent {
  private readonly log: Log;
  private readonly session: Session;
  private readonly serving: Serving;
  private readonly pool: PoolPart;
  private readonly heartbeat: Heartbeat;
  private readonly loop: WorkLoop;
  private exitCode = 0;
  private stage: 'unpaired' | 'starting' | 'running' = 'starting';
  private api: string | null;
  private device: DeviceCodeShown | null = null;
  /** Pauses of this machine's own (the desktop app's sharing switch, idle-only sharing), by key, with their reasons. */
  private readonly localPauses = new Map<string, string>();

  constructor(private readonly deps: AgentDeps) {
    this.log = deps.log;
    this.api = deps.options.api ?? null;
    const session = new Session(deps.log);
    const fail = (err: unknown) => this.fail(err);
    const serving = new Serving({
      session,
      options: deps.options,
      host: deps.host,
      gpuBackend: deps.gpuBackend,
      createEngine: deps.createEngine,
      library: deps.library,
      poolFiles: deps.poolFiles,
      pooled: () => this.pool.serving(),
    });
    this.session = session;
    this.serving = serving;
    // The pool part started or stopped, or its tunnel opened: the work loop looks again at what it can claim, and the
    // API hears of it now.
    const onPoolChange = () => {
      this.loop.wake();
      this.heartbeat.hurry();
    };
    const member = deps.pool?.(
      onPoolChange,
      () => serving.engineConfig?.threads ?? 1,
      () => serving.models,
      () => session.credential?.node_id ?? null,
    );
    this.pool = new PoolPart(member ?? null, fail);
    const proofs = new ModelProofs({ log: deps.log, serving, report: () => this.heartbeat.report(), fail });
    this.heartbeat = new Heartbeat({
      session,
      store: deps.store,
      battery: deps.battery,
      cpuLoad: deps.cpuLoad,
      intervalMs: deps.heartbeatMs,
      serving,
      pool: this.pool,
      proofs,
      runningJobs: () => this.loop.running,
      wake: () => this.loop.wake(),
      fail,
    });
    const runner = new JobRunner({ session, serving, giveBack: (jobId) => this.loop.giveBack(jobId) });
    this.loop = new WorkLoop({
      session,
      serving,
      run: (job, running) => runner.run(job, running),
      paused: () => this.heartbeat.paused || this.localPauses.size > 0,
      report: () => this.heartbeat.report(),
      fail,
      claimWaitSeconds: deps.claimWaitSeconds,
    });
  }

  /** Runs until stop() or revocation; resolves with the process's exit code. */
  async run(): Promise<number> {
    try {
      await this.start();
      await this.loop.run();
    } catch (err) {
      if (!this.session.signal.aborted || !isAbort(err)) {
        if (err instanceof AgentError) {
          this.log(err.message);
          this.exitCode = err.exitCode;
        } else throw err;
      }
    } finally {
      await this.shutdown();
    }
    if (this.exitCode === EXIT_REVOKED && this.session.credential) {
      // A revoked credential is useless: set it aside, so the next run pairs with a new join token.
      await this.deps.store.discard().catch(() => undefined);
    }
    return this.exitCode;
  }

  /** Ctrl-C: stop claiming, abort the running generations, give their jobs back. */
  stop(): void {
    if (this.session.signal.aborted) return;
    this.log('Stopping…');
    this.session.stopping.abort();
    this.loop.interrupt('shutdown');
    this.loop.wake();
  }

  /**
   * Pauses (a reason) or resumes (null) claiming for a local cause, `key` naming it (`sharing`, `idle`); the running
   * jobs finish. The platform is not told: the desktop app sends its own pause where the owner's switch should show.
   */
  setLocalPause(key: string, reason: string | null): void {
    if ((this.localPauses.get(key) ?? null) === reason) return;
    if (reason === null) this.localPauses.delete(key);
    else this.localPauses.set(key, reason);
    this.log(reason === null ? `Resumed (${key})` : `Paused: ${reason}`);
    this.loop.wake();
  }

  /** A heartbeat at once, so a change made on the platform (a pause, an allocation) applies now. */
  refresh(): void {
    this.heartbeat.hurry();
  }

  /** One call to the API with the node credential (the desktop app's panel); null when the API cannot be reached. */
  async callPlatform<T extends { response: Response }>(fn: (api: NodeApi, signal: AbortSignal) => Promise<T>): Promise<T | null> {
    if (!this.session.credential) throw new AgentError('This computer is not paired yet.');
    return this.session.conn.call((signal) => fn(this.session.api, signal), { signal: this.session.signal, retry: false });
  }

  snapshot(): AgentSnapshot {
    const { session, serving, heartbeat } = this;
    const served = serving.servedModels();
    const models =
      this.deps.library.status?.() ?? serving.models.map((m): ModelStatus => ({ id: m.id, state: 'ready', bytes: m.bytes, total_bytes: m.bytes }));
    const c = session.credential;
    return {
      stage: session.signal.aborted ? 'stopping' : this.stage,
      reachable: session.conn.reachable,
      api: this.api,
      node: c ? { id: c.node_id, name: c.name } : null,
      device: this.device,
      pauses: { ...heartbeat.pauses, local: [...this.localPauses.values()] },
      runningJobs: this.loop.running,
      models: models.map((m) => ({ ...m, serving: served.includes(m.id) })),
      allocation: c ? { ...(serving.pendingAllocation ?? serving.allocation) } : null,
      host: this.deps.host,
    };
  }

  // --- start-up ---------------------------------------------------------------------------------------

  private async start(): Promise<void> {
    const { options, store } = this.deps;
    const { session, serving, heartbeat } = this;
    const stored = await store.read();
    let api = options.api ?? stored?.api;
    if (!api && this.deps.waitForApi) {
      this.stage = 'unpaired';
      api = await this.deps.waitForApi(this.session.signal);
      this.stage = 'starting';
    }
    this.api = api ?? null;
    if (!api) {
      throw new AgentError(
        'This machine is not paired yet. Run: npx glob-node --api <url>, then confirm the code it shows in the web app (or add --join-token <token>, created in the web app under "Your nodes").',
      );
    }
    session.connect(api, this.deps.fetch);
    const samePlace = stored && (!options.api || stored.api === options.api);
    if (stored && (samePlace || !options.joinToken)) {
      session.credential = { ...stored, api };
      if (options.joinToken) this.log(`Already paired as ${stored.name} (node ${short(stored.node_id)}); ignoring --join-token`);
      this.log(`Starting node ${stored.name} (node ${short(stored.node_id)}) on ${api}`);
      // The first heartbeat (no models yet) brings the allocation the models are loaded with.
      const state = await heartbeat.send({ retry: true });
      if (state) heartbeat.onState(state, true);
      await serving.syncModels(serving.allocation);
      serving.assertModels();
      await serving.apply(serving.allocation);
      if (stored.api !== api) await store.write(session.credential);
    } else {
      // Paired elsewhere, asked for another API with a join token; or not paired at all: with a join token, or by a
      // device code confirmed in the web app once the models are ready (the join token a confirmation brings is
      // valid 15 minutes, so it is asked for only when registering can follow at once).
      await serving.syncModels(DEFAULT_ALLOCATION);
      serving.assertModels();
      await serving.apply(DEFAULT_ALLOCATION);
      const joinToken =
        options.joinToken ??
        (await joinTokenByDeviceCode({
          session,
          log: this.log,
          name: options.name,
          host: this.deps.host,
          openBrowser: options.noBrowser ? null : (this.deps.openBrowser ?? null),
          wait: this.deps.pollWait,
          onCode: (code) => (this.device = code),
        }));
      await this.pair(api, joinToken);
    }
    const state = await heartbeat.send({ retry: true });
    if (state) heartbeat.onState(state);
    heartbeat.schedule();
    this.stage = 'running';
  }

  private async pair(api: string, joinToken: string): Promise<void> {
    const { session, serving } = this;
    const engine = serving.engine!;
    const first = serving.loaded[0];
    if (!first) throw new AgentError('No model could be loaded, so there is nothing to serve; see the messages above.');
    this.log(`Benchmarking ${first}…`);
    const { tokensPerSecond } = await engine.benchmark(first, 64);
    this.log(`Benchmark: ${tokensPerSecond} tokens/s on ${first}`);
    const res = await session.conn.call(
      (signal) =>
        session.api.POST('/api/nodes/register', {
          body: {
            join_token: joinToken,
            name: this.deps.options.name,
            host: this.deps.host,
            models: serving.models.map((m) => m.id),
            benchmark: { model_id: first, tokens_per_second: tokensPerSecond },
          },
          signal,
        }),
      { signal: session.signal },
    );
    if (!res.data) {
      const message = (res.error as { message?: string } | undefined)?.message ?? res.response.statusText;
      throw new AgentError(`Pairing failed (${res.response.status}): ${message}`, res.response.status === 401 ? EXIT_REVOKED : EXIT_FAILED);
    }
    const c = res.data;
    session.credential = { api, node_id: c.node_id, credential: c.credential, name: c.name };
    await this.deps.store.write(session.credential);
    this.log(`Paired as ${c.name} (node ${short(c.node_id)}); credential stored in ${this.deps.store.path}`);
    if (!sameAllocation(c.allocation, serving.allocation)) serving.pendingAllocation = c.allocation;
  }

  // --- shutdown ---------------------------------------------------------------------------------------

  private fail(err: unknown): void {
    // A call cut short because the agent is stopping.
    if (this.session.signal.aborted && isAbort(err)) return;
    if (err instanceof AgentError) {
      this.log(err.message);
      this.exitCode = err.exitCode;
    } else {
      this.log(`Unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.exitCode = EXIT_FAILED;
    }
    this.session.stopping.abort();
    this.loop.interrupt(err instanceof AgentError && err.exitCode === EXIT_REVOKED ? 'revoked' : 'shutdown');
    this.loop.wake();
  }

  private async shutdown(): Promise<void> {
    this.session.stopping.abort();
    this.heartbeat.cancel();
    await this.loop.finish();
    await this.heartbeat.settled();
    await this.pool.close();
    await this.serving.dispose();
  }
}
