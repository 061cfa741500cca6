import { LOCALE } from '@glob/ui/format';

// The locale, GLOB amounts and UTC days are shared with the desktop app's control panel: defined once in @glob/ui.
export { LOCALE, formatDay, formatGlob } from '@glob/ui/format';

/** 'yyyy-mm-dd' (or an ISO timestamp) as 'June 4, 2025', independent of the visitor's time zone. */
export function formatDate(date: string): string {
  const d = new Date(date.length === 10 ? `${date}T00:00:00Z` : date);
  return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString(LOCALE, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

const dateTime = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO timestamp as 'Nov 21, 2026, 11:00 PM' in the visitor's time zone (the web app's lists). */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

const localDate = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'medium' });

/** A moment's day as 'Nov 21, 2026' in the visitor's time zone (the date part of formatDateTime). */
export function formatLocalDate(d: Date): string {
  return Number.isNaN(d.getTime()) ? '' : localDate.format(d);
}

const usd = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** US dollars with 2 decimals ('$9.87'). */
export function formatUsd(amount: number): string {
  return usd.format(Number.isFinite(amount) ? amount : 0);
}
