import type { ReactNode } from 'react';
import '../stat.css';

/** One figure as a term and its value; several go in a `<dl className="ui-stats">`. */
export function Stat({ label, value, unit }: { label: ReactNode; value: ReactNode; unit?: string }) {
  return (
    <div className="ui-stat">
      <dt>{label}</dt>
      <dd>
        {value}
        {unit ? <span className="ui-stat-unit"> {unit}</span> : null}
      </dd>
    </div>
  );
}
