import { Link } from '@tanstack/react-router';
import { Html } from '../../components/Html';
import { Icon } from '../../components/Icon';
import { formatDate } from '../../components/format';
import { relatedPosts } from '../../content/blog';
import type { BlogPost } from '../../content/types';
import { BlogCard } from './BlogCard';
import { categoryLabel } from './labels';
import './blog.css';
import '../../components/not-found.css';

/** Unknown slug. */
export function PostNotFound() {
  return (
    <section className="not-found container" aria-labelledby="post-missing-title">
      <h1 id="post-missing-title">Post Not Found</h1>
      <p style={{ color: 'var(--text-muted)' }}>The blog post you're looking for does not exist or has been removed.</p>
      <Link to="/blog" className="btn btn-primary">
        <Icon name="arrowLeft" size={18} />
        Return to Blog
      </Link>
    </section>
  );
}

const SHARES = [
  { label: 'Share on X', icon: 'share' },
  { label: 'Share on LinkedIn', icon: 'share' },
  { label: 'Copy link', icon: 'external' },
] as const;

export function BlogPostPage({ post }: { post: BlogPost }) {
  const related = relatedPosts(post, 2);
  return (
    <article className="container blog-post">
      <header className="post-header">
        <Link to="/blog" className="back-link">
          <Icon name="arrowLeft" size={16} /> Blog
        </Link>
        <p className="blog-meta">
          <time dateTime={post.date}>{formatDate(post.date)}</time>
          <span className="badge badge-accent">{categoryLabel(post.category)}</span>
        </p>
        <h1>{post.title}</h1>
        <p className="blog-byline">
          By {post.author} · {post.readingMinutes} min read
        </p>
      </header>
      <img className="post-image" src={post.image} alt="" width={960} height={540} fetchPriority="high" />
      <Html html={post.content} className="prose post-content" />
      <div className="share-row" role="group" aria-label="Share this post">
        <span>Share</span>
        {SHARES.map((s) => (
          <button key={s.label} type="button" className="btn btn-sm" aria-label={s.label}>
            <Icon name={s.icon} size={16} />
            <span aria-hidden="true">{s.label.replace('Share on ', '')}</span>
          </button>
        ))}
      </div>
      {related.length > 0 && (
        <section className="related" aria-labelledby="related-title">
          <h2 id="related-title">Related Posts</h2>
          <ul className="grid grid-2 blog-grid">
            {related.map((p) => (
              <li key={p.slug}>
                <BlogCard post={p} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </article>
  );
}
