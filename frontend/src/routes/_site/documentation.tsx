import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/documentation';
import noscript from 'virtual:glob-noscript/documentation';
import { PageHead } from '../../components/PageHead';
import { DocumentationPage } from '../../features/docs/DocumentationPage';

export const Route = createFileRoute('/_site/documentation')({
  staticData: { dots: 15 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <DocumentationPage />
    </>
  ),
});
