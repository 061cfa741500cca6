import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import { EARNINGS_DAYS, walletQueries } from '../../api/queries/wallet';
import { formatDay, formatGlob } from '../../components/format';
import { DailyBars } from '@glob/ui';

/**
 * Daily earnings of the last 30 days (GET earnings?days=30) as a small SVG bar chart. The chart is an image with a
 * text summary as its name; the figures themselves are in a table below it for screen readers and keyboards.
 */
export function EarningsChart({ userId }: { userId: string }) {
  const query = useQuery(walletQueries.earnings(userId, EARNINGS_DAYS));
  const summaryId = useId();
  const days = query.data?.earnings ?? [];
  const total = query.data?.total ?? 0;
  const tasks = days.reduce((n, d) => n + d.tasks, 0);
  const best = days.reduce<(typeof days)[number] | null>((b, d) => (d.amount > 0 && (!b || d.amount > b.amount) ? d : b), null);

  const summary =
    total > 0
      ? `${formatGlob(total)} GLOB earned in the last ${EARNINGS_DAYS} days from ${tasks} ${tasks === 1 ? 'task' : 'tasks'}` +
        (best ? `; best day ${formatDay(best.date)} with ${formatGlob(best.amount)} GLOB.` : '.')
      : `No earnings in the last ${EARNINGS_DAYS} days. Share resources with the desktop app to earn GLOB.`;

  return (
    <section className="app-section" aria-labelledby="wallet-earnings">
      <h2 id="wallet-earnings">Earnings (Last {EARNINGS_DAYS} Days)</h2>
      <figure className="card earnings">
        {query.isLoading ? (
          <p role="status">Loading earnings...</p>
        ) : (
          <>
            <figcaption id={summaryId} className="earnings-summary">
              {summary}
            </figcaption>
            {days.length > 0 ? (
              <>
                <DailyBars days={days} labelledBy={summaryId} />
                <details className="earnings-details">
                  <summary>Show daily earnings as a table</summary>
                  <div className="tx-scroll" role="region" aria-label="Daily earnings table, scrollable" tabIndex={0}>
                    <table className="tx-table">
                      <thead>
                        <tr>
                          <th scope="col">Date</th>
                          <th scope="col" className="num">
                            Earned
                          </th>
                          <th scope="col" className="num">
                            Tasks
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {days.map((d) => (
                          <tr key={d.date}>
                            <td>
                              <time dateTime={d.date}>{formatDay(d.date)}</time>
                            </td>
                            <td className="num">{formatGlob(d.amount)} GLOB</td>
                            <td className="num">{d.tasks}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </details>
              </>
            ) : null}
          </>
        )}
      </figure>
    </section>
  );
}
