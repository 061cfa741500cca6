import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import type { Tx } from '../../database/repository';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { NotificationsRepository, type NewNotification, type NotificationRow, type NotificationType } from './notifications.repository';

const toBody = (r: NotificationRow): Schemas['Notification'] => ({
  id: r.id,
  type: r.type,
  title: r.title,
  message: r.message,
  ...(r.data ? { data: r.data } : {}),
  read: r.read_at !== null,
  read_at: r.read_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
});

@Injectable()
export class NotificationsService {
  constructor(private readonly notifications: NotificationsRepository) {}

  /** Written inside the caller's transaction, so a notification exists exactly when its event does. */
  async create(userId: string, type: NotificationType, title: string, message: string, data: Record<string, unknown> | null, tx: Tx): Promise<void> {
    await this.notifications.insert(userId, type, title, message, data, tx);
  }

  /** Several at once, in one statement inside the caller's transaction (a batch of transfers). */
  createMany(rows: NewNotification[], tx: Tx): Promise<void> {
    return this.notifications.insertMany(rows, tx);
  }

  async list(callerId: string, userId: string, limit: number, cursor?: string): Promise<Schemas['NotificationList']> {
    if (callerId !== userId) throw new ForbiddenException('You do not have access to these notifications');
    const rows = await this.notifications.page(userId, limit + 1, cursor ? decodeCursor(cursor) : null);
    const unread = await this.notifications.unreadCount(userId);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      notifications: page.map(toBody),
      unread_count: unread,
      next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }

  async markRead(callerId: string, id: string): Promise<Schemas['NotificationUpdated']> {
    const row = await this.notifications.markRead(callerId, id);
    if (!row) throw new NotFoundException('Notification not found');
    return { notification: toBody(row) };
  }
}
