import type { Ref } from 'react';
import type { SiteStats } from '../../api/queries/system';
import { Icon, type IconName } from '../../components/CoreIcon';
import { formatStats } from './format';

/** The strip's markup: '...' while `data` is undefined (loading), else the figures (the server's or the fallback). */
export function StatsView({ data, ref }: { data: SiteStats | undefined; ref?: Ref<HTMLElement> }) {
  const text = formatStats(data);
  const items: { label: string; value: string; icon: IconName }[] = [
    { label: 'Active Users', value: text.activeUsers, icon: 'users' },
    { label: 'Tasks Processed', value: text.tasksProcessed, icon: 'cpu' },
    { label: 'Data Processed', value: text.dataProcessed, icon: 'database' },
  ];
  return (
    <section ref={ref} className="stats-strip" aria-label="Network statistics">
      <div className="container">
        <dl className="stats-grid" aria-busy={!data}>
          {items.map((item) => (
            <div key={item.label} className="stat">
              <span className="stat-icon" aria-hidden="true">
                <Icon name={item.icon} />
              </span>
              <dt>{item.label}</dt>
              <dd data-testid={`stat-${item.label.toLowerCase().replace(/ /g, '-')}`}>{item.value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}
