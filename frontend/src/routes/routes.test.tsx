import { describe, expect, it } from '@jest/globals';
import { screen } from '@testing-library/react';
import { BLOG_POSTS } from '../content/blog';
import { visitRoute } from '../test/render';

const visit = visitRoute;

describe('routes', () => {
  it("renders 'Page Not Found' with noindex for an unknown path, with the site frame", async () => {
    await visit('/no/such/page');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page Not Found' })).toBeInTheDocument();
    for (const name of ['Go Home']) expect(screen.getByRole('link', { name })).toHaveAttribute('href', '/');
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeInTheDocument();
    expect(document.head.querySelector('meta[name="robots"]')?.getAttribute('content')).toContain('noindex');
    expect(document.title).toBe('Page Not Found — Glob Network');
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(document.querySelector('.floating-dots')?.getAttribute('data-count')).toBe('10');
  });

  it("renders 'Post Not Found' for an unknown blog slug", async () => {
    await visit('/blog/not-a-post');
    expect(await screen.findByRole('heading', { level: 1, name: 'Post Not Found' })).toBeInTheDocument();
    expect(screen.getByText("The blog post you're looking for does not exist or has been removed.")).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Return to Blog/ })).toHaveAttribute('href', '/blog');
  });

  it('renders a post with at most 2 related posts of its category, and its own head tags', async () => {
    const post = BLOG_POSTS.find((p) => BLOG_POSTS.filter((q) => q.category === p.category).length > 1)!;
    await visit(`/blog/${post.slug}`);
    expect(await screen.findByRole('heading', { level: 1, name: post.title })).toBeInTheDocument();
    const related = screen.getByRole('region', { name: 'Related Posts' });
    const items = related.querySelectorAll('article');
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(2);
    expect(document.title).toBe(`${post.title} — Glob Network`);
    expect(document.head.querySelector('link[rel="canonical"]')?.getAttribute('href')).toBe(`https://globnetwork.io/blog/${post.slug}`);
    expect(document.head.querySelector('meta[property="og:type"]')?.getAttribute('content')).toBe('article');
    expect(document.head.querySelector('meta[name="robots"]')).toBeNull();
  });

  it('draws 20 dots on home and sets its head tags', async () => {
    await visit('/');
    expect(await screen.findByRole('link', { name: /Download Client/ })).toHaveAttribute('href', '/downloads');
    expect(screen.getByRole('link', { name: 'Try Web App' })).toHaveAttribute('href', '/app/auth');
    expect(screen.getByRole('link', { name: /Read Documentation/ })).toHaveAttribute('href', '/documentation');
    expect(screen.getByRole('link', { name: 'Download Now' })).toHaveAttribute('href', '/downloads');
    expect(screen.getByRole('link', { name: /^Learn More/ })).toHaveAttribute('href', '/about');
    for (const title of ['Distributed Processing', 'Token Economy', 'Secure & Private', 'Scalable Solution']) {
      expect(screen.getByRole('heading', { level: 3, name: title })).toBeInTheDocument();
    }
    expect(document.querySelector('.floating-dots')?.getAttribute('data-count')).toBe('20');
    expect(document.head.querySelector('meta[property="og:image"]')?.getAttribute('content')).toBe('https://globnetwork.io/media/og-image.png');
    expect(document.head.querySelector('meta[name="twitter:card"]')?.getAttribute('content')).toBe('summary_large_image');
  });

  it('has every documentation anchor, the footer #api included', async () => {
    await visit('/documentation');
    await screen.findByRole('heading', { level: 1 });
    for (const id of [
      'getting-started',
      'distributed-ai',
      'resource-sharing',
      'token-economy',
      'how-it-works',
      'security-privacy',
      'system-requirements',
      'faq',
      'api',
    ]) {
      expect(document.getElementById(id)).not.toBeNull();
    }
  });
});
