import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/terms';
import noscript from 'virtual:glob-noscript/terms';
import { PageHead } from '../../components/PageHead';
import { TERMS_OF_SERVICE } from '../../content/legal';
import { LegalPage } from '../../features/pages/LegalPage';

export const Route = createFileRoute('/_site/terms-of-service')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <LegalPage doc={TERMS_OF_SERVICE} />
    </>
  ),
});
