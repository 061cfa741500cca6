/** What this machine is and which of the network's models it has on disk. */
import { availableParallelism, hostname, loadavg, platform, arch, totalmem } from 'node:os';
import type { Schemas } from './contract';
import { validateGguf } from '@glob/engine/gguf-validate';
import { loadNodeLlamaCpp } from '@glob/engine/node-llama-cpp';
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

export interface LocalModel extends ModelFile {
  contextLength: number;
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
