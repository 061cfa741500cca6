import { useId } from 'react';
import { Card, DailyBars, LOCALE, Stat, formatBytes, formatGlob, formatShare } from '@glob/ui';
import type { NodeSelf } from './api';
import { TEXTS } from './texts';

const T = TEXTS.analytics;
const speed = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });

/** The platform's figures of this node: work served, GLOB per day and per model, and the hardware as it measured it. */
export function Analytics({ platform }: { platform: NodeSelf | undefined }) {
  const summaryId = useId();
  if (!platform) {
    return (
      <Card title={T.title}>
        <p className="panel-muted">{TEXTS.pools.unavailable}</p>
      </Card>
    );
  }
  const { node, earnings, by_model: byModel } = platform;
  const days = earnings.daily.map((d) => ({ date: d.date, amount: d.earned + d.pending }));
  const total = days.reduce((sum, d) => sum + d.amount, 0);
  const host = node.host;
  const gpu = host.gpu ? (host.vram_bytes ? `${host.gpu} (${formatBytes(host.vram_bytes)})` : host.gpu) : T.cpuOnly;

  return (
    <Card title={T.title}>
      <dl className="ui-stats">
        <Stat label={T.tokensServed} value={earnings.tokens_served.toLocaleString(LOCALE)} />
        <Stat label={T.speed} value={node.measured_tokens_per_second === null ? '—' : speed.format(node.measured_tokens_per_second)} />
        <Stat label={T.tasks} value={node.tasks_served.toLocaleString(LOCALE)} />
        <Stat label={T.failedChecks} value={earnings.checks.failed.toLocaleString(LOCALE)} />
        <Stat label={T.uptime} value={formatShare(node.uptime_30d)} />
        <Stat label={T.onlineHours} value={earnings.online_hours.toLocaleString(LOCALE)} />
      </dl>

      <figure className="panel-figure">
        <h3>{T.perDay}</h3>
        <figcaption id={summaryId} className="earnings-summary">
          {T.perDaySummary(earnings.days, formatGlob(total))}
        </figcaption>
        <DailyBars days={days} labelledBy={summaryId} />
      </figure>

      <h3>{T.perModel}</h3>
      {byModel.length === 0 ? (
        <p className="panel-muted">{T.noModels}</p>
      ) : (
        <div className="tx-scroll">
          <table className="tx-table">
            <caption className="visually-hidden">{T.perModel}</caption>
            <thead>
              <tr>
                <th scope="col">{T.columns.model}</th>
                <th scope="col" className="num">
                  {T.columns.tasks}
                </th>
                <th scope="col" className="num">
                  {T.columns.tokens}
                </th>
                <th scope="col" className="num">
                  {T.columns.earned}
                </th>
                <th scope="col" className="num">
                  {T.columns.pending}
                </th>
              </tr>
            </thead>
            <tbody>
              {byModel.map((m) => (
                <tr key={m.model_id}>
                  <td>{m.model_id}</td>
                  <td className="num">{m.tasks.toLocaleString(LOCALE)}</td>
                  <td className="num">{m.tokens.toLocaleString(LOCALE)}</td>
                  <td className="num">{formatGlob(m.earned)} GLOB</td>
                  <td className="num">{formatGlob(m.pending)} GLOB</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h3>{T.hardware}</h3>
      <dl className="ui-stats">
        <Stat label={T.cores} value={host.cpu_cores} />
        <Stat label={T.memory} value={formatBytes(host.memory_bytes)} />
        <Stat label={T.gpu} value={gpu} />
        <Stat label={T.compute} value={node.compute ? node.compute.backend.toUpperCase() : '—'} />
        <Stat label={T.score} value={node.hardware_score.toFixed(2)} />
        <Stat label={T.system} value={`${host.os}/${host.arch}`} />
      </dl>
    </Card>
  );
}
