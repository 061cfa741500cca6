import { Link, useRouter } from '@tanstack/react-router';
import head from 'virtual:glob-head/404';
import noscript from 'virtual:glob-noscript/404';
import { PageHead } from './PageHead';
import { SiteLayout } from './SiteLayout';
import './not-found.css';

/** Page Not Found, Go Home, Go Back, popular links; noindex. */
export function NotFound() {
  const router = useRouter();
  return (
    <section className="not-found container" aria-labelledby="not-found-title">
      <PageHead page={head} noindex noscript={noscript} />
      <p className="code" aria-hidden="true">
        404
      </p>
      <h1 id="not-found-title">Page Not Found</h1>
      <p style={{ color: 'var(--text-muted)' }}>The page you are looking for does not exist or has been moved.</p>
      <div className="btn-row center">
        <Link to="/" className="btn btn-primary">
          Go Home
        </Link>
        <button type="button" className="btn" onClick={() => router.history.back()}>
          Go Back
        </button>
      </div>
      <h2 className="not-found-popular">Popular pages</h2>
      <ul>
        <li>
          <Link to="/downloads" className="btn btn-sm btn-ghost">
            Downloads
          </Link>
        </li>
        <li>
          <Link to="/documentation" className="btn btn-sm btn-ghost">
            Documentation
          </Link>
        </li>
        <li>
          <Link to="/about" className="btn btn-sm btn-ghost">
            About
          </Link>
        </li>
        <li>
          <Link to="/contact" className="btn btn-sm btn-ghost">
            Contact
          </Link>
        </li>
      </ul>
    </section>
  );
}

/**
 * The root route's not-found page in the site frame. Its own chunk (src/routes/__root.tsx loads it lazily): the
 * router fetches it only for a path no route matches, and waits for it before rendering.
 */
export function NotFoundPage() {
  return (
    <SiteLayout dots={10}>
      <NotFound />
    </SiteLayout>
  );
}
