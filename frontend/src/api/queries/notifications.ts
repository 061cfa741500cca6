import { queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type Notification = components['schemas']['Notification'];
export type NotificationList = components['schemas']['NotificationList'];

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

/** PUT /api/notifications/{id}/read — idempotent; answers the updated notification. */
export async function markNotificationRead(id: string): Promise<Notification> {
  const { notification } = await unwrap(api.PUT('/api/notifications/{id}/read', { params: { path: { id } } }));
  return notification;
}
