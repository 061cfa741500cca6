import { useLayoutEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { systemQueries, type SiteStats } from '../../api/queries/system';

/**
 * The server's figures (refreshed every 30 s) for the stats strip, which loads this once it nears the screen.
 * Draws nothing: the strip keeps its markup and shows what this hands it.
 */
export function StatsFeed({ onData }: { onData: (data: SiteStats | undefined) => void }) {
  const { data } = useQuery(systemQueries.siteStats());
  // Before paint: figures already cached (a second visit) never flash '...'.
  useLayoutEffect(() => onData(data), [data, onData]);
  return null;
}
