import type { ReactNode } from 'react';
import { Icon, type IconName } from '../../components/Icon';
import './stat-card.css';

/** One figure card of the dashboard and the wallet: a title, a big value with its unit, and detail lines. */
export function StatCard({
  title,
  value,
  unit,
  icon,
  children,
  badge,
}: {
  title: string;
  value: string;
  unit?: string;
  icon: IconName;
  children?: ReactNode;
  badge?: ReactNode;
}) {
  return (
    <li className="card stat-card">
      <div className="stat-card-head">
        <h3 className="stat-card-title">{title}</h3>
        <span className="stat-card-icon" aria-hidden="true">
          <Icon name={icon} size={20} />
        </span>
      </div>
      <p className="stat-card-value">
        <span className="stat-card-number">{value}</span>
        {unit ? <span className="stat-card-unit"> {unit}</span> : null}
      </p>
      {children}
      {badge}
    </li>
  );
}
