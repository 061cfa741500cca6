import { Link } from '@tanstack/react-router';
import { formatDate } from '../../components/format';
import type { BlogPost } from '../../content/types';
import { categoryLabel } from './labels';

export function BlogCard({ post, headingLevel = 3 }: { post: BlogPost; headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <article className="card blog-card">
      <Link to="/blog/$slug" params={{ slug: post.slug }} className="blog-card-image" tabIndex={-1} aria-hidden="true">
        <img src={post.image} alt="" width={640} height={360} loading="lazy" decoding="async" />
      </Link>
      <div className="blog-card-body">
        <p className="blog-meta">
          <span className="badge badge-accent">{categoryLabel(post.category)}</span>
          <time dateTime={post.date}>{formatDate(post.date)}</time>
        </p>
        <Heading className="blog-card-title">
          <Link to="/blog/$slug" params={{ slug: post.slug }}>
            {post.title}
          </Link>
        </Heading>
        <p>{post.excerpt}</p>
        <p className="blog-byline">
          {post.author} · {post.readingMinutes} min read
        </p>
      </div>
    </article>
  );
}
