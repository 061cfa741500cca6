import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { Icon, type IconName } from '../../components/Icon';
import { RELEASE_HOST } from '../../env';
import { DASHBOARD_REFRESH_MS, FALLBACK_NETWORK_STATS, networkStatsQuery } from '../../api/queries/system';
import { USD_PER_GLOB, ZERO_WALLET, walletQueries } from '../../api/queries/wallet';
import { displayName, useSession, userId } from '../session/session';
import { LOCALE, formatGlob, formatUsd } from '../../components/format';
import { StatCard } from '../wallet/StatCard';
import { RecentNotifications } from './RecentNotifications';
import './dashboard.css';

/** The balance change label is a fixed text. */
export const BALANCE_CHANGE_LABEL = '+12.5%';

const FEATURES: { name: string; available: boolean }[] = [
  { name: 'AI Assistant', available: true },
  { name: 'Token Wallet', available: true },
  { name: 'Resource Sharing', available: false },
  { name: 'P2P Network', available: false },
  { name: 'Model Training', available: false },
  { name: 'Advanced Analytics', available: false },
];

const count = new Intl.NumberFormat(LOCALE);

/** Welcome line, three figure cards, quick actions, feature access; refreshed every 10 s. */
export function DashboardPage() {
  const { user } = useSession();
  const id = userId(user);
  const wallet = useQuery({ ...walletQueries.summary(id ?? '', DASHBOARD_REFRESH_MS), enabled: Boolean(id) });
  const network = useQuery(networkStatsQuery());

  const name = displayName(user);
  const loading = wallet.isLoading || network.isLoading;
  // Network stats failure → the fallback figures; other wallet reads → zeros.
  const stats = network.data ?? FALLBACK_NETWORK_STATS;
  const balance = wallet.data?.balance ?? ZERO_WALLET.balance;

  return (
    <div className="app-page dashboard">
      <header className="app-page-head">
        <h1>Dashboard</h1>
        <p className="dash-welcome">Welcome back, {name}!</p>
      </header>

      {loading ? (
        <div className="app-loading-inline" role="status">
          <span className="spinner small" aria-hidden="true" />
          Loading dashboard...
        </div>
      ) : (
        <>
          <section className="app-section" aria-labelledby="dash-overview">
            <h2 id="dash-overview" className="visually-hidden">
              Overview
            </h2>
            <ul className="stat-grid three">
              <StatCard
                title="Token Balance"
                value={formatGlob(balance)}
                unit="GLOB"
                icon="token"
                badge={<span className="stat-card-change">{BALANCE_CHANGE_LABEL}</span>}
              >
                <p className="stat-card-detail">≈ {formatUsd(balance * USD_PER_GLOB)} USD</p>
              </StatCard>
              <StatCard title="Connected Peers" value={count.format(stats.connected_peers)} icon="network">
                <p className="stat-card-detail">
                  {count.format(stats.active_nodes)} {stats.active_nodes === 1 ? 'node' : 'nodes'} online
                </p>
              </StatCard>
              <StatCard title="Active Tasks" value={count.format(stats.active_tasks)} icon="cpu">
                <p className="stat-card-detail">
                  {stats.success_rate === null ? '—' : `${stats.success_rate}%`} success rate
                  {' · '}
                  {stats.pending_tasks === null ? '—' : count.format(stats.pending_tasks)} pending
                </p>
              </StatCard>
            </ul>
          </section>

          <div className="dash-columns">
            <section className="app-section" aria-labelledby="dash-actions">
              <h2 id="dash-actions">Quick Actions</h2>
              <ul className="dash-actions">
                <QuickAction to="/app/assistant" icon="chat" title="AI Assistant" text="Chat with AI models" />
                <QuickAction to="/app/wallet" icon="token" title="Buy Tokens" text="Top up your GLOB balance" />
                <li>
                  <a className="card dash-action" href={RELEASE_HOST} target="_blank" rel="noopener noreferrer">
                    <span className="dash-action-icon" aria-hidden="true">
                      <Icon name="download" size={20} />
                    </span>
                    <span className="dash-action-text">
                      <strong>Download Desktop</strong>
                      <span>Share resources and earn tokens</span>
                    </span>
                    <span className="visually-hidden"> (opens in a new tab)</span>
                    <Icon name="external" size={16} className="dash-action-arrow" />
                  </a>
                </li>
              </ul>
            </section>

            <section className="app-section" aria-labelledby="dash-features">
              <h2 id="dash-features">Feature Access</h2>
              <ul className="card dash-features">
                {FEATURES.map((f) => (
                  <li key={f.name}>
                    <span>{f.name}</span>
                    <span className={f.available ? 'badge badge-accent' : 'badge badge-warn'}>{f.available ? 'Available' : 'Desktop Only'}</span>
                  </li>
                ))}
              </ul>
            </section>
          </div>

          {id ? <RecentNotifications userId={id} /> : null}
        </>
      )}
    </div>
  );
}

function QuickAction({ to, icon, title, text }: { to: '/app/assistant' | '/app/wallet'; icon: IconName; title: string; text: string }) {
  return (
    <li>
      <Link className="card dash-action" to={to}>
        <span className="dash-action-icon" aria-hidden="true">
          <Icon name={icon} size={20} />
        </span>
        <span className="dash-action-text">
          <strong>{title}</strong>
          <span>{text}</span>
        </span>
        <Icon name="arrowRight" size={16} className="dash-action-arrow" />
      </Link>
    </li>
  );
}
