/**
 * The build-time render of src/entry-server.tsx. (Under jest the router takes its browser code paths; the markup
 * React compares at hydration is checked in the browser: e2e/mocked/prerender.spec.ts.)
 */
import { describe, expect, it } from '@jest/globals';
import { BLOG_POSTS } from './content/blog';
import { PAGES } from './content/pages';
import { render, routePatterns } from './entry-server';

// The build gives each page its own no-script markup (vite.config.ts pageTable()); one stand-in here.
jest.mock('virtual:glob-noscript/downloads', () => ({ __esModule: true, default: '<p>No-script: the essentials of this page.</p>' }));

/** Markup without React's text separators, for plain text matching. */
const text = (html: string) => html.replace(/<!-- -->/g, '');

describe('prerendering (entry-server)', () => {
  it('renders /downloads with its h1, its head tags, its no-script fallback and the loading state', async () => {
    const page = await render('/downloads');
    expect(page.notFound).toBe(false);
    expect(page.html).toContain('<h1>Download Glob Network</h1>');
    expect(page.html).toContain('<noscript><p>No-script: the essentials of this page.</p></noscript>');
    // No API call at build time: the release badge shows its loading state, the OS the default.
    expect(text(page.html)).toContain('Loading Release Info...');
    expect(text(page.html)).toContain('Download for Windows');
    expect(page.head).toContain(`<title>${PAGES.downloads.title}</title>`);
    expect(page.head).toContain('<link rel="canonical" href="https://globnetwork.io/downloads" />');
    expect(page.head).toContain('<meta property="og:image" content="https://globnetwork.io/media/og-image.png" />');
    expect(page.head).not.toContain('name="robots"');
    expect(page.routeIds).toEqual(['__root__', '/_site', '/_site/downloads']);
  });

  it("renders home with the stats strip's loading figures and 20 dots", async () => {
    const page = await render('/');
    expect(text(page.html)).toContain('Run AI together. <span class="accent-text">Earn as you share.</span>');
    expect(page.html).toMatch(/data-testid="stat-active-users">\.\.\.</);
    expect(page.html).toContain('data-count="20"');
    expect(page.head).toContain('<link rel="canonical" href="https://globnetwork.io/" />');
  });

  it('renders a blog post as an article with its own title and canonical URL', async () => {
    const post = BLOG_POSTS[0]!;
    const page = await render(`/blog/${post.slug}`);
    expect(page.head).toContain(`<link rel="canonical" href="https://globnetwork.io/blog/${post.slug}" />`);
    expect(page.head).toContain('<meta property="og:type" content="article" />');
    expect(text(page.html)).toContain(post.title);
  });

  it('renders the 404 page, noindex, for a path no route matches', async () => {
    const page = await render('/no/such/page');
    expect(page.notFound).toBe(true);
    expect(page.html).toContain('Page Not Found');
    expect(page.head).toContain('<meta name="robots" content="noindex, follow" />');
    expect(page.head).toContain(`<title>${PAGES['404'].title}</title>`);
  });

  it('lists every route pattern for the servers', () => {
    const patterns = routePatterns();
    for (const p of ['/', '/downloads', '/blog', '/blog/$slug', '/news', '/app/auth', '/app/dashboard']) expect(patterns).toContain(p);
  });
});
