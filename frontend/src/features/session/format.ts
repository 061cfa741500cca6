const glob = new Intl.NumberFormat('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 2 });
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A GLOB amount for display: thousands separators, at most 2 decimals ('1,234.5'). */
export function formatGlob(amount: number | string | null | undefined): string {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return glob.format(Number.isFinite(n) ? n : 0);
}

/** US dollars with 2 decimals ('$9.87'). */
export function formatUsd(amount: number): string {
  return usd.format(Number.isFinite(amount) ? amount : 0);
}
