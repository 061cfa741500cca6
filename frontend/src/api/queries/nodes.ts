import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import constants from '@glob/contract/constants.json';
import { ApiError, api, unwrap } from '../client';

export type ProviderNode = components['schemas']['Node'];
export type NodeStatus = components['schemas']['NodeStatus'];
export type NodeAllocation = components['schemas']['NodeAllocation'];
export type NodeUpdate = components['schemas']['NodeUpdate'];
export type JoinToken = components['schemas']['JoinToken'];
export type Pool = components['schemas']['Pool'];
export type PoolStatus = components['schemas']['PoolStatus'];
export type PoolRole = components['schemas']['PoolRole'];
export type PoolCreate = components['schemas']['PoolCreate'];
export type PendingDevice = components['schemas']['PendingDevice'];

/** The node list is polled every 10 s, so a newly paired node appears and goes online without a reload. */
export const NODES_POLL_MS = 10_000;

/** The allocation's ranges and defaults: the spec's NodeAllocation (CPU 10-80 %, memory 20-70 %, GPU 0-90 %, disk 1-4000 GB). */
export const ALLOCATION_RANGES = constants.nodeAllocation as Record<keyof NodeAllocation, { minimum: number; maximum: number; default: number }>;

export const nodeQueries = {
  all: ['nodes'] as const,

  /** GET /api/nodes — the caller's nodes, newest first (revoked ones are gone), polled every 10 s. */
  list: () =>
    queryOptions({
      queryKey: [...nodeQueries.all, 'list'] as const,
      queryFn: () => unwrap(api.GET('/api/nodes')).then((r) => r.nodes),
      refetchInterval: NODES_POLL_MS,
    }),

  /** GET /api/nodes/earnings/{id} — what one of the caller's nodes earned over the last 30 days, for what work. */
  earnings: (id: string) =>
    queryOptions({
      queryKey: [...nodeQueries.all, 'earnings', id] as const,
      queryFn: () => unwrap(api.GET('/api/nodes/earnings/{id}', { params: { path: { id } } })),
    }),

  /** GET /api/nodes/pools — the caller's pools, newest first; polled like the nodes, so forming → healthy shows on its own. */
  pools: () =>
    queryOptions({
      queryKey: [...nodeQueries.all, 'pools'] as const,
      queryFn: () => unwrap(api.GET('/api/nodes/pools')).then((r) => r.pools),
      refetchInterval: NODES_POLL_MS,
    }),

  /**
   * GET /api/nodes/device-codes/{userCode} — the machine waiting for this code (RFC 8628's device flow), before its
   * owner confirms. Lookups count against a per-account limit, so the answer is read once: no refetch while it is
   * shown, and no retry of an answer the API gave (404 unknown or expired, 429 limit reached), not even when the page
   * mounts after its loader's prefetch failed; looking the code up again is the owner's choice.
   */
  pendingDevice: (userCode: string) =>
    queryOptions({
      queryKey: [...nodeQueries.all, 'device-code', userCode] as const,
      queryFn: () => unwrap(api.GET('/api/nodes/device-codes/{userCode}', { params: { path: { userCode } } })),
      staleTime: Infinity,
      retryOnMount: false,
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 1,
    }),
};

/** One node changed: its row is replaced at once, then the list is read again. */
function replaceNode(client: QueryClient, node: ProviderNode): void {
  client.setQueryData(nodeQueries.list().queryKey, (nodes) => nodes?.map((n) => (n.id === node.id ? node : n)));
  void client.invalidateQueries({ queryKey: nodeQueries.all });
}

export const nodeMutations = {
  /**
   * POST /api/nodes/device-codes/{userCode} — the owner confirms: the machine's next poll gets a join token and it pairs
   * itself. The code is used up (a lookup would answer 404); the node list is read again.
   */
  approvePendingDevice: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'approve-device'] as const,
      mutationFn: (userCode: string): Promise<PendingDevice> =>
        unwrap(api.POST('/api/nodes/device-codes/{userCode}', { params: { path: { userCode } } })),
      onSuccess: (_device, userCode, _ctx, { client }) => {
        client.removeQueries({ queryKey: nodeQueries.pendingDevice(userCode).queryKey, exact: true });
        void client.invalidateQueries({ queryKey: nodeQueries.list().queryKey });
      },
    }),

  /** POST /api/nodes/join-tokens — a single-use token (15 minutes) and the command that pairs a machine with it. */
  createJoinToken: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'join-token'] as const,
      mutationFn: (): Promise<JoinToken> => unwrap(api.POST('/api/nodes/join-tokens')),
    }),

  /** PATCH /api/nodes/{id} — rename, pause or resume, or set the allocation. */
  update: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'update'] as const,
      mutationFn: ({ id, body }: { id: string; body: NodeUpdate }): Promise<ProviderNode> =>
        unwrap(api.PATCH('/api/nodes/{id}', { params: { path: { id } }, body })),
      onSuccess: (node, _vars, _ctx, { client }) => replaceNode(client, node),
    }),

  /** DELETE /api/nodes/{id} — the node's credential stops working at once; its earnings stay. */
  revoke: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'revoke'] as const,
      mutationFn: async (id: string): Promise<void> => {
        await unwrap(api.DELETE('/api/nodes/{id}', { params: { path: { id } } }));
      },
      onSuccess: (_result, id, _ctx, { client }) => {
        client.setQueryData(nodeQueries.list().queryKey, (nodes) => nodes?.filter((n) => n.id !== id));
        void client.invalidateQueries({ queryKey: nodeQueries.all });
      },
    }),

  /** POST /api/nodes/pools — the new pool (forming) leads the list at once; nodes and pools are then read again. */
  createPool: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'create-pool'] as const,
      mutationFn: (body: PoolCreate): Promise<Pool> => unwrap(api.POST('/api/nodes/pools', { body })),
      onSuccess: (pool, _vars, _ctx, { client }) => {
        client.setQueryData(nodeQueries.pools().queryKey, (pools) => (pools ? [pool, ...pools.filter((p) => p.id !== pool.id)] : pools));
        void client.invalidateQueries({ queryKey: nodeQueries.all });
      },
    }),

  /** DELETE /api/nodes/pools/{poolId} — the members serve on their own again from their next heartbeat. */
  deletePool: () =>
    mutationOptions({
      mutationKey: [...nodeQueries.all, 'delete-pool'] as const,
      mutationFn: async (poolId: string): Promise<void> => {
        await unwrap(api.DELETE('/api/nodes/pools/{poolId}', { params: { path: { poolId } } }));
      },
      onSuccess: (_result, poolId, _ctx, { client }) => {
        client.setQueryData(nodeQueries.pools().queryKey, (pools) => pools?.filter((p) => p.id !== poolId));
        void client.invalidateQueries({ queryKey: nodeQueries.all });
      },
    }),
};
