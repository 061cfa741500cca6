import { createFileRoute } from '@tanstack/react-router';
import noscript from 'virtual:glob-noscript/license';
import { PageHead } from '../../components/PageHead';
import { LICENSE_TEXT } from '../../content/legal';
import { LegalPage } from '../../features/pages/LegalPage';

export const Route = createFileRoute('/_site/license')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page="license" noscript={noscript} />
      <LegalPage doc={LICENSE_TEXT} />
    </>
  ),
});
