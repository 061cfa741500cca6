import type { Plugin } from 'vite';
import { headFields, headTagsHtml } from '../src/components/head';
import { BLOG_POSTS, PAGES, SITE } from '../src/content';
import { coverSvg } from './covers';

/** The paths of every public page, for sitemap.xml. */
export function sitemapPaths(): string[] {
  const pages = Object.values(PAGES)
    .map((p) => p.path)
    .filter((p) => !p.includes(':') && p !== '*');
  return [...pages, ...BLOG_POSTS.map((p) => `/blog/${p.slug}`)];
}

/**
 * Search and sharing: the home page's tags and no-script fallback written into index.html (the app shell; the
 * prerendered pages get their own, build/prerender.ts, and routes replace them at run time), plus robots.txt and
 * sitemap.xml generated from the content module.
 */
export function seo(): Plugin {
  const tags = headTagsHtml(headFields(SITE, PAGES.home, {}));
  const robots = `User-agent: *\nAllow: /\nDisallow: /app/\nDisallow: /api/\n\nSitemap: ${new URL('/sitemap.xml', SITE.url)}\n`;
  const sitemap = () =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${sitemapPaths()
      .map((p) => `  <url><loc>${new URL(p, SITE.url)}</loc></url>`)
      .join('\n')}\n</urlset>\n`;
  return {
    name: 'glob-seo',
    transformIndexHtml(html) {
      return html.replace('<!--head:seo-->', `<!--seo-->\n    ${tags}\n    <!--/seo-->`).replace('<!--body:noscript-->', PAGES.home.noscript.trim());
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const cover = BLOG_POSTS.find((p) => req.url === p.image);
        if (req.url === '/robots.txt') res.setHeader('Content-Type', 'text/plain').end(robots);
        else if (req.url === '/sitemap.xml') res.setHeader('Content-Type', 'application/xml').end(sitemap());
        else if (cover) res.setHeader('Content-Type', 'image/svg+xml').end(coverSvg(cover));
        else next();
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'robots.txt', source: robots });
      this.emitFile({ type: 'asset', fileName: 'sitemap.xml', source: sitemap() });
      // Blog covers are drawn from the posts (build/covers.ts), so every post always has its image.
      for (const post of BLOG_POSTS) this.emitFile({ type: 'asset', fileName: post.image.replace(/^\//, ''), source: coverSvg(post) });
    },
  };
}
