/**
 * How much of the machine the node uses, from the allocation its owner set (answered to register and to every
 * heartbeat): CPU % → llama.cpp threads, memory % → which models load, GPU % → whether layers go to a GPU.
 */
import constants from '@glob/contract/constants.json';
import type { Schemas } from './contract';
import { formatBytes } from '@glob/engine/bytes';
import { memoryLimit } from '@glob/engine/memory';
import { threadsFor } from '@glob/engine/threads';

export type Allocation = Schemas['NodeAllocation'];

/** The spec's NodeAllocation defaults (CPU 50 %, memory 40 %, GPU 60 %, disk 50 GB): what a node runs with until the API says otherwise. */
export const DEFAULT_ALLOCATION: Allocation = {
  cpu_percent: constants.nodeAllocation.cpu_percent.default,
  memory_percent: constants.nodeAllocation.memory_percent.default,
  gpu_percent: constants.nodeAllocation.gpu_percent.default,
  disk_gb: constants.nodeAllocation.disk_gb.default,
};

export interface ModelFile {
  id: string;
  path: string;
  bytes: number;
}

export interface ModelChoice {
  load: ModelFile[];
  skipped: Array<{ model: ModelFile; reason: string }>;
}

/** A model loads only when its file fits in memory % of the machine's memory. */
export function modelsThatFit(models: ModelFile[], totalMemoryBytes: number, memoryPercent: number): ModelChoice {
  const limit = memoryLimit(totalMemoryBytes, memoryPercent);
  const choice: ModelChoice = { load: [], skipped: [] };
  for (const m of models) {
    if (m.bytes <= limit) choice.load.push(m);
    else {
      choice.skipped.push({
        model: m,
        reason: `its file (${formatBytes(m.bytes)}) is larger than ${memoryPercent} % of this machine's memory (${formatBytes(limit)})`,
      });
    }
  }
  return choice;
}

export interface Plan extends ModelChoice {
  threads: number;
  /** Layers go to the GPU: one is present and the GPU share is above 0. */
  gpu: boolean;
  /** The share of each model's layers offloaded to the GPU (the GPU allocation), when `gpu`. */
  gpuShare: number;
}

export interface Machine {
  cores: number;
  memoryBytes: number;
  gpu: string | null;
}

export function plan(allocation: Allocation, machine: Machine, models: ModelFile[], threadsOverride?: number): Plan {
  return {
    threads: threadsFor(machine.cores, allocation.cpu_percent, threadsOverride),
    gpu: machine.gpu !== null && allocation.gpu_percent > 0,
    gpuShare: allocation.gpu_percent / 100,
    ...modelsThatFit(models, machine.memoryBytes, allocation.memory_percent),
  };
}

export const sameAllocation = (a: Allocation, b: Allocation): boolean =>
  a.cpu_percent === b.cpu_percent && a.memory_percent === b.memory_percent && a.gpu_percent === b.gpu_percent && a.disk_gb === b.disk_gb;
