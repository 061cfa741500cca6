import { formatDay, formatGlob } from './format';
import '../daily-figures.css';

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 4;
/** Bars never get wider than this, so a short window does not draw slabs. */
const MAX_BAR = 36;

/**
 * GLOB per UTC day (oldest first) as a small SVG bar chart with its first and last dates; an image named by the
 * element `labelledBy` (a text summary), so the figures themselves belong in a table beside it.
 */
export function DailyBars({ days, labelledBy }: { days: ReadonlyArray<{ date: string; amount: number }>; labelledBy: string }) {
  const max = days.reduce((m, d) => Math.max(m, d.amount), 0);
  const slot = days.length ? WIDTH / days.length : 0;
  const barWidth = Math.min(Math.max(slot - GAP, 1), MAX_BAR);
  if (!days.length) return null;
  return (
    <>
      <svg className="earnings-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-labelledby={labelledBy}>
        <line x1="0" x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="earnings-axis" />
        {days.map((d, i) => {
          const h = max > 0 ? Math.max((d.amount / max) * (HEIGHT - 8), d.amount > 0 ? 3 : 0) : 0;
          return (
            <rect
              key={d.date}
              className={d.amount > 0 ? 'earnings-bar' : 'earnings-bar zero'}
              data-date={d.date}
              x={i * slot + (slot - barWidth) / 2}
              y={HEIGHT - Math.max(h, 2)}
              width={barWidth}
              height={Math.max(h, 2)}
              rx={2}
            >
              <title>{`${formatDay(d.date)}: ${formatGlob(d.amount)} GLOB`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="earnings-range" aria-hidden="true">
        <span>{formatDay(days[0]!.date)}</span>
        <span>{formatDay(days[days.length - 1]!.date)}</span>
      </div>
    </>
  );
}
