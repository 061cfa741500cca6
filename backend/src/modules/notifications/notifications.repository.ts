import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';
import type { Cursor } from '../../common/cursor';

export interface NewNotification {
  userId: string;
  type: NotificationType;
  title: string;
  message: string;
  data: Record<string, unknown> | null;
}

export type NotificationType = Schemas['Notification']['type'];

export interface NotificationRow {
  id: string;
  type: NotificationType;
  title: string;
  message: string;
  data: Record<string, unknown> | null;
  read_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, type, title, message, data, read_at, created_at';

/** The notifications table. */
@Injectable()
export class NotificationsRepository extends Repository {
  async insert(userId: string, type: NotificationType, title: string, message: string, data: Record<string, unknown> | null, tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO notifications (user_id, type, title, message, data) VALUES ($1, $2, $3, $4, $5)`,
      [userId, type, title, message, data ? JSON.stringify(data) : null],
      tx,
    );
  }

  /** Several notifications in one statement. */
  async insertMany(rows: NewNotification[], tx?: Tx): Promise<void> {
    await this.rows(
      `INSERT INTO notifications (user_id, type, title, message, data)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])`,
      [
        rows.map((r) => r.userId),
        rows.map((r) => r.type),
        rows.map((r) => r.title),
        rows.map((r) => r.message),
        rows.map((r) => (r.data ? JSON.stringify(r.data) : null)),
      ],
      tx,
    );
  }

  /** Newest first, `limit` rows after the keyset cursor. */
  page(userId: string, limit: number, after: Cursor | null, tx?: Tx): Promise<NotificationRow[]> {
    return this.rows<NotificationRow>(
      `SELECT ${COLUMNS} FROM notifications
       WHERE user_id = $1 ${after ? 'AND (created_at, id) < ($3, $4)' : ''}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      after ? [userId, limit, after.at, after.id] : [userId, limit],
      tx,
    );
  }

  async unreadCount(userId: string, tx?: Tx): Promise<number> {
    const row = await this.one<{ unread: number }>(
      `SELECT count(*)::int AS unread FROM notifications WHERE user_id = $1 AND read_at IS NULL`,
      [userId],
      tx,
    );
    return row!.unread;
  }

  /** Marks one of the user's notifications read (once: the first read time stays). */
  markRead(userId: string, id: string, tx?: Tx): Promise<NotificationRow | undefined> {
    return this.one<NotificationRow>(
      `UPDATE notifications SET read_at = coalesce(read_at, now()) WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId],
      tx,
    );
  }

  /** Every notification of the user (the account is deleted). */
  async removeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM notifications WHERE user_id = $1`, [userId], tx);
  }
}
