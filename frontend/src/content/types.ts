/**
 * Shapes of the static content of the Glob Network marketing site.
 * All `html` / `content` / `intro` strings are trusted static markup that uses only
 * p, h2, h3, ul, ol, li, strong, em, code, pre, a, table/thead/tbody/tr/th/td and blockquote.
 * Internal links are root-relative (e.g. /documentation#faq).
 */

export type BlogCategory = 'announcements' | 'token-economy' | 'tutorials' | 'releases' | 'technical' | 'community';

export interface BlogPost {
  id: number;
  title: string;
  slug: string;
  excerpt: string;
  /** ISO date, yyyy-mm-dd */
  date: string;
  author: string;
  category: BlogCategory;
  /** Path under /media/blog/, e.g. /media/blog/<slug>.svg */
  image: string;
  /** HTML */
  content: string;
  featured: boolean;
  readingMinutes: number;
}

export interface UpdateItem {
  id: number;
  /** ISO date, yyyy-mm-dd */
  date: string;
  title: string;
  /** HTML */
  content: string;
}

export interface DocSection {
  /** Anchor id on /documentation */
  id: string;
  title: string;
  html: string;
}

export interface LegalDocument {
  title: string;
  /** e.g. 'January 1, 2025' */
  effectiveDate: string;
  /** HTML */
  intro: string;
  sections: { id: string; heading: string; html: string }[];
}

export interface NewsItem {
  id: number;
  /** ISO date, yyyy-mm-dd */
  date: string;
  title: string;
  summary: string;
  source: string;
  /** Root-relative internal URL */
  url: string;
  tag: string;
}

export type PageKey =
  | 'home'
  | 'about'
  | 'blog'
  | 'contact'
  | 'documentation'
  | 'downloads'
  | 'privacy'
  | 'terms'
  | 'license'
  | 'updates'
  | 'account-deletion'
  | 'blog-post'
  | '404'
  | 'news';

export interface PageMeta {
  key: PageKey;
  path: string;
  title: string;
  description: string;
  /** HTML shown when JavaScript is off */
  noscript: string;
}
