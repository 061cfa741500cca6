import { mutationOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type QueueDashboardSession = components['schemas']['QueueDashboardSession'];

/** Tag `admin`: operators (`role: admin` on the signed-in user). It has no queries yet, only the key root. */
export const adminQueries = {
  all: ['admin'] as const,
};

export const adminMutations = {
  /**
   * POST /api/admin/queues/session — the server sets this browser's queue dashboard cookie (15 minutes, sent only to
   * /admin/queues); the answer says where the dashboard is. 404 for anyone who is not an operator.
   */
  openQueueDashboard: () =>
    mutationOptions({
      mutationKey: [...adminQueries.all, 'queue-dashboard'] as const,
      mutationFn: (): Promise<QueueDashboardSession> => unwrap(api.POST('/api/admin/queues/session')),
    }),
};
