import type { ProviderNode } from '../../api/queries/nodes';
import { formatBytes, formatShare } from '@glob/ui/format';
import { LOCALE } from '../../components/format';
import { NODES_TEXTS } from './texts';

const score = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 1, maximumFractionDigits: 2 });

// Sizes and shares read the same in the web app and the desktop app's panel.
export { formatBytes, formatShare };

/** The hardware score (0.5-2.0) with at least one decimal: 1.2 → '1.2', 2 → '2.0'. */
export function formatScore(value: number): string {
  return score.format(value);
}

/** The machine in one line: '8 cores · 32 GB · CPU only · linux/x64' (the GPU's name and memory when it has one). */
export function hostSummary(host: ProviderNode['host']): string {
  const gpu = host.gpu ? (host.vram_bytes ? `${host.gpu} (${formatBytes(host.vram_bytes)})` : host.gpu) : NODES_TEXTS.cpuOnly;
  const cores = `${host.cpu_cores} ${host.cpu_cores === 1 ? 'core' : 'cores'}`;
  return [cores, formatBytes(host.memory_bytes), gpu, `${host.os}/${host.arch}`].join(' · ');
}

/** A member's part of the model: '40 of 80 layers · 50%'. */
export function layerSummary(layers: number, modelLayers: number, share: number): string {
  return `${layers} of ${modelLayers} layers · ${formatShare(share)}`;
}

const BACKEND_LABELS = { cpu: 'CPU', cuda: 'CUDA', vulkan: 'Vulkan', metal: 'Metal' } as const;

/** What a node computes on, as its row says it: 'CUDA, 24 GB', 'CPU'; null before its agent reported it. */
export function computeSummary(compute: ProviderNode['compute']): string {
  if (!compute) return NODES_TEXTS.versionUnknown;
  const label = BACKEND_LABELS[compute.backend];
  return compute.vram_bytes ? `${label}, ${formatBytes(compute.vram_bytes)}` : label;
}
