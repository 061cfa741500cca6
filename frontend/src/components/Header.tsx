import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from '@tanstack/react-router';
import { Icon } from './CoreIcon';
import { ThemeToggle } from './ThemeToggle';
import './brand.css';
import './header.css';

/** The header turns opaque once the page has scrolled more than this. */
export const SCROLL_THRESHOLD_PX = 10;

const DESKTOP_LINKS = [
  { to: '/', label: 'Home', exact: true },
  { to: '/documentation', label: 'Documentation', exact: false },
  { to: '/downloads', label: 'Downloads', exact: false },
  { to: '/about', label: 'About', exact: false },
  { to: '/blog', label: 'Blog', exact: false },
  { to: '/contact', label: 'Contact', exact: false },
] as const;

/** The mobile menu adds AI News. */
const MOBILE_LINKS = [...DESKTOP_LINKS, { to: '/news', label: 'AI News', exact: false }] as const;

export function Header() {
  const [opaque, setOpaque] = useState(false);
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const pathname = useLocation({ select: (l) => l.pathname });

  useEffect(() => {
    const onScroll = () => setOpaque(window.scrollY > SCROLL_THRESHOLD_PX);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  // A new page closes the menu (also after back/forward): state adjusted while rendering, as React advises over an effect.
  const [menuPath, setMenuPath] = useState(pathname);
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        toggleRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const close = () => setOpen(false);

  return (
    <header className={`site-header${opaque ? ' is-opaque' : ''}${open ? ' is-menu-open' : ''}`} data-opaque={opaque}>
      <div className="container">
        <Link to="/" className="brand" aria-label="Glob Network home">
          <img src="/logo.svg" alt="" width={32} height={32} />
          <span>Glob Network</span>
        </Link>
        <nav className="nav-desktop" aria-label="Main">
          <ul>
            {DESKTOP_LINKS.map((link) => (
              <li key={link.to}>
                <Link
                  to={link.to}
                  className="nav-link"
                  activeProps={{ className: 'nav-link active' }}
                  activeOptions={{ exact: link.exact, includeHash: false }}
                >
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {/* The theme switch stays in the bar at every width, beside the actions or the menu button. */}
        <div className="header-end">
          <ThemeToggle />
          <div className="header-actions">
            <Link to="/app/auth" preload={false} className="btn btn-ghost btn-sm">
              Login
            </Link>
            <Link to="/downloads" className="btn btn-primary btn-sm">
              Download App
            </Link>
          </div>
          <button
            ref={toggleRef}
            type="button"
            className="icon-button menu-toggle"
            aria-expanded={open}
            aria-controls="mobile-menu"
            aria-label={open ? 'Close menu' : 'Open menu'}
            onClick={() => setOpen((v) => !v)}
          >
            <Icon name={open ? 'close' : 'menu'} />
          </button>
        </div>
      </div>
      {open && (
        <nav id="mobile-menu" className="mobile-menu" aria-label="Mobile">
          <ul>
            {MOBILE_LINKS.map((link) => (
              <li key={link.to}>
                <Link
                  to={link.to}
                  className="nav-link"
                  activeProps={{ className: 'nav-link active' }}
                  activeOptions={{ exact: link.exact, includeHash: false }}
                  onClick={close}
                >
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
          <div className="btn-row">
            <Link to="/app/auth" preload={false} className="btn" onClick={close}>
              Login
            </Link>
            <Link to="/downloads" className="btn btn-primary" onClick={close}>
              Download App
            </Link>
          </div>
        </nav>
      )}
    </header>
  );
}
