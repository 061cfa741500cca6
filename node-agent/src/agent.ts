/**
 * The node agent: pairs the machine (once), loads the models its allocation allows, reports in every 5 s and,
 * while not paused, takes jobs from the network and streams their replies back — over HTTP only.
 */
import packageJson from '../package.json';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Schemas } from './contract';
import { hashRanges } from '@glob/engine/file-proof';
import { formatBytes } from '@glob/engine/bytes';
import { sequenceMemory } from '@glob/engine/memory';
import type { EngineOptions, LlamaEngine } from '@glob/engine/llama-engine';
import { generateReply } from '@glob/engine/generation';
import { encodeCommitment, encodeSteps } from '@glob/engine/commitment';
import { VERIFY_TOP } from '@glob/engine/verification';
import { type Allocation, DEFAULT_ALLOCATION, type Machine, type Plan, plan, sameAllocation } from './allocation';
import { Backoff, Connection, createNodeApi, type NodeApi } from './api-client';
import { type BatterySource, type BatteryState, batteryPause, batteryPercent } from './battery';
import type { CredentialStore, StoredCredential } from './credential-store';
import { EventSender, type NodeJobEvent, type SendResult } from './job-events';
import type { HostFacts, LocalModel } from './machine';
import type { AgentOptions } from './options';
import { type LlamaServer, POOL_SLOTS } from './llama-server';
import type { Library } from './model-library';
import { jobFields, type Log } from './logging';
import type { PoolMember } from './pool-member';

/** The longest a generated piece waits before it is sent to the API with the pieces after it. */
const EVENT_BATCH_MS = 50;
/** This agent's version, reported in every heartbeat: the platform may require a newer one. */
export const AGENT_VERSION = packageJson.version;

/** The engine calls the agent makes (LlamaEngine; a fake in tests). */
export type Engine = Pick<LlamaEngine, 'load' | 'unload' | 'loadedModels' | 'isLoaded' | 'generate' | 'benchmark' | 'dispose' | 'capacity'> &
  Partial<Pick<LlamaEngine, 'embed' | 'recompute'>>;

type NodeJob = Schemas['NodeJob'];
type NodeState = Schemas['NodeState'];
type ModelChallenge = Schemas['ModelChallenge'];
type StopReason = Extract<NodeJobEvent, { type: 'done' }>['stop_reason'];

/** Exit codes: 0 stopped (Ctrl-C), 1 cannot start, 2 revoked (or the join token was refused). */
export const EXIT_REVOKED = 2;
export const EXIT_FAILED = 1;

export class AgentError extends Error {
  override readonly name = 'AgentError';
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
  }
}

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
  fetch?: (request: Request) => Promise<Response>;
  heartbeatMs?: number;
  claimWaitSeconds?: number;
}

interface RunningJob {
  id: string;
  abort: AbortController;
  sender: EventSender;
  /** Why generation was cut short, if it was. */
  reason: 'stop' | 'lost' | 'shutdown' | 'revoked' | null;
  done: Promise<void>;
}

/** An abort (of a call or a wait); DOMException is not always an Error of this realm, so by name. */
const isAbort = (err: unknown): boolean => (err as { name?: unknown } | null)?.name === 'AbortError';
const short = (id: string): string => `${id.slice(0, 4)}…`;
const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`;
const glob = (n: number): string => `${Math.round(n * 1000) / 1000} GLOB`;

export class Agent {
  private readonly log: Log;
  private readonly conn: Connection;
  private readonly stopping = new AbortController();
  private api!: NodeApi;
  private credential: StoredCredential | null = null;
  private engine: Engine | null = null;
  private engineConfig: { threads: number; gpu: boolean; gpuShare: number } | null = null;
  private loaded: string[] = [];
  private allocation: Allocation = DEFAULT_ALLOCATION;
  private pendingAllocation: Allocation | null = null;
  private ownerPaused = false;
  private batteryPaused = false;
  /** What the platform said when it found this agent too old to take jobs; null while it accepts it. */
  private updateRequired: string | null = null;
  private battery: BatteryState | null = null;
  /** The last battery reading changed the pause (its log says so; the platform's echo of it needs no second line). */
  private batteryChanged = false;
  private earned: string | null = null;
  /** Answers to the platform's model challenges, sent with the next heartbeat; and the challenges being answered. */
  private proofs: Schemas['ModelProof'][] = [];
  private readonly proving = new Set<string>();
  /** The jobs running now, at most jobSlots(): several replies are generated at once, batched in one context per model. */
  private readonly jobs = new Map<string, RunningJob>();
  /** The jobs held when the agent was told to stop: they are given back on the way out. */
  private readonly interrupted: RunningJob[] = [];
  private exitCode = 0;
  private wake: (() => void) | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeatRunning: Promise<void> | null = null;
  /** Something the API should hear of at once changed: the next scheduled heartbeat goes out without waiting. */
  private heartbeatSoon = false;
  private readonly machine: Machine;
  /** The network's catalog as last read, and the models of it ready here (verified, on disk) with their pool facts. */
  private catalog: Schemas['NodeCatalogModel'][] = [];
  private models: LocalModel[] = [];
  private files: Schemas['PoolFile'][] = [];
  private pool: PoolMember | null = null;
  /** Pool assignments are applied one after another, off the heartbeat's path (loading a split model takes a while). */
  private poolApplying: Promise<void> = Promise.resolve();

  constructor(private readonly deps: AgentDeps) {
    this.log = deps.log;
    this.conn = new Connection(deps.log);
    this.machine = { cores: deps.host.cpu_cores, memoryBytes: deps.host.memory_bytes, gpu: deps.host.gpu ?? null };
  }

  /** Runs until stop() or revocation; resolves with the process's exit code. */
  async run(): Promise<number> {
    try {
      await this.start();
      await this.workLoop();
    } catch (err) {
      if (!this.stopping.signal.aborted || !isAbort(err)) {
        if (err instanceof AgentError) {
          this.log(err.message);
          this.exitCode = err.exitCode;
        } else throw err;
      }
    } finally {
      await this.shutdown();
    }
    if (this.exitCode === EXIT_REVOKED && this.credential) {
      // A revoked credential is useless: set it aside, so the next run pairs with a new join token.
      await this.deps.store.discard().catch(() => undefined);
    }
    return this.exitCode;
  }

  /** Ctrl-C: stop claiming, abort the running generations, give their jobs back. */
  stop(): void {
    if (this.stopping.signal.aborted) return;
    this.log('Stopping…');
    this.stopping.abort();
    this.interrupt('shutdown');
    this.wake?.();
  }

  private interrupt(reason: 'shutdown' | 'revoked'): void {
    for (const job of this.jobs.values()) {
      if (this.interrupted.includes(job)) continue;
      job.reason ??= reason;
      void job.sender.close();
      job.abort.abort();
      this.interrupted.push(job);
    }
  }

  // --- start-up ---------------------------------------------------------------------------------------

  private async start(): Promise<void> {
    const { options, store } = this.deps;
    const stored = await store.read();
    const api = options.api ?? stored?.api;
    if (!api) {
      throw new AgentError(
        'This machine is not paired yet. Run: npx glob-node --api <url> --join-token <token> (create the token in the web app, under "Your nodes").',
      );
    }
    this.api = createNodeApi(api, () => this.credential?.credential, this.deps.fetch);
    if (this.deps.pool) {
      this.pool = this.deps.pool(
        () => this.onPoolChange(),
        () => this.engineConfig?.threads ?? 1,
        () => this.models,
        () => this.credential?.node_id ?? null,
      );
    }
    const samePlace = stored && (!options.api || stored.api === options.api);
    if (stored && (samePlace || !options.joinToken)) {
      this.credential = { ...stored, api };
      if (options.joinToken) this.log(`Already paired as ${stored.name} (node ${short(stored.node_id)}); ignoring --join-token`);
      this.log(`Starting node ${stored.name} (node ${short(stored.node_id)}) on ${api}`);
      // The first heartbeat (no models yet) brings the allocation the models are loaded with.
      const state = await this.heartbeat({ retry: true });
      if (state) this.onState(state, true);
      await this.syncModels(this.allocation);
      this.assertModels();
      await this.apply(this.allocation);
      if (stored.api !== api) await store.write(this.credential);
    } else {
      if (!options.joinToken) throw new AgentError(`This node is paired with ${stored!.api}: pass --join-token to pair it with ${api}.`);
      await this.syncModels(DEFAULT_ALLOCATION);
      this.assertModels();
      await this.apply(DEFAULT_ALLOCATION);
      await this.pair(api, options.joinToken);
    }
    const state = await this.heartbeat({ retry: true });
    if (state) this.onState(state);
    this.scheduleHeartbeat();
  }

  private assertModels(): void {
    if (this.models.length > 0) return;
    throw new AgentError(
      `No catalog model is in ${this.deps.options.modelsDir} or could be pulled into it; see the messages above (a larger memory or disk allocation, set in the web app, may let one in).`,
    );
  }

  private async pair(api: string, joinToken: string): Promise<void> {
    const engine = this.engine!;
    const first = this.loaded[0];
    if (!first) throw new AgentError('No model could be loaded, so there is nothing to serve; see the messages above.');
    this.log(`Benchmarking ${first}…`);
    const { tokensPerSecond } = await engine.benchmark(first, 64);
    this.log(`Benchmark: ${tokensPerSecond} tokens/s on ${first}`);
    const res = await this.conn.call(
      (signal) =>
        this.api.POST('/api/nodes/register', {
          body: {
            join_token: joinToken,
            name: this.deps.options.name,
            host: this.deps.host,
            models: this.models.map((m) => m.id),
            benchmark: { model_id: first, tokens_per_second: tokensPerSecond },
          },
          signal,
        }),
      { signal: this.stopping.signal },
    );
    if (!res.data) {
      const message = (res.error as { message?: string } | undefined)?.message ?? res.response.statusText;
      throw new AgentError(`Pairing failed (${res.response.status}): ${message}`, res.response.status === 401 ? EXIT_REVOKED : EXIT_FAILED);
    }
    const c = res.data;
    this.credential = { api, node_id: c.node_id, credential: c.credential, name: c.name };
    await this.deps.store.write(this.credential);
    this.log(`Paired as ${c.name} (node ${short(c.node_id)}); credential stored in ${this.deps.store.path}`);
    if (!sameAllocation(c.allocation, this.allocation)) this.pendingAllocation = c.allocation;
  }

  // --- models and allocation -------------------------------------------------------------------------

  /** Reads the network's catalog, then lets the library verify and pull what `allocation` allows. */
  private async syncModels(allocation: Allocation): Promise<void> {
    const res = await this.conn.call((signal) => this.api.GET('/api/nodes/catalog', { signal }), { signal: this.stopping.signal });
    const wanted = this.deps.options.models;
    if (res.data) {
      this.catalog = wanted ? res.data.models.filter((m) => wanted.includes(m.id)) : res.data.models;
      for (const id of wanted ?? []) if (!this.catalog.some((m) => m.id === id)) this.log(`${id} is not in the network's catalog`);
    } else this.log(`Could not read the network's catalog (${res.response.status}): serving the models already verified here`);
    this.models = await this.deps.library.sync(this.catalog, allocation, this.machine.memoryBytes, this.stopping.signal);
    this.files = (await this.deps.poolFiles?.(this.models)) ?? [];
  }

  /** Loads what the allocation allows; a new engine when threads or GPU use change. Only between jobs. */
  private async apply(allocation: Allocation): Promise<void> {
    this.allocation = allocation;
    this.pendingAllocation = null;
    const p: Plan = plan(allocation, this.machine, this.models, this.deps.options.threads);
    const wantGpu = p.gpu && this.deps.options.gpu !== 'off';
    // Offloaded layers are fixed when a model loads, so a new GPU share reloads like new threads do.
    const gpuShare = wantGpu ? p.gpuShare : 0;
    if (!this.engine || this.engineConfig?.threads !== p.threads || this.engineConfig.gpu !== wantGpu || this.engineConfig.gpuShare !== gpuShare) {
      const old = this.engine;
      this.engine = null;
      this.loaded = [];
      await old?.dispose();
      this.engine = await this.deps.createEngine({ threads: p.threads, gpu: wantGpu });
      this.engineConfig = { threads: p.threads, gpu: wantGpu, gpuShare };
    }
    const engine = this.engine;
    for (const s of p.skipped) this.log(`Skipping ${s.model.id}: ${s.reason}`);
    const keep = new Set(p.load.map((m) => m.id));
    for (const id of this.loaded.filter((i) => !keep.has(i))) {
      await engine.unload(id);
      this.log(`Unloaded ${id}`);
    }
    this.loaded = this.loaded.filter((i) => keep.has(i));
    // Replies at once: --parallel, or as many sequences as the memory allocation has room for beside the models'
    // files, shared by the models.
    const files = p.load.reduce((n, m) => n + m.bytes, 0);
    const memoryBytes = Math.floor(sequenceMemory(this.machine.memoryBytes, allocation.memory_percent, files) / Math.max(1, p.load.length));
    const sequences = this.deps.options.parallel ?? { memoryBytes };
    for (const m of p.load) {
      if (this.loaded.includes(m.id)) continue;
      const local = this.models.find((x) => x.id === m.id)!;
      try {
        await engine.load(m.id, m.path, { contextSize: local.contextLength, sequences, ...(wantGpu ? { gpuShare } : {}) });
        this.loaded.push(m.id);
        const c = engine.capacity(m.id);
        this.log(
          `Loaded ${m.id}: ${plural(c.sequences, 'reply', 'replies')} at once (sequences of ${c.contextSize} tokens, KV cache ${formatBytes(c.kvBytesPerSequence)} each)`,
        );
      } catch (err) {
        this.log(`Cannot load ${m.id} (${m.path}): ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (this.loaded.length === 0) this.log('No model is loaded: this node takes no jobs until its allocation lets one load');
    else
      this.log(
        `Serving ${this.loaded.join(', ')} with ${plural(p.threads, 'thread')}${wantGpu ? ` and ${Math.round(gpuShare * 100)} % of its layers on the GPU (${this.machine.gpu})` : ''}`,
      );
  }

  // --- heartbeat --------------------------------------------------------------------------------------

  private get paused(): boolean {
    return this.ownerPaused || this.batteryPaused || this.updateRequired !== null;
  }

  private scheduleHeartbeat(): void {
    if (this.stopping.signal.aborted) return;
    this.heartbeatTimer = setTimeout(
      () => {
        this.heartbeatSoon = false;
        this.heartbeatRunning = this.heartbeat({ retry: false })
          .then((s) => {
            if (s) this.onState(s);
          })
          .catch((err: unknown) => this.fail(err))
          .finally(() => {
            this.heartbeatRunning = null;
            this.scheduleHeartbeat();
          });
      },
      this.heartbeatSoon ? 0 : (this.deps.heartbeatMs ?? 5_000),
    );
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
      this.wake?.();
    }
  }

  /** What the engine computes on now: the GPU's backend while the allocation gives it layers, else the CPU. */
  private compute(): Schemas['NodeCompute'] {
    const backend = this.engineConfig?.gpu ? this.deps.gpuBackend : null;
    return backend ? { backend, vram_bytes: this.deps.host.vram_bytes ?? null } : { backend: 'cpu', vram_bytes: null };
  }

  /** One heartbeat; null when the API is unreachable (and `retry` is false). */
  private async heartbeat(opts: { retry: boolean }): Promise<NodeState | null> {
    await this.readBattery();
    const call = (signal: AbortSignal) =>
      this.api.POST('/api/nodes/heartbeat', {
        body: {
          models: this.servedModels(),
          running_jobs: this.jobs.size,
          slots: this.jobSlots(),
          agent_version: AGENT_VERSION,
          compute: this.compute(),
          ...(this.proofs.length ? { proofs: this.proofs.splice(0) } : {}),
          cpu_load: (this.deps.cpuLoad ?? (() => null))(),
          battery_percent: batteryPercent(this.battery),
          ...(this.pool ? { files: this.files, pool_endpoint: this.pool.endpoint, pool_ready: this.pool.readyFor } : {}),
        },
        signal,
      });
    const res = opts.retry
      ? await this.conn.call(call, { signal: this.stopping.signal, timeoutMs: 10_000 })
      : await this.conn.call(call, { signal: this.stopping.signal, timeoutMs: 10_000, retry: false });
    if (!res) return null;
    this.checkRevoked(res.response);
    if (!res.data) {
      this.log(`Heartbeat refused (${res.response.status}): ${(res.error as { message?: string } | undefined)?.message ?? ''}`);
      return null;
    }
    return res.data;
  }

  private onState(state: NodeState, initial = false): void {
    if (this.credential && state.name !== this.credential.name) {
      if (!initial) this.log(`Renamed to ${state.name}`);
      this.credential = { ...this.credential, name: state.name };
      void this.deps.store.write(this.credential).catch(() => undefined);
    }
    if (state.paused !== this.ownerPaused) {
      // The platform also reports the battery pause it was told of; say only what the owner did.
      if (!this.batteryPaused && !this.batteryChanged)
        this.log(state.paused ? 'Paused: this node takes no jobs until it is resumed' : 'Resumed: taking jobs');
      this.ownerPaused = state.paused;
      this.wake?.();
    }
    if (initial) this.allocation = state.allocation;
    else if (!sameAllocation(state.allocation, this.pendingAllocation ?? this.allocation)) {
      const a = state.allocation;
      this.log(`Allocation changed: CPU ${a.cpu_percent} %, memory ${a.memory_percent} %, GPU ${a.gpu_percent} %, disk ${a.disk_gb} GB`);
      this.pendingAllocation = sameAllocation(a, this.allocation) ? null : a;
      this.wake?.();
    }
    if (this.pool && state.pool !== undefined) {
      const pool = this.pool;
      const assignment = state.pool;
      this.poolApplying = this.poolApplying.then(() => pool.apply(assignment)).catch((err: unknown) => this.fail(err));
    }
    // Too old for the network: say how to update, once, and take no jobs until the platform accepts this version.
    const update = state.update_required?.message ?? null;
    if (update !== this.updateRequired) {
      this.log(update ?? `Version ${AGENT_VERSION} is accepted again: taking jobs`);
      this.updateRequired = update;
      this.wake?.();
    }
    for (const c of state.challenges ?? []) this.prove(c);
    const earned = `${state.earned}/${state.pending}`;
    if (earned !== this.earned) {
      const first = this.earned === null;
      this.earned = earned;
      if (!first || state.earned > 0 || state.pending > 0) this.log(`Earned so far: ${glob(state.earned)} (${state.pending} pending)`);
    }
  }

  /**
   * The platform offers a model's jobs only once the node proved it runs it: the model's reply to the challenge's prompt
   * and its commitment, and the SHA-256 of the challenge's nonce and byte ranges of the model's file, answered at once
   * (the platform times it).
   */
  private prove(c: ModelChallenge): void {
    const local = this.models.find((m) => m.id === c.model_id);
    const generator = this.generatorFor(c.model_id);
    if (this.proving.has(c.challenge_id) || !local || !generator) return;
    this.proving.add(c.challenge_id);
    const answer = async () => {
      const rangeHashes = await hashRanges(local.path, c.nonce, c.ranges);
      const { params } = c;
      const { text, commitment } = await generator.generate({
        messages: c.messages,
        maxTokens: params.max_tokens,
        temperature: params.temperature,
        topP: params.top_p,
        seed: params.seed,
        // The platform verifies the answer as it verifies replies: by recomputing what the node commits to.
        commit: true,
      });
      this.proofs.push({
        challenge_id: c.challenge_id,
        range_hashes: rangeHashes,
        text,
        ...(commitment ? { commitment: encodeCommitment(commitment) } : {}),
      });
      this.log(`Answered the platform's challenge for ${c.model_id}`);
      const state = await this.heartbeat({ retry: false });
      if (state) this.onState(state);
    };
    answer()
      .catch((err: unknown) => {
        if (err instanceof AgentError) return this.fail(err);
        this.log(`Could not answer the challenge for ${c.model_id}: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => this.proving.delete(c.challenge_id));
  }

  // --- work -------------------------------------------------------------------------------------------

  private async workLoop(): Promise<void> {
    const backoff = new Backoff();
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      // Every sequence busy, or a new allocation waiting for the running jobs to end: wait for one to end.
      if (this.jobs.size > 0 && (this.jobs.size >= this.jobSlots() || this.pendingAllocation)) {
        await Promise.race([...this.jobs.values()].map((j) => j.done));
        continue;
      }
      if (this.pendingAllocation) {
        const next = this.pendingAllocation;
        // More memory or disk may let more of the catalog in: pull it before loading.
        if (next.disk_gb !== this.allocation.disk_gb || next.memory_percent !== this.allocation.memory_percent) await this.syncModels(next);
        await this.apply(next);
        const state = await this.heartbeat({ retry: false });
        if (state) this.onState(state);
        continue;
      }
      if (this.paused || this.servedModels().length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      const wait = this.deps.claimWaitSeconds ?? 25;
      const res = await this.conn.call((s) => this.api.POST('/api/nodes/jobs/claim', { body: { wait_seconds: wait }, signal: s }), {
        signal,
        timeoutMs: (wait + 15) * 1000,
      });
      this.checkRevoked(res.response);
      if (res.response.status === 204) {
        backoff.reset();
        continue;
      }
      if (!res.data) {
        const delay = backoff.next();
        this.log(
          `Claim refused (${res.response.status}): ${(res.error as { message?: string } | undefined)?.message ?? ''}; retrying in ${delay / 1000} s`,
        );
        await sleep(delay, undefined, { signal });
        continue;
      }
      backoff.reset();
      // Not awaited: the next claim goes out at once while a sequence is free, so a new reply joins the running batch.
      this.runJob(res.data).catch((err: unknown) => this.fail(err));
    }
  }

  /** What generates a model's jobs here: the pool's llama-server for the pooled model, else the local engine. */
  private generatorFor(modelId: string): Pick<LlamaServer, 'generate'> | null {
    const pooled = this.pool?.serving();
    if (pooled?.modelId === modelId) return pooled.server;
    const engine = this.engine;
    if (!engine || !this.loaded.includes(modelId)) return null;
    return { generate: (req) => engine.generate(modelId, req) };
  }

  /** Replies at once: the fewest sequences of the loaded models, and of the pool's llama-server while it coordinates one. */
  private jobSlots(): number {
    const engine = this.engine;
    const counts = engine ? this.loaded.map((id) => engine.capacity(id).sequences) : [];
    if (this.pool?.serving()) counts.push(POOL_SLOTS);
    // Before any model is loaded (the first heartbeat of a restart) there is nothing to count: one slot, not Infinity.
    return counts.length ? Math.max(1, Math.min(...counts)) : 1;
  }

  /** The models this node serves now: those it loaded, and the pooled model while it coordinates a whole pool. */
  private servedModels(): string[] {
    const pooled = this.pool?.serving()?.modelId;
    return pooled && !this.loaded.includes(pooled) ? [...this.loaded, pooled] : this.loaded;
  }

  /**
   * The pool part started or stopped, or its tunnel opened: the API hears of it now, and the work loop looks again
   * at what it can claim. A heartbeat in flight may have been written before the change, so another follows it at
   * once; before start-up has scheduled any, the first one goes out at once.
   */
  private onPoolChange(): void {
    this.wake?.();
    this.heartbeatSoon = true;
    if (this.stopping.signal.aborted || this.heartbeatRunning || !this.heartbeatTimer) return;
    clearTimeout(this.heartbeatTimer);
    this.scheduleHeartbeat();
  }

  private checkRevoked(res: Response): void {
    if (res.status === 401) throw new AgentError('This node was revoked by its owner; pair it again with a new join token.', EXIT_REVOKED);
  }

  private async postEvents(jobId: string, events: NodeJobEvent[]): Promise<SendResult> {
    const res = await this.conn.call(
      (signal) => this.api.POST('/api/nodes/jobs/{jobId}/events', { params: { path: { jobId } }, body: { events }, signal }),
      { signal: this.stopping.signal, timeoutMs: 30_000 },
    );
    if (res.data) return { kind: 'ok', stop: res.data.stop };
    if (res.response.status === 401) return { kind: 'revoked' };
    return {
      kind: 'lost',
      status: res.response.status,
      message: (res.error as { message?: string } | undefined)?.message ?? res.response.statusText,
    };
  }

  private runJob(job: NodeJob): Promise<void> {
    let finished!: () => void;
    const running: RunningJob = {
      id: job.job_id,
      abort: new AbortController(),
      reason: null,
      done: new Promise<void>((r) => (finished = r)),
      sender: new EventSender((events) => this.postEvents(job.job_id, events), {
        onStop: () => {
          running.reason ??= 'stop';
          running.abort.abort();
        },
        onLost: (status, message) => {
          running.reason ??= 'lost';
          running.abort.abort();
          this.log(`Job ${job.job_id} is no longer this node's (${status}: ${message}); carrying on`, jobFields(job));
        },
        onRevoked: () => {
          running.reason ??= 'revoked';
          running.abort.abort();
        },
      }),
    };
    this.jobs.set(job.job_id, running);
    return this.generate(job, running).finally(() => {
      this.jobs.delete(job.job_id);
      finished();
      if (running.reason === 'revoked' && !this.stopping.signal.aborted) {
        throw new AgentError('This node was revoked by its owner; pair it again with a new join token.', EXIT_REVOKED);
      }
    });
  }

  /**
   * An embed job: the vectors of its texts from the local engine, sent in one call as base64 little-endian float32
   * (the platform checks them before anyone pays); a failure here is the job's error event.
   */
  private async embedJob(job: NodeJob, running: RunningJob): Promise<void> {
    const engine = this.engine;
    this.log(`Claimed embed job ${job.job_id} (${job.model_id}, ${plural(job.input?.length ?? 0, 'text')})`, {
      ...jobFields(job),
      model: job.model_id,
    });
    if (!engine?.embed || !this.loaded.includes(job.model_id)) {
      this.log(`Job ${job.job_id}: ${job.model_id} is not loaded here for embeddings`, jobFields(job));
      await running.sender.close();
      await this.giveBack(job.job_id);
      return;
    }
    const started = performance.now();
    let embeddings: string[];
    try {
      const vectors = await engine.embed(job.model_id, job.input ?? []);
      embeddings = vectors.map((v) => Buffer.from(new Float32Array(v).buffer).toString('base64'));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Job ${job.job_id} failed: ${message}`, jobFields(job));
      running.sender.push({ type: 'error', message: message.slice(0, 500) });
      await running.sender.drain();
      return;
    }
    await running.sender.close();
    const res = await this.conn.call(
      (signal) => this.api.POST('/api/nodes/jobs/{jobId}/embeddings', { params: { path: { jobId: job.job_id } }, body: { embeddings }, signal }),
      { signal: this.stopping.signal, timeoutMs: 60_000 },
    );
    this.checkRevoked(res.response);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (res.response.status === 204) this.log(`Job ${job.job_id}: ${plural(embeddings.length, 'embedding')} in ${secs} s`, jobFields(job));
    else this.log(`Job ${job.job_id}: the embeddings were refused (${res.response.status})`, jobFields(job));
  }

  /**
   * A verify job (a check of another owner's node's work): the job's tokens evaluated after its prompt in one pass, and
   * the model's numbers at each sent in one call; a failure here is the job's error event.
   */
  private async verifyJob(job: NodeJob, running: RunningJob): Promise<void> {
    const engine = this.engine;
    const tokens = job.tokens ?? [];
    this.log(`Claimed check ${job.job_id} (${job.model_id}, ${plural(tokens.length, 'token')})`, { ...jobFields(job), model: job.model_id });
    const started = performance.now();
    let steps: string;
    try {
      if (!engine?.recompute || !this.loaded.includes(job.model_id)) throw new Error(`${job.model_id} is not loaded here`);
      const input = job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] };
      const r = await engine.recompute(job.model_id, { ...input, maxTokens: job.params.max_tokens }, tokens, job.top ?? VERIFY_TOP);
      steps = encodeSteps(r.steps, job.top ?? VERIFY_TOP);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Check ${job.job_id} failed: ${message}`, jobFields(job));
      running.sender.push({ type: 'error', message: message.slice(0, 500) });
      await running.sender.drain();
      return;
    }
    await running.sender.close();
    const res = await this.conn.call(
      (signal) => this.api.POST('/api/nodes/jobs/{jobId}/recomputation', { params: { path: { jobId: job.job_id } }, body: { steps }, signal }),
      { signal: this.stopping.signal, timeoutMs: 60_000 },
    );
    this.checkRevoked(res.response);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (res.response.status === 204) this.log(`Check ${job.job_id}: ${plural(tokens.length, 'token')} recomputed in ${secs} s`, jobFields(job));
    else this.log(`Check ${job.job_id}: the recomputation was refused (${res.response.status})`, jobFields(job));
  }

  private async generate(job: NodeJob, running: RunningJob): Promise<void> {
    if (job.kind === 'embed') return this.embedJob(job, running);
    if (job.kind === 'verify') return this.verifyJob(job, running);
    const { sender } = running;
    const generator = this.generatorFor(job.model_id);
    this.log(`Claimed job ${job.job_id} (${job.model_id})`, { ...jobFields(job), model: job.model_id });
    const fail = async (message: string) => {
      sender.push({ type: 'error', message: message.slice(0, 500) });
      await sender.drain();
    };
    if (!generator) {
      this.log(`Job ${job.job_id}: ${job.model_id} is not loaded here`, jobFields(job));
      await sender.close();
      await this.giveBack(job.job_id);
      return;
    }
    const started = performance.now();
    try {
      const result = await generateReply(
        (request) => generator.generate(request),
        {
          // A raw prompt is generated as it is, without the chat template.
          ...(job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] }),
          // The platform already cut max_tokens to what the requester's hold pays for: never generate more.
          maxTokens: job.params.max_tokens,
          temperature: job.params.temperature,
          topP: job.params.top_p,
          seed: job.params.seed,
          stop: job.params.stop,
          // The platform checks the text against this schema: generated under its grammar, it matches.
          ...(job.params.json_schema ? { jsonSchema: job.params.json_schema } : {}),
          // The platform checks them against the text it relayed: they are the text's tokens as the model scores them.
          ...(job.params.logprobs !== undefined ? { logprobs: job.params.logprobs } : {}),
          // The platform verifies replies against what the node commits to: its tokens and the model's numbers at each.
          commit: true,
          signal: running.abort.signal,
        },
        (text) => sender.pushText(text),
        // Every events call costs the API a request (auth, validation, lock renewal): batches of up to 50 ms keep
        // that cost small against generation, while the first piece still goes out at once.
        EVENT_BATCH_MS,
      );
      if (running.reason && running.reason !== 'stop') return;
      const stopReason: StopReason = running.reason === 'stop' ? 'abort' : result.stopReason;
      sender.push({
        type: 'done',
        usage: { prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens },
        stop_reason: stopReason,
        ...(result.logprobs ? { logprobs: result.logprobs } : {}),
        ...(result.commitment ? { commitment: encodeCommitment(result.commitment) } : {}),
      });
      const state = await sender.drain();
      if (state !== 'open') return;
      const secs = (performance.now() - started) / 1000;
      this.log(
        `Job ${job.job_id}: ${plural(result.completionTokens, 'token')} in ${secs.toFixed(1)} s${stopReason === 'stop' ? '' : ` (${stopReason})`}`,
        { ...jobFields(job), tokens: result.completionTokens, stop_reason: stopReason },
      );
    } catch (err) {
      if (running.reason && running.reason !== 'stop') return;
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Job ${job.job_id} failed: ${message}`, jobFields(job));
      await fail(message);
    }
  }

  // --- shutdown ---------------------------------------------------------------------------------------

  private fail(err: unknown): void {
    // A call cut short because the agent is stopping.
    if (this.stopping.signal.aborted && isAbort(err)) return;
    if (err instanceof AgentError) {
      this.log(err.message);
      this.exitCode = err.exitCode;
    } else {
      this.log(`Unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.exitCode = EXIT_FAILED;
    }
    this.stopping.abort();
    this.interrupt(err instanceof AgentError && err.exitCode === EXIT_REVOKED ? 'revoked' : 'shutdown');
    this.wake?.();
  }

  private async shutdown(): Promise<void> {
    this.stopping.abort();
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.interrupt('shutdown');
    // Nothing more is sent for them; the calls in flight, if any, settle first.
    await Promise.all(
      this.interrupted.map(async (job) => {
        await job.sender.close();
        await job.done.catch(() => undefined);
        if (job.reason === 'shutdown') await this.giveBack(job.id);
      }),
    );
    await this.heartbeatRunning;
    await this.poolApplying;
    await this.pool?.close().catch(() => undefined);
    await this.engine?.dispose().catch(() => undefined);
    this.engine = null;
  }

  private async giveBack(jobId: string): Promise<void> {
    const res = await this.conn.call((signal) => this.api.POST('/api/nodes/jobs/{jobId}/return', { params: { path: { jobId } }, signal }), {
      timeoutMs: 10_000,
      retry: false,
    });
    if (!res) this.log(`Could not return job ${jobId} (API unreachable): the network takes it back when its lock expires`);
    else if (res.response.status === 204) this.log(`Returned job ${jobId} to the network`);
    else this.log(`Job ${jobId} was not returned (${res.response.status}): it had already ended or left this node`);
  }
}
