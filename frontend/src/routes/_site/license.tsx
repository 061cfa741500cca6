import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/license';
import noscript from 'virtual:glob-noscript/license';
import { PageHead } from '../../components/PageHead';
import { LICENSE_TEXT } from '../../content/legal';
import { LegalPage } from '../../features/pages/LegalPage';

export const Route = createFileRoute('/_site/license')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <LegalPage doc={LICENSE_TEXT} />
    </>
  ),
});
