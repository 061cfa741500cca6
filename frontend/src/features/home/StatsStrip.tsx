import { useEffect, useRef, useState } from 'react';
import type { SiteStats } from '../../api/queries/system';
import { StatsView } from './StatsView';

type Feed = typeof import('./StatsFeed').StatsFeed;

/** Once loaded, later visits of the home page (client navigation) ask for the figures from their first render. */
let loaded: Feed | null = null;

/**
 * Live figures: loading shows '...', failures show the fallback figures; refreshed every 30 s. The request and its
 * code (the query hook, the API client) are fetched once the strip nears the screen — at once on a wide screen,
 * on scrolling on a phone, where the hero fills the first screen — so they are not part of the page's first load.
 * A prerendered page hydrates with '...', as it was built; the figures follow.
 */
export function StatsStrip() {
  const [StatsFeed, setStatsFeed] = useState<Feed | null>(() => loaded);
  const [data, setData] = useState<SiteStats | undefined>(undefined);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (StatsFeed) return;
    let active = true;
    const load = () =>
      void import('./StatsFeed').then((m) => {
        loaded = m.StatsFeed;
        if (active) setStatsFeed(() => m.StatsFeed);
      });
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') {
      load();
      return () => {
        active = false;
      };
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        load();
      },
      { rootMargin: '0px 0px 64px 0px' },
    );
    observer.observe(el);
    return () => {
      active = false;
      observer.disconnect();
    };
  }, [StatsFeed]);
  return (
    <>
      <StatsView ref={ref} data={data} />
      {StatsFeed && <StatsFeed onData={setData} />}
    </>
  );
}
