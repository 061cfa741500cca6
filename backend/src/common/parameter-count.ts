/** A model's parameter count as its catalog entry writes it: "70B" → 70e9, "2M" → 2e6 (the task difficulty reads it). */
export function parameterCount(parameters: string): number {
  const m = /^([\d.]+)\s*([KMBT]?)/i.exec(parameters.trim());
  if (!m) return 0;
  const scale = { '': 1, K: 1e3, M: 1e6, B: 1e9, T: 1e12 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'B' | 'T'];
  return Number(m[1]) * scale;
}
