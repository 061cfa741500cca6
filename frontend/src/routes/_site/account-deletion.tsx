import { Link, createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/account-deletion';
import noscript from 'virtual:glob-noscript/account-deletion';
import { PageHead } from '../../components/PageHead';
import { SITE } from 'virtual:glob-head';
import { AccountDeletionFlow } from '../../features/account-deletion/AccountDeletionFlow';

export const Route = createFileRoute('/_site/account-deletion')({
  staticData: { dots: 10 },
  component: AccountDeletionPage,
});

/** No sign-in needed; the e-mail is proved by a 6-digit code, then deletion is confirmed. */
function AccountDeletionPage() {
  return (
    <>
      <PageHead page={head} noscript={noscript} />
      <section className="page-hero">
        <div className="container" style={{ maxWidth: 720 }}>
          <p className="eyebrow">Account</p>
          <h1>Delete Your Account</h1>
          <p className="lead">
            Delete your Glob Network account without signing in: confirm your e-mail with a 6-digit code, then confirm the deletion.
          </p>
        </div>
      </section>
      <div className="container" style={{ maxWidth: 720, paddingBottom: 64 }}>
        <AccountDeletionFlow />
        <p className="deletion-footnote">
          Trouble with the code? Write from your account&apos;s e-mail address to <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a>.
          Read how we handle your data in the <Link to="/privacy-policy">Privacy Policy</Link>.
        </p>
      </div>
    </>
  );
}
