import { createFileRoute } from '@tanstack/react-router';
import noscript from 'virtual:glob-noscript/privacy';
import { PageHead } from '../../components/PageHead';
import { PRIVACY_POLICY } from '../../content/legal';
import { LegalPage } from '../../features/pages/LegalPage';

export const Route = createFileRoute('/_site/privacy-policy')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page="privacy" noscript={noscript} />
      <LegalPage doc={PRIVACY_POLICY} />
    </>
  ),
});
