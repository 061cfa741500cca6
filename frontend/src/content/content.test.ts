import { describe, expect, it } from '@jest/globals';
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
