import { Link, useLocation, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Icon, type IconName } from '../../components/Icon';
import { meQuery } from '../../api/queries/accounts';
import { formatGlob } from '../../components/format';
import { ThemeToggle } from '../../components/ThemeToggle';
import { displayName, endSession, useSession, userBalance } from '../session/session';
import { useDocumentTitle } from '../session/title';
import { QueueDashboardButton } from './QueueDashboardButton';
import { PAIR_TEXTS } from '../nodes/texts';

const LINKS: {
  to: '/app/dashboard' | '/app/assistant' | '/app/wallet' | '/app/nodes' | '/app/api-keys' | '/app/security';
  label: string;
  icon: IconName;
}[] = [
  { to: '/app/dashboard', label: 'Dashboard', icon: 'scale' },
  { to: '/app/assistant', label: 'AI Assistant', icon: 'chat' },
  { to: '/app/wallet', label: 'Token Wallet', icon: 'token' },
  { to: '/app/nodes', label: 'Your nodes', icon: 'cpu' },
  { to: '/app/api-keys', label: 'API keys', icon: 'code' },
  { to: '/app/security', label: 'Security', icon: 'shield' },
];

/** The tab titles: each link's page, and pages reached from elsewhere (a machine's app opens the pair page). */
const TITLES: { to: string; label: string }[] = [...LINKS, { to: '/app/pair', label: PAIR_TEXTS.title }];

/**
 * The left sidebar (logo, the user's initial, name or e-mail and balance, the app's links, 'Queue dashboard' for
 * operators, 'Download Desktop App', Logout) — collapsible on small screens — and the top bar (welcome, Token Balance, theme).
 * The user is read from the session (updated by GET /api/users/me, which runs whenever the shell appears).
 */
export function AppShell({ children }: { children: ReactNode }) {
  const { user } = useSession();
  // User data is refreshed when the sidebar and top bar appear (meQuery has staleTime 0).
  const me = useQuery(meQuery());
  // Operators get the queue dashboard's entry; the server's answer decides (the API checks again on every request).
  const operator = me.data?.role === 'admin';
  const pathname = useLocation({ select: (l) => l.pathname });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);

  useDocumentTitle(TITLES.find((l) => pathname.startsWith(l.to))?.label ?? 'Glob Network');

  // The small-screen menu closes on navigation (adjusted while rendering, not in an effect) and on Escape.
  const [menuPath, setMenuPath] = useState(pathname);
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const name = displayName(user);
  const shown = user?.username?.trim() || user?.email || '';
  const initial = (shown[0] ?? '?').toUpperCase();
  const balance = `${formatGlob(userBalance(user))} GLOB`;

  const logout = async () => {
    setLeaving(true);
    // The account's queries stop as they are (no error, no retry) before the session's requests are dropped.
    await queryClient.cancelQueries();
    await endSession();
    await navigate({ to: '/app/auth', replace: true });
  };

  return (
    <div className="app-layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside id="app-sidebar" className={`app-sidebar${open ? ' is-open' : ''}`} aria-label="Sidebar">
        <div className="app-brand">
          <img src="/logo.svg" alt="" width={32} height={32} />
          <span>Glob Network</span>
        </div>
        <div className="app-user">
          <span className="app-avatar" aria-hidden="true">
            {initial}
          </span>
          <div className="app-user-text">
            <p className="app-user-name">{shown}</p>
            <p className="app-user-balance">
              <span className="visually-hidden">Token balance: </span>
              {balance}
            </p>
          </div>
        </div>
        <nav className="app-nav" aria-label="App">
          <ul>
            {LINKS.map((link) => (
              <li key={link.to}>
                <Link to={link.to} className="app-nav-link" activeProps={{ className: 'active' }} onClick={() => setOpen(false)}>
                  <Icon name={link.icon} size={20} />
                  <span>{link.label}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="app-sidebar-foot">
          {operator && <QueueDashboardButton />}
          <Link to="/downloads" className="btn btn-primary btn-block btn-sm">
            <Icon name="download" size={18} />
            Download Desktop App
          </Link>
          <button type="button" className="btn btn-ghost btn-block btn-sm" onClick={() => void logout()} disabled={leaving}>
            <Icon name="arrowLeft" size={18} />
            Logout
          </button>
        </div>
      </aside>
      {open && <div className="app-backdrop" aria-hidden="true" onClick={() => setOpen(false)} />}
      <div className="app-content">
        <header className="app-topbar">
          <button
            type="button"
            className="icon-button app-menu-button"
            aria-label="Menu"
            aria-expanded={open}
            aria-controls="app-sidebar"
            onClick={() => setOpen((o) => !o)}
          >
            <Icon name={open ? 'close' : 'menu'} />
          </button>
          <p className="app-welcome">{`Welcome back, ${name}`}</p>
          <div className="app-topbar-balance">
            <span className="app-topbar-label">Token Balance</span>
            <strong>{balance}</strong>
          </div>
          <ThemeToggle />
        </header>
        <main id="main" className="app-main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
