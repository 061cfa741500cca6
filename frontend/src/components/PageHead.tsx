import { useEffect } from 'react';
import { PAGE_META, SITE } from 'virtual:glob-head';
import type { PageKey, PageMeta } from '../content/types';

const PAGES = PAGE_META as Record<PageKey, Pick<PageMeta, 'title' | 'description' | 'path'>>;

export interface HeadOptions {
  /** Page key of 000 §2: picks the default title, description and no-script fallback. */
  page: PageKey;
  title?: string;
  description?: string;
  /** Path of the canonical URL; defaults to the page's own path. */
  path?: string;
  noindex?: boolean;
  type?: 'website' | 'article';
  /** The page key's no-script markup (`import noscript from 'virtual:glob-noscript/<key>'`). */
  noscript?: string;
}

function upsert(selector: string, create: () => HTMLElement, attr: string, value: string) {
  let el = document.head.querySelector<HTMLElement>(selector);
  if (!el) {
    el = create();
    document.head.appendChild(el);
  }
  el.setAttribute(attr, value);
}

function meta(key: 'name' | 'property', name: string, content: string) {
  upsert(
    `meta[${key}="${name}"]`,
    () => {
      const el = document.createElement('meta');
      el.setAttribute(key, name);
      return el;
    },
    'content',
    content,
  );
}

export const absoluteUrl = (path: string) => new URL(path, SITE.url).toString();

/** Writes the route's title, description, canonical URL, robots, Open Graph and Twitter card tags. */
export function applyHead({ page, title, description, path, noindex, type = 'website' }: HeadOptions) {
  const defaults = PAGES[page];
  const fullTitle = title ?? defaults.title;
  const text = description ?? defaults.description;
  const canonical = absoluteUrl(path ?? (defaults.path.includes(':') || defaults.path === '*' ? '/' : defaults.path));
  const image = absoluteUrl(SITE.ogImage);
  document.title = fullTitle;
  meta('name', 'description', text);
  upsert(
    'link[rel="canonical"]',
    () => {
      const el = document.createElement('link');
      el.setAttribute('rel', 'canonical');
      return el;
    },
    'href',
    canonical,
  );
  const robots = document.head.querySelector('meta[name="robots"]');
  if (noindex) meta('name', 'robots', 'noindex, follow');
  else robots?.remove();
  meta('property', 'og:site_name', SITE.name);
  meta('property', 'og:type', type);
  meta('property', 'og:title', fullTitle);
  meta('property', 'og:description', text);
  meta('property', 'og:url', canonical);
  meta('property', 'og:image', image);
  meta('property', 'og:image:width', String(SITE.ogImageWidth));
  meta('property', 'og:image:height', String(SITE.ogImageHeight));
  meta('property', 'og:image:alt', `${SITE.name} — distributed AI processing`);
  meta('name', 'twitter:card', 'summary_large_image');
  meta('name', 'twitter:title', fullTitle);
  meta('name', 'twitter:description', text);
  meta('name', 'twitter:image', image);
  meta('name', 'twitter:image:alt', `${SITE.name} — distributed AI processing`);
}

/** Search and sharing tags of a route, plus its no-script fallback. */
export function PageHead(props: HeadOptions) {
  const { page, title, description, path, noindex, type, noscript } = props;
  useEffect(() => {
    applyHead({ page, title, description, path, noindex, type });
  }, [page, title, description, path, noindex, type]);
  return noscript ? <noscript dangerouslySetInnerHTML={{ __html: noscript }} /> : null;
}
