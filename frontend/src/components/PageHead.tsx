import { createContext, useContext, useEffect } from 'react';
import { SITE } from 'virtual:glob-head';
import { headFields, type HeadInput, type HeadPage } from './head';

export interface HeadOptions extends HeadInput {
  /**
   * The default title, description and path of the route's page key: `import head from
   * 'virtual:glob-head/<key>'` in the route file, so only that page's entry travels with its chunk.
   */
  page: HeadPage;
  /** The page key's no-script markup (`import noscript from 'virtual:glob-noscript/<key>'`). */
  noscript?: string;
}

/**
 * Prerendering (src/entry-server.tsx) provides a collector: the page's head options are written into the HTML
 * file at build time, since effects never run on the server. In the browser there is none.
 */
export const HeadCollector = createContext<((options: HeadOptions) => void) | null>(null);

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

/** The tags of a page (its defaults from the page table, then the route's own values). */
export const pageHeadFields = ({ page, ...input }: HeadOptions) => headFields(SITE, page, input);

/** Writes the route's title, description, canonical URL, robots, Open Graph and Twitter card tags. */
export function applyHead(options: HeadOptions) {
  const fields = pageHeadFields(options);
  document.title = fields.title;
  meta('name', 'description', fields.description);
  upsert(
    'link[rel="canonical"]',
    () => {
      const el = document.createElement('link');
      el.setAttribute('rel', 'canonical');
      return el;
    },
    'href',
    fields.canonical,
  );
  if (fields.robots) meta('name', 'robots', fields.robots);
  else document.head.querySelector('meta[name="robots"]')?.remove();
  for (const m of fields.meta) meta(m.key, m.name, m.content);
}

/** Search and sharing tags of a route, plus its no-script fallback. */
export function PageHead(props: HeadOptions) {
  const { page, title, description, path, noindex, type, noscript } = props;
  const collect = useContext(HeadCollector);
  collect?.(props);
  useEffect(() => {
    applyHead({ page, title, description, path, noindex, type });
  }, [page, title, description, path, noindex, type]);
  return noscript ? <noscript dangerouslySetInnerHTML={{ __html: noscript }} /> : null;
}
