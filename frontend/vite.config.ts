import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { coverSvg } from './build/covers';
import { SHELL_FILE, prerender } from './build/prerender';
import { headFields, headTagsHtml } from './src/components/head';
import { BLOG_POSTS, PAGES, SITE } from './src/content';

const api = process.env.API_URL ?? 'http://localhost:3000';
const mocking = process.env.VITE_API_MOCKING === '1';
const releaseHost = process.env.VITE_RELEASE_HOST ?? SITE.releasesHost;
const require = createRequire(import.meta.url);

/** The paths of every public page, for sitemap.xml. */
function sitemapPaths(): string[] {
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
function seo(): Plugin {
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

/**
 * The content module's page table, split for the browser: `virtual:glob-head` carries SITE (a few fields, main
 * chunk); `virtual:glob-head/<key>` carries one page's title, description and path, and `virtual:glob-noscript/<key>`
 * its no-script markup: both land in that page's route chunk. Nothing else of src/content/pages.ts is shipped.
 */
function pageTable(): Plugin {
  const HEAD = 'virtual:glob-head';
  const PAGE_HEAD = 'virtual:glob-head/';
  const NOSCRIPT = 'virtual:glob-noscript/';
  const page = (key: string, error: (message: string) => never) =>
    PAGES[key as keyof typeof PAGES] ?? error(`No page key "${key}" in src/content/pages.ts`);
  return {
    name: 'glob-page-table',
    resolveId(id) {
      if (id === HEAD || id.startsWith(PAGE_HEAD) || id.startsWith(NOSCRIPT)) return `\0${id}`;
      return null;
    },
    load(id) {
      if (id === `\0${HEAD}`) return `export const SITE = ${JSON.stringify(SITE)};\n`;
      if (id.startsWith(`\0${PAGE_HEAD}`)) {
        const { title, description, path } = page(id.slice(PAGE_HEAD.length + 1), (m) => this.error(m));
        return `export default ${JSON.stringify({ title, description, path })};\n`;
      }
      if (id.startsWith(`\0${NOSCRIPT}`)) {
        return `export default ${JSON.stringify(page(id.slice(NOSCRIPT.length + 1), (m) => this.error(m)).noscript.trim())};\n`;
      }
      return null;
    },
  };
}

/** VITE_API_MOCKING=1: serves and ships MSW's worker script (taken from the installed msw, so versions match). */
function mswWorker(): Plugin {
  const file = () => readFileSync(require.resolve('msw/mockServiceWorker.js'), 'utf8');
  return {
    name: 'glob-msw-worker',
    apply: () => mocking,
    configureServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_req, res) => {
        res.setHeader('Content-Type', 'text/javascript').end(file());
      });
    },
    configurePreviewServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_req, res) => {
        res.setHeader('Content-Type', 'text/javascript').end(file());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'mockServiceWorker.js', source: file() });
    },
  };
}

export default defineConfig({
  define: {
    __RELEASE_HOST__: JSON.stringify(releaseHost),
  },
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      quoteStyle: 'single',
      routeFileIgnorePattern: '\\.test\\.',
      // A route's loader travels with its component: no loader code in the entry chunk.
      codeSplittingOptions: {
        defaultBehavior: [['loader', 'component'], ['errorComponent'], ['notFoundComponent']],
        // The public pages' frame (header, footer) is drawn before any of them: it stays in the main chunk
        // instead of a chunk of its own requested after it.
        splitBehavior: ({ routeId }) => (routeId === '/_site' ? [] : undefined),
      },
    }),
    react(),
    seo(),
    pageTable(),
    mswWorker(),
    // Every public page as its own HTML file, hydrated in the browser; /app and unknown paths get the shell.
    prerender({ entry: 'src/entry-server.tsx', paths: sitemapPaths }),
    VitePWA({
      disable: mocking,
      strategies: 'generateSW',
      registerType: 'prompt',
      injectRegister: false,
      filename: 'sw.js',
      scope: '/',
      includeAssets: ['favicon.svg', 'favicon.ico', 'logo.svg', 'icons/apple-touch-icon.png'],
      manifest: {
        id: '/',
        name: 'Glob Network',
        short_name: 'Glob',
        description: PAGES.home.description,
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#07090e',
        theme_color: '#07090e',
        categories: ['productivity', 'utilities'],
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,ico,webmanifest}'],
        globIgnores: ['media/og-image.png', 'mockServiceWorker.js', '404.html'],
        // A prerendered page is cached under its own URL (downloads/index.html as /downloads); every other
        // navigation gets the app shell, which renders whatever route it is (never the home page's markup).
        manifestTransforms: [
          async (entries) => ({
            manifest: entries.map((e) => (/.\/index\.html$/.test(e.url) ? { ...e, url: `/${e.url.replace(/\/index\.html$/, '')}` } : e)),
            warnings: [],
          }),
        ],
        navigateFallback: `/${SHELL_FILE}`,
        // The API, files (robots.txt, sitemap.xml, media) and the API docs are never answered with the app shell.
        navigateFallbackDenylist: [/^\/api\//, /\/[^/?]+\.[a-z0-9]+$/i],
        cleanupOutdatedCaches: true,
        runtimeCaching: [
          {
            urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname.startsWith('/media/'),
            handler: 'CacheFirst',
            options: { cacheName: 'media', expiration: { maxEntries: 40, maxAgeSeconds: 30 * 24 * 3600 } },
          },
        ],
      },
    }),
  ],
  server: { port: Number(process.env.WEB_PORT ?? 5173), proxy: { '/api': { target: api, changeOrigin: false } } },
  preview: { port: Number(process.env.WEB_PORT ?? 4173), proxy: { '/api': api } },
  // Every target browser (es2022) preloads modules itself: no polyfill in the entry.
  build: { outDir: 'dist', sourcemap: true, target: 'es2022', modulePreload: { polyfill: false } },
});
