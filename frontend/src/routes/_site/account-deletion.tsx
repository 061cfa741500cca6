import { Link, createFileRoute } from '@tanstack/react-router';
import noscript from 'virtual:glob-noscript/account-deletion';
import { PageHead } from '../../components/PageHead';
import { SITE } from 'virtual:glob-head';

export const Route = createFileRoute('/_site/account-deletion')({
  staticData: { dots: 10 },
  component: AccountDeletionPage,
});

/** Placeholder until the deletion flow (email, code, confirm, success) lands with the web app (issue 8). */
function AccountDeletionPage() {
  return (
    <>
      <PageHead page="account-deletion" noscript={noscript} />
      <section className="page-hero">
        <div className="container" style={{ maxWidth: 720 }}>
          <p className="eyebrow">Account</p>
          <h1>Delete Your Account</h1>
          <p className="lead">
            You will be able to delete your Glob Network account here without signing in: confirm your e-mail with a
            6-digit code, then confirm the deletion.
          </p>
        </div>
      </section>
      <div className="container" style={{ maxWidth: 720, paddingBottom: 64 }}>
        <div className="card">
          <h2 style={{ fontSize: '1.25rem' }}>The deletion form is coming soon</h2>
          <p>
            Until then, send a deletion request from your account's e-mail address to{' '}
            <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a>. Deletion revokes every session and removes
            your personal data; transaction records are kept anonymised for 7 years. Any remaining GLOB balance is lost.
          </p>
          <p>
            Read how we handle your data in the <Link to="/privacy-policy">Privacy Policy</Link>.
          </p>
        </div>
      </div>
    </>
  );
}
