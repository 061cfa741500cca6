import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/home';
import noscript from 'virtual:glob-noscript/home';
import { systemQueries } from '../../api/queries/system';
import { PageHead } from '../../components/PageHead';
import { HomePage } from '../../features/home/HomePage';

export const Route = createFileRoute('/_site/')({
  staticData: { dots: 20 },
  // Starts the stats request while the page's code loads; the strip shows '...' until it answers.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(systemQueries.siteStats());
  },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <HomePage />
    </>
  ),
});
