/**
 * The node's models directory kept in line with the network's catalog: files whose SHA-256 the catalog pins are
 * verified before use (a mismatch is deleted and reported, never loaded), and the models the memory and disk
 * allocation allow are pulled (engine/model-files: resumable, split parts, verified).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Schemas } from './contract';
import { formatBytes } from '@glob/engine/bytes';
import { splitParts } from '@glob/engine/gguf';
import { discardFile, isVerified, pullFiles } from '@glob/engine/model-files';
import { memoryLimit } from '@glob/engine/memory';
import { type Allocation } from './allocation';
import type { LocalModel } from './machine';

export type CatalogModel = Schemas['NodeCatalogModel'];

const GB = 1024 ** 3;

export interface PullDecision {
  pull: CatalogModel[];
  skipped: Array<{ model: CatalogModel; reason: string }>;
}

/**
 * What to pull, in catalog order: a model not on disk whose files the catalog pins, that fits in what the disk
 * allocation has left after the models already here, and that could load in the memory allocation (bytes ≤ memory %).
 */
export function pullDecision(catalog: CatalogModel[], onDisk: Map<string, number>, memoryBytes: number, allocation: Allocation): PullDecision {
  const decision: PullDecision = { pull: [], skipped: [] };
  const disk = allocation.disk_gb * GB;
  let used = [...onDisk.values()].reduce((a, b) => a + b, 0);
  const memory = memoryLimit(memoryBytes, allocation.memory_percent);
  for (const m of catalog) {
    if (onDisk.has(m.id) || m.size_bytes === null || m.files.length === 0) continue;
    if (used + m.size_bytes > disk) {
      const left = Math.max(0, disk - used);
      const reason = `its files (${formatBytes(m.size_bytes)}) do not fit in what the disk allocation of ${allocation.disk_gb} GB has left (${formatBytes(left)})`;
      decision.skipped.push({ model: m, reason });
    } else if (m.size_bytes > memory) {
      const reason = `its files (${formatBytes(m.size_bytes)}) are larger than ${allocation.memory_percent} % of this machine's memory (${formatBytes(memory)})`;
      decision.skipped.push({ model: m, reason });
    } else {
      decision.pull.push(m);
      used += m.size_bytes;
    }
  }
  return decision;
}

export interface ModelLibraryOptions {
  dir: string;
  /** Relative file URLs (the API's own copies) resolve against it; a function where the API is known only later (desktop pairing). */
  apiUrl: string | (() => string);
  log: (line: string) => void;
  /** A progress bar on a terminal; plain lines (every 10 %) otherwise. */
  progressBar?: boolean;
}

/** One catalog model this node has or wants, as the desktop app's panel shows it. */
export interface ModelStatus {
  id: string;
  /** `ready` on disk and verified; `pulling` now; `waiting` to be pulled; `failed` (see `error`). */
  state: 'ready' | 'pulling' | 'waiting' | 'failed';
  /** Bytes on disk now (while pulling, what the files hold so far), and of the whole model (null while unknown). */
  bytes: number;
  total_bytes: number | null;
  error?: string;
}

/** What the agent needs of the library: the models ready to load, for a catalog and an allocation. */
export interface Library {
  sync(catalog: CatalogModel[], allocation: Allocation, memoryBytes: number, signal: AbortSignal): Promise<LocalModel[]>;
  /** The models of the last sync and their pulls' progress (absent in tests' fakes). */
  status?(): ModelStatus[];
}

/** How often a pull's bytes on disk are read for the panel. */
const PROGRESS_POLL_MS = 1_000;

/**
 * Bytes a file holds so far. ipull writes chunks at their offsets, so a partial file may be sparse: where the OS
 * counts allocated blocks, those (at most the size) are the better estimate.
 */
async function bytesOnDisk(path: string): Promise<number> {
  const s = await stat(path).catch(() => null);
  if (!s?.isFile()) return 0;
  return s.blocks ? Math.min(s.size, s.blocks * 512) : s.size;
}

export class ModelLibrary implements Library {
  private readonly models = new Map<string, ModelStatus>();

  constructor(private readonly o: ModelLibraryOptions) {}

  private get apiUrl(): string {
    return typeof this.o.apiUrl === 'function' ? this.o.apiUrl() : this.o.apiUrl;
  }

  status(): ModelStatus[] {
    return [...this.models.values()].map((m) => ({ ...m }));
  }

  /** Verifies what is on disk, pulls what the allocation allows, and answers the models ready to load, in catalog order. */
  async sync(catalog: CatalogModel[], allocation: Allocation, memoryBytes: number, signal: AbortSignal): Promise<LocalModel[]> {
    const onDisk = new Map<string, number>();
    for (const m of catalog) {
      const bytes = await this.present(m);
      if (bytes !== null) onDisk.set(m.id, bytes);
    }
    const decision = pullDecision(catalog, onDisk, memoryBytes, allocation);
    for (const s of decision.skipped) this.o.log(`Not pulling ${s.model.id}: ${s.reason}`);
    this.models.clear();
    for (const m of catalog) {
      const bytes = onDisk.get(m.id);
      if (bytes !== undefined) this.models.set(m.id, { id: m.id, state: 'ready', bytes, total_bytes: bytes });
    }
    for (const m of decision.pull) this.models.set(m.id, { id: m.id, state: 'waiting', bytes: 0, total_bytes: m.size_bytes });
    for (const m of decision.pull) {
      signal.throwIfAborted();
      if (await this.pull(m, signal)) {
        onDisk.set(m.id, m.size_bytes ?? 0);
        this.models.set(m.id, { id: m.id, state: 'ready', bytes: m.size_bytes ?? 0, total_bytes: m.size_bytes });
      } else
        this.models.set(m.id, {
          id: m.id,
          state: 'failed',
          bytes: 0,
          total_bytes: m.size_bytes,
          error: 'The download failed or its file did not match the catalog',
        });
    }
    return catalog
      .filter((m) => onDisk.has(m.id))
      .map((m) => ({ id: m.id, path: join(this.o.dir, m.file), bytes: onDisk.get(m.id)!, contextLength: m.context_length }));
  }

  /**
   * The model's bytes when all its files are here and, where the catalog pins them, match their SHA-256; null
   * otherwise. A pinned file that does not match is deleted and reported.
   */
  private async present(m: CatalogModel): Promise<number | null> {
    if (m.files.length === 0) {
      // Nothing pinned: a copy the owner put here (every part of a split model) is offered; the platform's challenge checks it.
      let bytes = 0;
      for (const part of splitParts(join(this.o.dir, m.file))) {
        const s = await stat(part).catch(() => null);
        if (!s?.isFile()) return null;
        bytes += s.size;
      }
      return bytes;
    }
    let bytes = 0;
    let complete = true;
    for (const f of m.files) {
      const path = join(this.o.dir, f.name);
      const s = await stat(path).catch(() => null);
      if (!s?.isFile()) {
        complete = false;
        continue;
      }
      if (!(await isVerified(path, f))) {
        await discardFile(path);
        this.o.log(`${m.id}: ${f.name} is not the catalog's file (its SHA-256 differs): deleted it`);
        complete = false;
        continue;
      }
      bytes += s.size;
    }
    return complete ? bytes : null;
  }

  /** Pulls every file of the model (split parts together), then verifies each; true when all are the catalog's. */
  private async pull(m: CatalogModel, signal: AbortSignal): Promise<boolean> {
    const from = new URL(m.files[0]!.url, this.apiUrl).host;
    this.o.log(`Pulling ${m.id} (${formatBytes(m.size_bytes ?? 0)}${m.files.length > 1 ? ` in ${m.files.length} parts` : ''}) from ${from}`);
    const status: ModelStatus = { id: m.id, state: 'pulling', bytes: 0, total_bytes: m.size_bytes };
    this.models.set(m.id, status);
    const poll = async () => {
      let bytes = 0;
      for (const f of m.files) bytes += await bytesOnDisk(join(this.o.dir, f.name));
      status.bytes = Math.min(bytes, m.size_bytes ?? bytes);
    };
    const timer = setInterval(() => void poll(), PROGRESS_POLL_MS);
    timer.unref();
    try {
      const { ok } = await pullFiles({
        label: m.id,
        files: m.files,
        dir: this.o.dir,
        baseUrl: this.apiUrl,
        log: this.o.log,
        progressBar: this.o.progressBar ?? false,
        signal,
      });
      return ok;
    } finally {
      clearInterval(timer);
    }
  }
}
