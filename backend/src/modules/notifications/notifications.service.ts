import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Schemas } from '../../contract/types';
import { rowsOf } from '../../database/sql';
import { decodeCursor, encodeCursor } from '../../common/cursor';

type NotificationType = Schemas['Notification']['type'];

interface Row {
  id: string;
  type: NotificationType;
  title: string;
  message: string;
  data: Record<string, unknown> | null;
  read_at: Date | null;
  created_at: Date;
}

const toBody = (r: Row): Schemas['Notification'] => ({
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
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Written inside the caller's transaction, so a notification exists exactly when its event does. */
  async create(
    em: EntityManager,
    userId: string,
    type: NotificationType,
    title: string,
    message: string,
    data?: Record<string, unknown>,
  ): Promise<void> {
    await em.query(`INSERT INTO notifications (user_id, type, title, message, data) VALUES ($1, $2, $3, $4, $5)`, [
      userId,
      type,
      title,
      message,
      data ? JSON.stringify(data) : null,
    ]);
  }

  async list(callerId: string, userId: string, limit: number, cursor?: string): Promise<Schemas['NotificationList']> {
    if (callerId !== userId) throw new ForbiddenException('You do not have access to these notifications');
    const after = cursor ? decodeCursor(cursor) : null;
    const rows = (await this.db.query(
      `SELECT id, type, title, message, data, read_at, created_at FROM notifications
       WHERE user_id = $1 ${after ? 'AND (created_at, id) < ($3, $4)' : ''}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      after ? [userId, limit + 1, after.at, after.id] : [userId, limit + 1],
    )) as Row[];
    const [{ unread }] = (await this.db.query(`SELECT count(*)::int AS unread FROM notifications WHERE user_id = $1 AND read_at IS NULL`, [
      userId,
    ])) as [{ unread: number }];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      notifications: page.map(toBody),
      unread_count: unread,
      next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
    };
  }

  async markRead(callerId: string, id: string): Promise<Schemas['NotificationUpdated']> {
    const [row] = rowsOf<Row>(
      await this.db.query(
        `UPDATE notifications SET read_at = coalesce(read_at, now()) WHERE id = $1 AND user_id = $2
         RETURNING id, type, title, message, data, read_at, created_at`,
        [id, callerId],
      ),
    );
    if (!row) throw new NotFoundException('Notification not found');
    return { notification: toBody(row) };
  }
}
