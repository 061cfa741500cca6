import { Link, createFileRoute } from '@tanstack/react-router';
import head from 'virtual:glob-head/updates';
import noscript from 'virtual:glob-noscript/updates';
import { Html } from '../../components/Html';
import { Icon } from '../../components/Icon';
import { PageHead } from '../../components/PageHead';
import { formatDate } from '../../components/format';
import { UPDATES } from '../../content/updates';
import '../../features/pages/pages.css';

export const Route = createFileRoute('/_site/updates')({
  staticData: { dots: 10 },
  component: UpdatesPage,
});

/** Dated announcements, newest first, alternating sides, Back to Home. */
function UpdatesPage() {
  const updates = [...UPDATES].sort((a, b) => b.date.localeCompare(a.date));
  return (
    <>
      <PageHead page={head} noscript={noscript} />
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Updates</p>
          <h1>Latest Updates</h1>
          <p className="lead">Announcements and release news from Glob Network, newest first.</p>
        </div>
      </section>
      <div className="container">
        <ol className="updates-timeline">
          {updates.map((u) => (
            <li key={u.id}>
              <article className="card update-card" aria-labelledby={`update-${u.id}`}>
                <time dateTime={u.date}>{formatDate(u.date)}</time>
                <h2 id={`update-${u.id}`}>{u.title}</h2>
                <Html html={u.content} className="prose html-block" />
              </article>
            </li>
          ))}
        </ol>
        <div className="back-home">
          <Link to="/" className="btn">
            <Icon name="arrowLeft" size={18} />
            Back to Home
          </Link>
        </div>
      </div>
    </>
  );
}
