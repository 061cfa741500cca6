import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/downloads';
import noscript from 'virtual:glob-noscript/downloads';
import { siteQueries } from '../../api/queries/site';
import { PageHead } from '../../components/PageHead';
import { DownloadsPage } from '../../features/downloads/DownloadsPage';

export const Route = createFileRoute('/_site/downloads')({
  staticData: { dots: 15 },
  // Starts the release lookup while the page's code loads; the page shows its loading state meanwhile.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(siteQueries.release());
  },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <DownloadsPage />
    </>
  ),
});
