import { mutationOptions, queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type Notification = components['schemas']['Notification'];

/** Notifications limit 5. */
export const NOTIFICATIONS_LIMIT = 5;

export const notificationQueries = {
  all: ['notifications'] as const,
  /** GET /api/users/{id}/notifications?limit=5 — newest first, with the unread count. */
  list: (userId: string, limit = NOTIFICATIONS_LIMIT, refetchInterval: number | false = false) =>
    queryOptions({
      queryKey: [...notificationQueries.all, userId, { limit }] as const,
      queryFn: () => unwrap(api.GET('/api/users/{id}/notifications', { params: { path: { id: userId }, query: { limit } } })),
      refetchInterval,
      retry: false,
    }),
};

export const notificationMutations = {
  /** PUT /api/notifications/{id}/read — idempotent; answers the updated notification. */
  markRead: () =>
    mutationOptions({
      mutationKey: [...notificationQueries.all, 'read'] as const,
      mutationFn: async (id: string): Promise<Notification> => {
        const { notification } = await unwrap(api.PUT('/api/notifications/{id}/read', { params: { path: { id } } }));
        return notification;
      },
      onSuccess: (_notification, _id, _ctx, { client }) => client.invalidateQueries({ queryKey: notificationQueries.all }),
      onError: (error) => console.error('Failed to mark the notification read:', error),
    }),
};
