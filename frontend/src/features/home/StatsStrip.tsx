import { useQuery } from '@tanstack/react-query';
import { systemQueries } from '../../api/queries/system';
import { Icon, type IconName } from '../../components/CoreIcon';
import { useHydrated } from '../../components/useHydrated';
import { formatStats } from './format';

/** Live figures: loading shows '...', failures show the fallback figures; refreshed every 30 s. */
export function StatsStrip() {
  const query = useQuery(systemQueries.siteStats());
  // A prerendered page hydrates with '...', as it was built; the figures follow right after.
  const data = useHydrated() ? query.data : undefined;
  const text = formatStats(data);
  const items: { label: string; value: string; icon: IconName }[] = [
    { label: 'Active Users', value: text.activeUsers, icon: 'users' },
    { label: 'Tasks Processed', value: text.tasksProcessed, icon: 'cpu' },
    { label: 'Data Processed', value: text.dataProcessed, icon: 'database' },
  ];
  return (
    <section className="stats-strip" aria-label="Network statistics">
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
