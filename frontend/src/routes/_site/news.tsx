import { createFileRoute } from '@tanstack/react-router';
import { AppLink } from '../../components/AppLink';
import head from 'virtual:glob-head/news';
import noscript from 'virtual:glob-noscript/news';
import { Icon } from '../../components/Icon';
import { PageHead } from '../../components/PageHead';
import { formatDate } from '../../components/format';
import { NEWS_ITEMS } from '../../content/news';
import '../../features/pages/pages.css';
import '../../features/blog/blog.css';

export const Route = createFileRoute('/_site/news')({
  staticData: { dots: 10 },
  component: NewsPage,
});

/** /news (AI News, reached from the mobile menu): industry topics with Glob Network's commentary. */
function NewsPage() {
  return (
    <>
      <PageHead page={head} noscript={noscript} />
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">AI News</p>
          <h1>AI News</h1>
          <p className="lead">What is happening in AI — open models, shared compute, privacy and fair rewards — and what it means for the network.</p>
        </div>
      </section>
      <div className="container">
        <ul className="news-list">
          {NEWS_ITEMS.map((item) => (
            <li key={item.id}>
              <article className="card news-item" aria-labelledby={`news-${item.id}`}>
                <p className="blog-meta">
                  <span className="badge badge-cyan">{item.tag}</span>
                  <time dateTime={item.date}>{formatDate(item.date)}</time>
                </p>
                <h2 id={`news-${item.id}`}>
                  <AppLink href={item.url}>{item.title}</AppLink>
                </h2>
                <p>{item.summary}</p>
                <p className="news-source">
                  {item.source} ·{' '}
                  <AppLink href={item.url} className="how-link">
                    Read more<span className="visually-hidden">: {item.title}</span> <Icon name="arrowRight" size={16} />
                  </AppLink>
                </p>
              </article>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
