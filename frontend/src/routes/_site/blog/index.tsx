import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/blog';
import noscript from 'virtual:glob-noscript/blog';
import { PageHead } from '../../../components/PageHead';
import { BlogListPage } from '../../../features/blog/BlogListPage';

export const Route = createFileRoute('/_site/blog/')({
  staticData: { dots: 15 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <BlogListPage />
    </>
  ),
});
