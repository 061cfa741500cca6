import { BLOG_POSTS } from '../../src/content/blog';
import { PAGES } from '../../src/content/pages';
import type { PageKey } from '../../src/content/types';

export interface RouteCase {
  path: string;
  h1: string | RegExp;
  title: string;
  noindex?: boolean;
  dots: 10 | 15 | 20;
}

const page = (path: string, key: PageKey, h1: string | RegExp, dots: 10 | 15 | 20): RouteCase => ({ path, h1, title: PAGES[key].title, dots });

/** Every route of the site and the web app, with the h1 and the title each must show. */
export const ROUTES: RouteCase[] = [
  page('/', 'home', /Run AI together/, 20),
  page('/documentation', 'documentation', 'Glob Network Documentation', 15),
  page('/downloads', 'downloads', 'Download Glob Network', 15),
  page('/about', 'about', 'About Glob Network', 15),
  page('/blog', 'blog', 'Glob Network Blog', 15),
  ...BLOG_POSTS.map((p) => ({ path: `/blog/${p.slug}`, h1: p.title, title: `${p.title} — Glob Network`, dots: 10 as const })),
  page('/news', 'news', 'AI News', 10),
  page('/contact', 'contact', 'Get in Touch', 10),
  page('/updates', 'updates', 'Latest Updates', 10),
  page('/privacy-policy', 'privacy', 'Privacy Policy', 10),
  page('/terms-of-service', 'terms', 'Terms of Service', 10),
  page('/license', 'license', 'License', 10),
  page('/account-deletion', 'account-deletion', 'Delete Your Account', 10),
  { path: '/blog/no-such-post', h1: 'Post Not Found', title: 'Post Not Found — Glob Network', noindex: true, dots: 10 },
  { path: '/this/page/does-not-exist', h1: 'Page Not Found', title: PAGES['404'].title, noindex: true, dots: 10 },
];

export const APP_AUTH = '/app/auth';
