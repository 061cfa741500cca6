import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/privacy';
import noscript from 'virtual:glob-noscript/privacy';
import { PageHead } from '../../components/PageHead';
import { PRIVACY_POLICY } from '../../content/legal';
import { LegalPage } from '../../features/pages/LegalPage';

export const Route = createFileRoute('/_site/privacy-policy')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <LegalPage doc={PRIVACY_POLICY} />
    </>
  ),
});
