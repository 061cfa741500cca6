import { createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/contact';
import noscript from 'virtual:glob-noscript/contact';
import { PageHead } from '../../components/PageHead';
import { ContactPage } from '../../features/contact/ContactPage';

export const Route = createFileRoute('/_site/contact')({
  staticData: { dots: 10 },
  component: () => (
    <>
      <PageHead page={head} noscript={noscript} />
      <ContactPage />
    </>
  ),
});
