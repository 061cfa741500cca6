import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, wasAborted } from '../client';

/** The figures the home page shows. */
export interface SiteStats {
  active_users: number;
  total_tasks: number;
  data_processed_gb: number;
  /** True when the figures are the built-in fallback rather than the server's. */
  fallback: boolean;
}

/** On any failure the home page silently shows these. */
export const FALLBACK_STATS: SiteStats = {
  active_users: 2847,
  total_tasks: 1250000,
  data_processed_gb: 45.8,
  fallback: true,
};

/** Stats refresh every 30 s. */
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
};

/** The dashboard's network figures. */
export interface NetworkStats {
  connected_peers: number;
  active_nodes: number;
  active_tasks: number;
  /** null when unknown (the fallback figures carry none). */
  pending_tasks: number | null;
  success_rate: number | null;
  /** True when the figures are the built-in fallback rather than the server's. */
  fallback: boolean;
}

/** When the network stats fail, the dashboard shows 1247 peers, 89 tasks, 156 nodes. */
export const FALLBACK_NETWORK_STATS: NetworkStats = {
  connected_peers: 1247,
  active_tasks: 89,
  active_nodes: 156,
  pending_tasks: null,
  success_rate: null,
  fallback: true,
};

/** The dashboard refreshes every 10 s. */
export const DASHBOARD_REFRESH_MS = 10_000;

/**
 * GET /api/system/stats/platform; not ok or a network error resolves to the fallback figures (logged). A request
 * dropped at logout is not a failure and is not logged.
 */
export async function fetchNetworkStats(): Promise<NetworkStats> {
  try {
    const s = await unwrap(api.GET('/api/system/stats/platform'));
    return {
      connected_peers: s.connected_peers,
      active_nodes: s.active_nodes,
      active_tasks: s.active_tasks,
      pending_tasks: s.pending_tasks,
      success_rate: s.success_rate,
      fallback: false,
    };
  } catch (error) {
    if (!wasAborted(error)) console.error('Failed to load network stats:', error);
    return FALLBACK_NETWORK_STATS;
  }
}

/** The dashboard's live network figures, refetched every 10 s. */
export const networkStatsQuery = () =>
  queryOptions({
    queryKey: [...systemQueries.all, 'stats', 'network'] as const,
    queryFn: fetchNetworkStats,
    refetchInterval: DASHBOARD_REFRESH_MS,
    retry: false,
  });
