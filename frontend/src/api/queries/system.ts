import { queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type PlatformStats = components['schemas']['PlatformStats'];

/** The figures the home page shows (000 §3, §7). */
export interface SiteStats {
  active_users: number;
  total_tasks: number;
  data_processed_gb: number;
  /** True when the figures are the built-in fallback rather than the server's. */
  fallback: boolean;
}

/** 000 §8: on any failure the home page silently shows these. */
export const FALLBACK_STATS: SiteStats = {
  active_users: 2847,
  total_tasks: 1250000,
  data_processed_gb: 45.8,
  fallback: true,
};

/** 000 §9: stats refresh every 30 s. */
export const STATS_REFRESH_MS = 30_000;

/** GET /api/stats/platform; not ok or a network error resolves to the fallback figures. */
export async function fetchSiteStats(): Promise<SiteStats> {
  try {
    const stats = await unwrap(api.GET('/api/stats/platform'));
    return {
      active_users: stats.active_users,
      total_tasks: stats.total_tasks,
      data_processed_gb: stats.data_processed_gb,
      fallback: false,
    };
  } catch {
    return FALLBACK_STATS;
  }
}

export const systemQueries = {
  all: ['system'] as const,
  /** Live figures for the marketing home page, refetched every 30 s. */
  siteStats: () =>
    queryOptions({
      queryKey: [...systemQueries.all, 'stats', 'platform'] as const,
      queryFn: fetchSiteStats,
      refetchInterval: STATS_REFRESH_MS,
      refetchIntervalInBackground: false,
      staleTime: STATS_REFRESH_MS,
      retry: false,
    }),
  health: () =>
    queryOptions({
      queryKey: [...systemQueries.all, 'health'] as const,
      queryFn: () => unwrap(api.GET('/api/health')),
    }),
};
