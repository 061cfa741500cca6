import type { SiteStats } from '../../api/queries/system';
import { LOCALE } from '../../components/format';

/** The stats strip's three figures as text. `null` stats (still loading) show '...'. */
export interface FormattedStats {
  activeUsers: string;
  tasksProcessed: string;
  dataProcessed: string;
}

export const LOADING_TEXT = '...';

const thousands = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });

/** Users with thousands separators, '+' when over 100. */
export function formatActiveUsers(users: number): string {
  return `${thousands.format(users)}${users > 100 ? '+' : ''}`;
}

/** Tasks of 1000 or more as K with one decimal; '+' when above 0. */
export function formatTasks(tasks: number): string {
  const text = tasks >= 1000 ? `${(tasks / 1000).toFixed(1)}K` : String(tasks);
  return `${text}${tasks > 0 ? '+' : ''}`;
}

/** Data of 1000 GB or more as TB (one decimal), else GB (one decimal). */
export function formatData(gb: number): string {
  return gb >= 1000 ? `${(gb / 1000).toFixed(1)} TB` : `${gb.toFixed(1)} GB`;
}

export function formatStats(stats: SiteStats | undefined | null): FormattedStats {
  if (!stats) return { activeUsers: LOADING_TEXT, tasksProcessed: LOADING_TEXT, dataProcessed: LOADING_TEXT };
  return {
    activeUsers: formatActiveUsers(stats.active_users),
    tasksProcessed: formatTasks(stats.total_tasks),
    dataProcessed: formatData(stats.data_processed_gb),
  };
}
