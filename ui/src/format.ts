/** The one locale of every date and number Glob Network's apps show (English, US conventions). */
export const LOCALE = 'en-US';

const glob = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 0, maximumFractionDigits: 2 });

/** A GLOB amount for display: thousands separators, at most 2 decimals ('1,234.5'). */
export function formatGlob(amount: number | string | null | undefined): string {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return glob.format(Number.isFinite(n) ? n : 0);
}

const day = new Intl.DateTimeFormat(LOCALE, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** A UTC day (YYYY-MM-DD) as 'Nov 21'. */
export function formatDay(isoDate: string): string {
  const d = new Date(`${isoDate}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? isoDate : day.format(d);
}

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const size = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 1 });

/**
 * Bytes in binary units, as operating systems report memory: 34359738368 → '32 GB'; below 1 GB in MB
 * (50331648 → '48 MB'), so a small model does not read as 0 GB.
 */
export function formatBytes(bytes: number): string {
  return bytes >= GIB ? `${size.format(bytes / GIB)} GB` : `${size.format(bytes / MIB)} MB`;
}

/** A share 0-1 as a percentage: 0.93 → '93%'. */
export function formatShare(share: number): string {
  return percent.format(share);
}
