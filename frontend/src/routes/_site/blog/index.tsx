import { createFileRoute } from '@tanstack/react-router';
import noscript from 'virtual:glob-noscript/blog';
import { PageHead } from '../../../components/PageHead';
import { BlogListPage } from '../../../features/blog/BlogListPage';

export const Route = createFileRoute('/_site/blog/')({
  staticData: { dots: 15 },
  component: () => (
    <>
      <PageHead page="blog" noscript={noscript} />
      <BlogListPage />
    </>
  ),
});
