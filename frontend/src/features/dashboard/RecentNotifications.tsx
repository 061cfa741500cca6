import { useMutation, useQuery } from '@tanstack/react-query';
import { formatDateTime } from '../../components/format';
import { DASHBOARD_REFRESH_MS } from '../../api/queries/system';
import { NOTIFICATIONS_LIMIT, notificationMutations, notificationQueries } from '../../api/queries/notifications';

/** The 5 newest notifications (welcome bonus, purchases, transfers received, rewards), each markable as read. */
export function RecentNotifications({ userId }: { userId: string }) {
  const list = useQuery(notificationQueries.list(userId, NOTIFICATIONS_LIMIT, DASHBOARD_REFRESH_MS));
  const markRead = useMutation(notificationMutations.markRead());

  const items = list.data?.notifications ?? [];
  const unread = list.data?.unread_count ?? 0;

  return (
    <section className="app-section" aria-labelledby="dash-notifications">
      <div className="app-section-head dash-notes-head">
        <h2 id="dash-notifications">Recent Notifications</h2>
        {unread > 0 ? <span className="badge badge-cyan">{unread} unread</span> : null}
      </div>
      {list.isLoading ? null : items.length === 0 ? (
        <p className="card dash-notes-empty">No notifications yet</p>
      ) : (
        <ul className="card dash-notes">
          {items.map((n) => (
            <li key={n.id} className={n.read ? 'dash-note' : 'dash-note unread'}>
              <div className="dash-note-body">
                <p className="dash-note-title">
                  {n.read ? null : <span className="visually-hidden">Unread: </span>}
                  {n.title}
                </p>
                <p className="dash-note-message">{n.message}</p>
                <p className="dash-note-time">
                  <time dateTime={n.created_at}>{formatDateTime(n.created_at)}</time>
                </p>
              </div>
              {n.read ? null : (
                <button
                  type="button"
                  className="btn btn-sm btn-ghost"
                  aria-label={`Mark as read: ${n.title}`}
                  disabled={markRead.isPending && markRead.variables === n.id}
                  onClick={() => markRead.mutate(n.id)}
                >
                  Mark as read
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
