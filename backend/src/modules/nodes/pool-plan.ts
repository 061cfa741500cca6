/**
 * How a pool splits its model: a member holding the model's file coordinates, and the model's layers are shared
 * in proportion to the memory each member offers (its GPU memory share when it has a GPU, else its memory share),
 * coordinator first, then the shards in the order the owner listed them. The model's size and layer count are the
 * platform's own (ModelFacts); a member's report only says which file it holds, and counts when it matches them.
 */
import { formatBytes } from '@glob/engine/bytes';
import { proportional } from '../../common/proportional';
import type { ModelFacts } from '../catalog/model-files.service';

export interface PoolFile {
  model_id: string;
  bytes: number;
  layers: number;
}

export interface PlanNode {
  id: string;
  memoryBytes: number;
  memoryPercent: number;
  vramBytes: number | null;
  gpu: string | null;
  gpuPercent: number;
  files: PoolFile[];
}

export interface PoolPlan {
  coordinatorId: string | null;
  /** Member ids, coordinator first, then the others in position order. */
  order: string[];
  /** Layers per member id (all 0 while the model's layer count is unknown). */
  layers: Map<string, number>;
  modelLayers: number | null;
  modelBytes: number | null;
  problem: string | null;
}

export const NO_HOLDER = "No member has reported holding this model's file yet.";
export const UNKNOWN_MODEL = "The network does not know this model's size yet: its catalog entry pins no file the platform can read.";

/** The memory a member offers a pool: its GPU share of VRAM where it has a GPU, else its memory share of RAM. */
export function offeredMemory(n: PlanNode): number {
  if (n.gpu && n.vramBytes && n.gpuPercent > 0) return Math.floor((n.vramBytes * n.gpuPercent) / 100);
  return Math.floor((n.memoryBytes * n.memoryPercent) / 100);
}

/**
 * The plan for `modelId` (of which the platform knows `facts`, or nothing yet) over `members` (in the owner's
 * order). The coordinator stays who it was while it still holds the file; otherwise it is the holder offering the
 * most memory. A report of another size or layer count is another file (another quantization, a lie): no holder.
 */
export function planPool(modelId: string, facts: ModelFacts | null, members: PlanNode[], currentCoordinator: string | null): PoolPlan {
  const none = new Map(members.map((n) => [n.id, 0]));
  if (!facts) {
    return {
      coordinatorId: null,
      order: members.map((n) => n.id),
      layers: none,
      modelLayers: null,
      modelBytes: null,
      problem: UNKNOWN_MODEL,
    };
  }
  const holds = (n: PlanNode) => n.files.some((f) => f.model_id === modelId && f.bytes === facts.bytes && f.layers === facts.layers);
  const holders = members.filter(holds);
  const coordinator =
    holders.find((n) => n.id === currentCoordinator) ??
    holders.reduce<PlanNode | null>((best, n) => (!best || offeredMemory(n) > offeredMemory(best) ? n : best), null);
  const order = coordinator ? [coordinator.id, ...members.filter((n) => n !== coordinator).map((n) => n.id)] : members.map((n) => n.id);
  if (!coordinator) {
    return { coordinatorId: null, order, layers: none, modelLayers: facts.layers, modelBytes: facts.bytes, problem: NO_HOLDER };
  }
  const byId = new Map(members.map((n) => [n.id, n]));
  const offered = order.map((id) => offeredMemory(byId.get(id)!));
  const split = proportional(facts.layers, offered);
  const total = offered.reduce((a, b) => a + b, 0);
  const problem =
    total < facts.bytes
      ? `The members offer ${formatBytes(total)} in all, less than the model's ${formatBytes(facts.bytes)}: raise their memory allocation or add a node.`
      : null;
  return {
    coordinatorId: coordinator.id,
    order,
    layers: new Map(order.map((id, i) => [id, split[i]!])),
    modelLayers: facts.layers,
    modelBytes: facts.bytes,
    problem,
  };
}
