import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { mswWorker } from './build/msw-worker';
import { pageTable } from './build/page-table';
import { SHELL_FILE, prerender } from './build/prerender';
import { seo, sitemapPaths } from './build/seo';
import { PAGES, SITE } from './src/content';

const api = process.env.API_URL ?? 'http://localhost:3000';
const mocking = process.env.VITE_API_MOCKING === '1';
const releaseHost = process.env.VITE_RELEASE_HOST ?? SITE.releasesHost;

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
    mswWorker({ mocking }),
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
        // The API, the queue dashboard (a page of the API), files (robots.txt, sitemap.xml, media) and the API docs are
        // never answered with the app shell.
        navigateFallbackDenylist: [/^\/api\//, /^\/admin\/queues(\/|$)/, /\/[^/?]+\.[a-z0-9]+$/i],
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
  // The API's roots: /api for the web app, /v1 for OpenAI clients (the API keys page shows this origin's /v1),
  // /admin/queues for the operators' queue dashboard (its cookie is set by an /api call on this origin).
  server: {
    port: Number(process.env.WEB_PORT ?? 5173),
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/v1': { target: api, changeOrigin: false },
      '/admin/queues': { target: api, changeOrigin: false },
    },
  },
  preview: { port: Number(process.env.WEB_PORT ?? 4173), proxy: { '/api': api, '/v1': api, '/admin/queues': api } },
  // Every target browser (es2022) preloads modules itself: no polyfill in the entry.
  build: { outDir: 'dist', sourcemap: true, target: 'es2022', modulePreload: { polyfill: false } },
});
