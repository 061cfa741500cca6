import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { Icon } from '../../components/Icon';
import { formatDate } from '../../components/format';
import { BLOG_CATEGORIES, BLOG_POSTS } from '../../content/blog';
import { BlogCard } from './BlogCard';
import { featuredPost, filterPosts, type BlogFilter } from './filter';
import { categoryLabel } from './labels';
import './blog.css';

/** /blog: featured post, category filter, grid, static pagination and the newsletter box. */
export function BlogListPage() {
  const [filter, setFilter] = useState<BlogFilter>('all');
  const featured = featuredPost(BLOG_POSTS);
  const posts = filterPosts(BLOG_POSTS, filter);

  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Blog</p>
          <h1>Glob Network Blog</h1>
          <p className="lead">News, tutorials, release notes and deep dives into distributed AI and the GLB token economy.</p>
        </div>
      </section>
      <div className="container blog-page">
        {featured && filter === 'all' && (
          <article className="featured-post" aria-labelledby="featured-title">
            <Link to="/blog/$slug" params={{ slug: featured.slug }} className="featured-image" tabIndex={-1} aria-hidden="true">
              <img src={featured.image} alt="" width={960} height={540} fetchPriority="high" />
            </Link>
            <div className="featured-body">
              <p className="blog-meta">
                <span className="badge badge-cyan">Featured</span>
                <span className="badge badge-accent">{categoryLabel(featured.category)}</span>
                <time dateTime={featured.date}>{formatDate(featured.date)}</time>
              </p>
              <h2 id="featured-title">
                <Link to="/blog/$slug" params={{ slug: featured.slug }}>
                  {featured.title}
                </Link>
              </h2>
              <p>{featured.excerpt}</p>
              <p className="blog-byline">
                {featured.author} · {featured.readingMinutes} min read
              </p>
              <Link to="/blog/$slug" params={{ slug: featured.slug }} className="btn btn-primary">
                Read Article <Icon name="arrowRight" size={18} />
              </Link>
            </div>
          </article>
        )}

        <div className="blog-filters" role="group" aria-label="Filter posts by category">
          {BLOG_CATEGORIES.map((c) => (
            <button
              key={c.id}
              type="button"
              className={`chip${filter === c.id ? ' is-active' : ''}`}
              aria-pressed={filter === c.id}
              onClick={() => setFilter(c.id)}
            >
              {c.label}
            </button>
          ))}
        </div>

        <h2 className="visually-hidden">Posts</h2>
        {posts.length > 0 ? (
          <ul className="grid grid-3 blog-grid" aria-live="polite">
            {posts.map((post) => (
              <li key={post.slug}>
                <BlogCard post={post} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="blog-empty">No posts in this category yet.</p>
        )}

        <nav className="pagination" aria-label="Pagination">
          <button type="button" className="btn btn-sm btn-ghost">
            <Icon name="arrowLeft" size={16} />
            Previous
          </button>
          <button type="button" className="page-num is-current" aria-current="page">
            1
          </button>
          <button type="button" className="page-num">
            2
          </button>
          <button type="button" className="page-num">
            3
          </button>
          <span className="page-gap" aria-hidden="true">
            ...
          </span>
          <button type="button" className="page-num">
            8
          </button>
          <button type="button" className="btn btn-sm btn-ghost">
            Next
            <Icon name="arrowRight" size={16} />
          </button>
        </nav>

        <section className="newsletter" aria-labelledby="newsletter-title">
          <div>
            <h2 id="newsletter-title">Subscribe to our newsletter</h2>
            <p>Release notes, tutorials and network news — straight to your inbox.</p>
          </div>
          <form className="newsletter-form" onSubmit={(e) => e.preventDefault()}>
            <label htmlFor="newsletter-email" className="visually-hidden">
              Email address
            </label>
            <input id="newsletter-email" className="input" type="email" placeholder="you@example.com" autoComplete="email" />
            <button type="submit" className="btn btn-primary">
              Subscribe
            </button>
          </form>
        </section>
      </div>
    </>
  );
}
