import { describe, expect, it } from '@jest/globals';
import { GENERATION_PARAMS } from '../api/queries/inference';
import { FALLBACK_PACKAGES } from '../api/queries/wallet';
import * as content from './index';
import { BLOG_CATEGORIES, BLOG_POSTS, DOC_SECTIONS, PAGES, UPDATES, findPost, relatedPosts, type PageKey } from './index';

const PAGE_KEYS: PageKey[] = [
  'home',
  'about',
  'blog',
  'contact',
  'documentation',
  'downloads',
  'privacy',
  'terms',
  'license',
  'updates',
  'account-deletion',
  'blog-post',
  '404',
  'news',
];

describe('blog posts', () => {
  it('has exactly 8 posts', () => {
    expect(BLOG_POSTS).toHaveLength(8);
  });

  it('has unique slugs and ids', () => {
    expect(new Set(BLOG_POSTS.map((p) => p.slug)).size).toBe(BLOG_POSTS.length);
    expect(new Set(BLOG_POSTS.map((p) => p.id)).size).toBe(BLOG_POSTS.length);
  });

  it('has exactly one featured post', () => {
    expect(BLOG_POSTS.filter((p) => p.featured)).toHaveLength(1);
  });

  it('uses only categories offered by the filter', () => {
    const ids = new Set<string>(BLOG_CATEGORIES.map((c) => c.id));
    for (const post of BLOG_POSTS) expect(ids.has(post.category)).toBe(true);
  });

  it('is sorted newest first with ISO dates', () => {
    for (const post of BLOG_POSTS) expect(post.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (let i = 1; i < BLOG_POSTS.length; i++) {
      expect(BLOG_POSTS[i - 1]!.date >= BLOG_POSTS[i]!.date).toBe(true);
    }
  });

  it('finds posts by slug', () => {
    for (const post of BLOG_POSTS) expect(findPost(post.slug)).toBe(post);
    expect(findPost('no-such-post')).toBeUndefined();
  });

  it('relatedPosts returns at most 2 posts of the same category, never the post itself', () => {
    let postsWithRelated = 0;
    for (const post of BLOG_POSTS) {
      const related = relatedPosts(post);
      expect(related.length).toBeLessThanOrEqual(2);
      if (related.length > 0) postsWithRelated++;
      for (const other of related) {
        expect(other.category).toBe(post.category);
        expect(other.slug).not.toBe(post.slug);
      }
    }
    expect(postsWithRelated).toBeGreaterThanOrEqual(2);
  });

  it('relatedPosts honours a smaller max', () => {
    for (const post of BLOG_POSTS) expect(relatedPosts(post, 1).length).toBeLessThanOrEqual(1);
  });
});

describe('documentation', () => {
  it('has the sections in order', () => {
    expect(DOC_SECTIONS.map((s) => s.id)).toEqual([
      'getting-started',
      'distributed-ai',
      'resource-sharing',
      'token-economy',
      'how-it-works',
      'security-privacy',
      'system-requirements',
      'faq',
      'api',
    ]);
  });
});

describe('updates', () => {
  it('is sorted newest first', () => {
    expect(UPDATES.length).toBeGreaterThanOrEqual(6);
    expect(UPDATES.length).toBeLessThanOrEqual(10);
    for (let i = 1; i < UPDATES.length; i++) {
      expect(UPDATES[i - 1]!.date >= UPDATES[i]!.date).toBe(true);
    }
  });
});

describe('pages', () => {
  it('has metadata for every page key', () => {
    for (const key of PAGE_KEYS) {
      const page = PAGES[key];
      expect(page).toBeDefined();
      expect(page.key).toBe(key);
      expect(page.title.length).toBeGreaterThan(0);
      expect(page.noscript.length).toBeGreaterThan(0);
    }
    expect(Object.keys(PAGES).sort()).toEqual([...PAGE_KEYS].sort());
  });
});

describe('prices and defaults quoted in the content', () => {
  // Every text the site shows, as plain text: table cells and tags become spaces.
  const text = JSON.stringify(Object.values(content))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\\n/g, ' ')
    .replace(/\s+/g, ' ');
  const number = (s: string) => Number(s.replace(/,/g, ''));

  it('quotes each token package as the spec defines it (tokens, bonus and price)', () => {
    let quotes = 0;
    for (const pkg of FALLBACK_PACKAGES) {
      // "Basic 5,000 500 $45" in a table, "Basic (5,000 + 500 bonus for $45)" in prose.
      for (const m of text.matchAll(new RegExp(`\\b${pkg.name}\\b([^$]{0,60}?)\\$([\\d,]+)`, 'g'))) {
        const figures = (m[1]!.match(/\d[\d,]*/g) ?? []).map(number);
        if (figures[0] !== pkg.tokens) continue; // the name in another sentence, not a quote of the package
        quotes += 1;
        expect({ package: pkg.name, price: number(m[2]!), bonus: figures[1] ?? 0 }).toEqual({
          package: pkg.name,
          price: pkg.price,
          bonus: pkg.bonus,
        });
      }
    }
    // Five pages quote all four packages (tables and prose); finding fewer means the quotes were not read.
    expect(quotes).toBeGreaterThanOrEqual(20);
  });

  it('quotes the generation defaults as the spec defines them', () => {
    const quoted = [...text.matchAll(/\b(temperature|max_tokens|top_p)\b[\\"]*:? ([\d.]+)/g)].map((m) => [m[1], Number(m[2])]);
    expect(quoted.length).toBeGreaterThanOrEqual(6);
    for (const [name, value] of quoted) expect([name, value]).toEqual([name, GENERATION_PARAMS[name as keyof typeof GENERATION_PARAMS]]);
  });
});
