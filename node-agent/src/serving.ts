/**
 * What this node serves: the network's catalog as last read, the models of it ready here, the engine they are loaded
 * on under the allocation, and which generator (the engine or the pool's llama-server) serves a model's jobs.
 */
import type { Schemas } from './contract';
import { formatBytes } from '@glob/engine/bytes';
import { sequenceMemory } from '@glob/engine/memory';
import type { EngineOptions, LlamaEngine } from '@glob/engine/llama-engine';
import { type Allocation, DEFAULT_ALLOCATION, type Machine, type Plan, plan } from './allocation';
import type { HostFacts, LocalModel } from './machine';
import type { AgentOptions } from './options';
import { type LlamaServer, POOL_SLOTS } from './llama-server';
import type { Library } from './model-library';
import { type Log, plural } from './logging';
import { AgentError, type Session } from './session';

/** The engine calls the agent makes (LlamaEngine; a fake in tests). */
export type Engine = Pick<LlamaEngine, 'load' | 'unload' | 'loadedModels' | 'isLoaded' | 'generate' | 'benchmark' | 'dispose' | 'capacity'> &
  Partial<Pick<LlamaEngine, 'embed' | 'recompute'>>;

export interface ServingDeps {
  session: Session;
  options: AgentOptions;
  host: HostFacts;
  /** node-llama-cpp's backend for the machine's GPU (none without one). */
  gpuBackend?: 'cuda' | 'vulkan' | 'metal' | null;
  createEngine: (opts: EngineOptions) => Promise<Engine>;
  /** The models directory: verifies and pulls the catalog's models, and says which are ready to load. */
  library: Library;
  /** The ready models' files with their layer counts, reported so a pool can plan its split. */
  poolFiles?: (models: LocalModel[]) => Promise<Schemas['PoolFile'][]>;
  /** The pooled model this node coordinates now, with the server that generates it (none outside a pool). */
  pooled: () => { modelId: string; server: Pick<LlamaServer, 'generate'> } | null;
}

export class Serving {
  private readonly log: Log;
  readonly machine: Machine;
  engine: Engine | null = null;
  engineConfig: { threads: number; gpu: boolean; gpuShare: number } | null = null;
  loaded: string[] = [];
  allocation: Allocation = DEFAULT_ALLOCATION;
  pendingAllocation: Allocation | null = null;
  /** The network's catalog as last read, and the models of it ready here (verified, on disk) with their pool facts. */
  private catalog: Schemas['NodeCatalogModel'][] = [];
  models: LocalModel[] = [];
  files: Schemas['PoolFile'][] = [];

  constructor(private readonly deps: ServingDeps) {
    this.log = deps.session.log;
    this.machine = { cores: deps.host.cpu_cores, memoryBytes: deps.host.memory_bytes, gpu: deps.host.gpu ?? null };
  }

  /** Reads the network's catalog, then lets the library verify and pull what `allocation` allows. */
  async syncModels(allocation: Allocation): Promise<void> {
    const { session } = this.deps;
    const res = await session.conn.call((signal) => session.api.GET('/api/nodes/catalog', { signal }), { signal: session.signal });
    const wanted = this.deps.options.models;
    if (res.data) {
      this.catalog = wanted ? res.data.models.filter((m) => wanted.includes(m.id)) : res.data.models;
      for (const id of wanted ?? []) if (!this.catalog.some((m) => m.id === id)) this.log(`${id} is not in the network's catalog`);
    } else this.log(`Could not read the network's catalog (${res.response.status}): serving the models already verified here`);
    this.models = await this.deps.library.sync(this.catalog, allocation, this.machine.memoryBytes, session.signal);
    this.files = (await this.deps.poolFiles?.(this.models)) ?? [];
  }

  assertModels(): void {
    if (this.models.length > 0) return;
    throw new AgentError(
      `No catalog model is in ${this.deps.options.modelsDir} or could be pulled into it; see the messages above (a larger memory or disk allocation, set in the web app, may let one in).`,
    );
  }

  /** Loads what the allocation allows; a new engine when threads or GPU use change. Only between jobs. */
  async apply(allocation: Allocation): Promise<void> {
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

  /** What generates a model's jobs here: the pool's llama-server for the pooled model, else the local engine. */
  generatorFor(modelId: string): Pick<LlamaServer, 'generate'> | null {
    const pooled = this.deps.pooled();
    if (pooled?.modelId === modelId) return pooled.server;
    const engine = this.engine;
    if (!engine || !this.loaded.includes(modelId)) return null;
    return { generate: (req) => engine.generate(modelId, req) };
  }

  /** Replies at once: the fewest sequences of the loaded models, and of the pool's llama-server while it coordinates one. */
  jobSlots(): number {
    const engine = this.engine;
    const counts = engine ? this.loaded.map((id) => engine.capacity(id).sequences) : [];
    if (this.deps.pooled()) counts.push(POOL_SLOTS);
    // Before any model is loaded (the first heartbeat of a restart) there is nothing to count: one slot, not Infinity.
    return counts.length ? Math.max(1, Math.min(...counts)) : 1;
  }

  /** The models this node serves now: those it loaded, and the pooled model while it coordinates a whole pool. */
  servedModels(): string[] {
    const pooled = this.deps.pooled()?.modelId;
    return pooled && !this.loaded.includes(pooled) ? [...this.loaded, pooled] : this.loaded;
  }

  /** What the engine computes on now: the GPU's backend while the allocation gives it layers, else the CPU. */
  compute(): Schemas['NodeCompute'] {
    const backend = this.engineConfig?.gpu ? this.deps.gpuBackend : null;
    return backend ? { backend, vram_bytes: this.deps.host.vram_bytes ?? null } : { backend: 'cpu', vram_bytes: null };
  }

  async dispose(): Promise<void> {
    await this.engine?.dispose().catch(() => undefined);
    this.engine = null;
  }
}
