/** What this machine is and which of the network's models it has on disk. */
import { stat } from 'node:fs/promises';
import { availableParallelism, hostname, loadavg, platform, arch, totalmem } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import type { Schemas } from '../contract/types';
import { type CatalogEntry, readCatalogFile } from '../engine/catalog';
import { splitParts } from '../engine/gguf';
import { validateGguf } from '../engine/gguf-validate';
import { loadNodeLlamaCpp } from '../engine/node-llama-cpp';
import type { ModelFile } from './allocation';
import { withoutControlChars } from './options';

export type HostFacts = Schemas['HostFacts'];

export interface Gpu {
  name: string;
  vramBytes: number | null;
  /** node-llama-cpp's backend for it. */
  backend: 'cuda' | 'vulkan' | 'metal';
}

/**
 * The GPU node-llama-cpp would use, or null. Only prebuilt binaries are tried (nothing is compiled or
 * downloaded); a machine without CUDA, Vulkan or Metal binaries answers null without touching a device.
 */
export async function detectGpu(): Promise<Gpu | null> {
  const nlc = await loadNodeLlamaCpp();
  const types = await nlc.getLlamaGpuTypes('supported');
  if (!types.some((t) => t !== false)) return null;
  let llama: Awaited<ReturnType<typeof nlc.getLlama>> | undefined;
  try {
    llama = await nlc.getLlama({ build: 'never', gpu: 'auto', logLevel: nlc.LlamaLogLevel.error, progressLogs: false });
    if (llama.gpu === false) return null;
    const [name] = await llama.getGpuDeviceNames();
    const vram = await llama.getVramState();
    return { name: (name ?? String(llama.gpu)).slice(0, 200), vramBytes: vram.total > 0 ? vram.total : null, backend: llama.gpu };
  } catch {
    return null;
  } finally {
    await llama?.dispose().catch(() => undefined);
  }
}

export function hostFacts(gpu: Gpu | null): HostFacts {
  return {
    hostname: withoutControlChars(hostname()).slice(0, 255),
    os: platform(),
    arch: arch(),
    cpu_cores: Math.max(1, availableParallelism()),
    memory_bytes: totalmem(),
    gpu: gpu?.name ?? null,
    vram_bytes: gpu?.vramBytes ?? null,
  };
}

/** The machine's load over the last minute as a share of its cores; null where the OS does not say (Windows). */
export function cpuLoad(cores = availableParallelism(), os = platform()): number | null {
  if (os === 'win32') return null;
  const load = loadavg()[0] ?? 0;
  return Math.round(Math.min(1, Math.max(0, load / Math.max(1, cores))) * 100) / 100;
}

export function readCatalog(catalogPath: string | undefined, modelsDir: string): CatalogEntry[] {
  // The catalog reader needs only these two settings; the API's own configuration is never loaded.
  return readCatalogFile({ catalogPath, modelsDir });
}

export interface LocalModel extends ModelFile {
  contextLength: number;
}

/**
 * The catalog models whose file (matched by file name) is in `modelsDir`, in catalog order. A split model
 * (path naming its first part) counts only when every part is there, and weighs all of them.
 */
export async function localModels(catalog: CatalogEntry[], modelsDir: string): Promise<LocalModel[]> {
  const found: LocalModel[] = [];
  for (const m of catalog) {
    const candidates = [join(modelsDir, basename(m.path)), ...(isAbsolute(m.path) ? [m.path] : [])];
    for (const path of candidates) {
      const bytes = await modelBytes(path);
      if (bytes !== null) {
        found.push({ id: m.id, path, bytes, contextLength: m.contextLength });
        break;
      }
    }
  }
  return found;
}

/** Bytes of the model's files, or null when one of them is not a file. */
async function modelBytes(path: string): Promise<number | null> {
  let bytes = 0;
  for (const part of splitParts(path)) {
    const s = await stat(part).catch(() => null);
    if (!s?.isFile()) return null;
    bytes += s.size;
  }
  return bytes;
}

/** The local models' files with their layer counts (from each file's header), for pool planning; unreadable ones are left out. */
export async function modelFiles(models: LocalModel[]): Promise<Array<Schemas['PoolFile']>> {
  const files: Array<Schemas['PoolFile']> = [];
  for (const m of models) {
    const summary = await validateGguf(m.path).catch(() => null);
    if (summary && summary.blockCount > 0) files.push({ model_id: m.id, bytes: m.bytes, layers: summary.blockCount });
  }
  return files;
}
