/** 'yyyy-mm-dd' (or an ISO timestamp) as 'June 4, 2025', independent of the visitor's time zone. */
export function formatDate(date: string): string {
  const d = new Date(date.length === 10 ? `${date}T00:00:00Z` : date);
  return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO timestamp as 'Nov 21, 2026, 11:00 PM' in the visitor's time zone (the web app's lists). */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}
