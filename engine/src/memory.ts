/** The bytes a memory allocation gives: the machine's memory × memory % / 100. */
export const memoryLimit = (totalMemoryBytes: number, memoryPercent: number): number => Math.floor((totalMemoryBytes * memoryPercent) / 100);

/**
 * What a model's sequences (their KV caches) may use: the memory allocation less the model's file. The node agent
 * sizes them from its owner's allocation, the in-cluster worker from the allocation's default.
 */
export const sequenceMemory = (totalMemoryBytes: number, memoryPercent: number, modelBytes: number): number =>
  Math.max(0, memoryLimit(totalMemoryBytes, memoryPercent) - modelBytes);
