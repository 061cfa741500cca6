import { useMutation } from '@tanstack/react-query';
import { adminMutations } from '../../api/queries/admin';
import { ApiError, failureText } from '../../api/errors';
import { Icon } from '../../components/Icon';
import { browser } from '../auth/browser';

/** Shown when the dashboard does not open (the account is no longer an operator, or the server failed). */
export const QUEUE_DASHBOARD_FAILED = 'The queue dashboard could not be opened. Please try again.';

/**
 * For operators only (the shell shows it when GET /api/users/me says `role: admin`): asks the API for the dashboard's
 * cookie, then leaves the app for /admin/queues, a page of the API (Bull Board) that the cookie opens for 15 minutes.
 */
export function QueueDashboardButton() {
  const open = useMutation({
    ...adminMutations.openQueueDashboard(),
    onSuccess: (session) => browser.assign(session.url),
  });
  const failure = open.error && (open.error instanceof ApiError && open.error.status === 429 ? failureText(open.error) : QUEUE_DASHBOARD_FAILED);
  return (
    <>
      <button type="button" className="btn btn-ghost btn-block btn-sm" onClick={() => open.mutate()} disabled={open.isPending || open.isSuccess}>
        <Icon name="external" size={18} />
        Queue dashboard
      </button>
      {failure && (
        <p className="alert alert-error" role="alert">
          {failure}
        </p>
      )}
    </>
  );
}
