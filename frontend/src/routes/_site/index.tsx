import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/home';
import noscript from 'virtual:glob-noscript/home';
import { PageHead } from '../../components/PageHead';
import { HomePage } from '../../features/home/HomePage';

export const Route = createFileRoute('/_site/')({
  staticData: { dots: 20 },
  // No loader: the stats strip asks for its figures once it nears the screen (features/home/StatsStrip.tsx).
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <HomePage />
    </>
  ),
});
