/**
 * llama.cpp threads for a share of the machine's cores: max(1, round(cores × cpu % / 100)); `override` wins. The
 * node agent applies its owner's CPU allocation with it, the in-cluster worker the allocation's default, so both
 * measure and serve with the same share (all cores spin-wait against the other processes of a busy machine).
 */
export function threadsFor(cores: number, cpuPercent: number, override?: number): number {
  if (override !== undefined) return override;
  return Math.max(1, Math.round((cores * cpuPercent) / 100));
}
