import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { nodeQueries } from '../../api/queries/nodes';
import { DailyBars } from '@glob/ui';
import { LOCALE, formatDay, formatGlob } from '../../components/format';
import { NODES_TEXTS } from './texts';

/**
 * What a node earned over the last 30 days and for what work: tokens served, GLOB earned and pending per day (a
 * chart, and a table), hours online and GLOB per online hour, and the verifications of its work that failed. Read when
 * the owner opens it.
 */
export function NodeEarnings({ nodeId }: { nodeId: string }) {
  const [open, setOpen] = useState(false);
  const query = useQuery({ ...nodeQueries.earnings(nodeId), enabled: open });
  const summaryId = useId();
  const data = query.data;
  const days = (data?.daily ?? []).map((d) => ({ ...d, amount: d.earned + d.pending }));

  return (
    <details className="nodes-earnings" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{NODES_TEXTS.earningsTitle}</summary>
      {query.isLoading ? <p role="status">{NODES_TEXTS.earningsLoading}</p> : null}
      {query.isError ? (
        <p className="alert alert-error" role="alert">
          {NODES_TEXTS.earningsError}
        </p>
      ) : null}
      {data ? (
        <figure className="earnings">
          <figcaption id={summaryId} className="earnings-summary">
            {NODES_TEXTS.earningsSummary(formatGlob(data.earned), formatGlob(data.pending), data.tokens_served.toLocaleString(LOCALE))}
          </figcaption>
          <dl className="nodes-facts">
            <div>
              <dt>{NODES_TEXTS.tokensServed}</dt>
              <dd>{data.tokens_served.toLocaleString(LOCALE)}</dd>
            </div>
            <div>
              <dt>{NODES_TEXTS.onlineHours}</dt>
              <dd>{data.online_hours.toLocaleString(LOCALE)}</dd>
            </div>
            <div>
              <dt>{NODES_TEXTS.perHour}</dt>
              <dd>{formatGlob(data.glob_per_hour)} GLOB</dd>
            </div>
            <div>
              <dt>{NODES_TEXTS.checks}</dt>
              <dd>{NODES_TEXTS.checksValue(data.checks)}</dd>
            </div>
          </dl>
          <DailyBars days={days} labelledBy={summaryId} />
          <details className="earnings-details">
            <summary>{NODES_TEXTS.dailyTable}</summary>
            <div className="tx-scroll" role="region" aria-label={`${NODES_TEXTS.dailyTable}, scrollable`} tabIndex={0}>
              <table className="tx-table">
                <thead>
                  <tr>
                    <th scope="col">{NODES_TEXTS.day}</th>
                    <th scope="col" className="num">
                      {NODES_TEXTS.tokens}
                    </th>
                    <th scope="col" className="num">
                      {NODES_TEXTS.earned}
                    </th>
                    <th scope="col" className="num">
                      {NODES_TEXTS.pending}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.daily.map((d) => (
                    <tr key={d.date}>
                      <td>
                        <time dateTime={d.date}>{formatDay(d.date)}</time>
                      </td>
                      <td className="num">{d.tokens.toLocaleString(LOCALE)}</td>
                      <td className="num">{formatGlob(d.earned)}</td>
                      <td className="num">{formatGlob(d.pending)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </figure>
      ) : null}
    </details>
  );
}
