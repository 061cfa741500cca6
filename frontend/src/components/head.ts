/**
 * A page's search and sharing tags as data: one definition for the browser (PageHead writes them into
 * document.head) and for the build (the prerendered HTML files and the app shell carry them as markup).
 * No imports: vite.config.ts uses it too.
 */

export interface HeadSite {
  name: string;
  url: string;
  ogImage: string;
  ogImageWidth: number;
  ogImageHeight: number;
}

export interface HeadPage {
  title: string;
  description: string;
  path: string;
}

export interface HeadInput {
  title?: string;
  description?: string;
  /** Path of the canonical URL; defaults to the page's own path. */
  path?: string;
  noindex?: boolean;
  type?: 'website' | 'article';
}

export interface HeadFields {
  title: string;
  description: string;
  canonical: string;
  robots: string | null;
  /** name=… and property=… meta tags, in document order. */
  meta: { key: 'name' | 'property'; name: string; content: string }[];
}

/** The title, description, canonical URL, robots, Open Graph and Twitter card tags of a page. */
export function headFields(site: HeadSite, page: HeadPage, input: HeadInput): HeadFields {
  const title = input.title ?? page.title;
  const description = input.description ?? page.description;
  const canonical = new URL(input.path ?? (page.path.includes(':') || page.path === '*' ? '/' : page.path), site.url).toString();
  const image = new URL(site.ogImage, site.url).toString();
  const alt = `${site.name} — distributed AI processing`;
  return {
    title,
    description,
    canonical,
    robots: input.noindex ? 'noindex, follow' : null,
    meta: [
      { key: 'property', name: 'og:site_name', content: site.name },
      { key: 'property', name: 'og:type', content: input.type ?? 'website' },
      { key: 'property', name: 'og:title', content: title },
      { key: 'property', name: 'og:description', content: description },
      { key: 'property', name: 'og:url', content: canonical },
      { key: 'property', name: 'og:image', content: image },
      { key: 'property', name: 'og:image:width', content: String(site.ogImageWidth) },
      { key: 'property', name: 'og:image:height', content: String(site.ogImageHeight) },
      { key: 'property', name: 'og:image:alt', content: alt },
      { key: 'name', name: 'twitter:card', content: 'summary_large_image' },
      { key: 'name', name: 'twitter:title', content: title },
      { key: 'name', name: 'twitter:description', content: description },
      { key: 'name', name: 'twitter:image', content: image },
      { key: 'name', name: 'twitter:image:alt', content: alt },
    ],
  };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The same tags as HTML, for the files the build writes. */
export function headTagsHtml(fields: HeadFields, indent = '    '): string {
  return [
    `<title>${escapeHtml(fields.title)}</title>`,
    `<meta name="description" content="${escapeHtml(fields.description)}" />`,
    `<link rel="canonical" href="${escapeHtml(fields.canonical)}" />`,
    ...(fields.robots ? [`<meta name="robots" content="${fields.robots}" />`] : []),
    ...fields.meta.map((m) => `<meta ${m.key}="${m.name}" content="${escapeHtml(m.content)}" />`),
  ].join(`\n${indent}`);
}
