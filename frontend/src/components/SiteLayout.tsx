import type { ReactNode } from 'react';
import { useMatches } from '@tanstack/react-router';
import { PwaNotices } from '../features/pwa/PwaNotices';
import { FloatingDots } from './FloatingDots';
import { Footer } from './Footer';
import { Header } from './Header';
import { usePageInteractive } from './useHydrated';
import './site-layout.css';

/** The public pages' frame: header, footer, floating dots and the installable-app helpers (not under /app). */
export function SiteLayout({ children, dots }: { children: ReactNode; dots?: 10 | 15 | 20 }) {
  usePageInteractive();
  const routeDots = useMatches({
    select: (matches) => matches.reduce<10 | 15 | 20>((count, m) => m.staticData?.dots ?? count, 10),
  });
  return (
    <div className="site">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <FloatingDots count={dots ?? routeDots} />
      <Header />
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <Footer />
      <PwaNotices />
    </div>
  );
}
