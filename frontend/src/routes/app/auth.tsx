import { Link, createFileRoute } from '@tanstack/react-router';
import { PageHead } from '../../components/PageHead';

/** Placeholder until the web app (issue 8) lands; lazy like every route, so marketing pages never load it. */
export const Route = createFileRoute('/app/auth')({
  component: AppAuthPlaceholder,
});

function AppAuthPlaceholder() {
  return (
    <main id="main" className="placeholder-page">
      <PageHead page="home" title="Sign In — Glob Network" description="Sign in to the Glob Network web app." path="/app/auth" noindex />
      <img src="/logo.svg" alt="" width={56} height={56} style={{ margin: '0 auto 24px' }} />
      <h1>The web app is coming</h1>
      <p style={{ color: 'var(--text-muted)' }}>
        Sign-in, the AI Assistant and the token wallet open here soon. Meanwhile, download the desktop client or read
        the documentation.
      </p>
      <div className="btn-row center">
        <Link to="/downloads" className="btn btn-primary">
          Downloads
        </Link>
        <Link to="/documentation" className="btn">
          Documentation
        </Link>
        <Link to="/" className="btn btn-ghost">
          Back to Home
        </Link>
      </div>
    </main>
  );
}
