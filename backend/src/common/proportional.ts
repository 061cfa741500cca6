/**
 * `total` split in proportion to `weights` in whole numbers that add up to `total` (largest remainder; ties go to the
 * earlier member). All-zero weights split evenly.
 */
export function proportional(total: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.every((x) => x <= 0) ? weights.map(() => 1) : weights.map((x) => Math.max(0, x));
  const sum = w.reduce((a, b) => a + b, 0);
  const exact = w.map((x) => (total * x) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    parts[i]!++;
    left--;
  }
  return parts;
}
