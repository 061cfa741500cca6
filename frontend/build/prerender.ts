import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin, type ResolvedConfig, type Rollup } from 'vite';
// Which file answers a page request: one definition, shared with the API that serves this build.
import { NOT_FOUND_FILE, normalizePath, pageFile, pageResolver, ROUTES_FILE, SHELL_FILE, type SiteRoutes } from '../../backend/src/common/web-pages';

/**
 * Prerendering of the marketing pages, after the client build and before the service worker is generated:
 *  1. builds src/entry-server.tsx for Node (a nested `vite build --ssr` into a temporary folder);
 *  2. renders every public path into `<outDir>/<path>/index.html` (home: index.html): the built index.html with
 *     the page's own head tags, all the CSS the page needs inlined (no render-blocking request; React would
 *     otherwise paint the markup unstyled until the route's chunk brings its CSS), modulepreload links for the
 *     route's chunks, and the page's markup in #root (with its no-script fallback) marked `data-prerendered`;
 *  3. renders the 404 page into 404.html, keeps the plain single-page shell as app.html (the web app under /app
 *     and anything not prerendered), and writes routes.json (prerendered paths + every route pattern) for the
 *     servers: the API (backend/src/bootstrap.ts) and `vite preview` (below).
 */

export { SHELL_FILE };

/** Rendered to make the 404 page: a path no route matches. */
const NOT_FOUND_PROBE = '/__prerender-404__';

interface ServerEntry {
  render(path: string): Promise<{ html: string; head: string; notFound: boolean; routeIds: string[] }>;
  routePatterns(): string[];
}

/** Node's own import(): the config's module runner (configLoader: 'runner') is closed by the time this runs. */
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

/** Route id → route file, from the `createFileRoute('<id>')` of each file under src/routes (root: __root.tsx). */
function routeFiles(routesDir: string): Map<string, string> {
  const files = new Map<string, string>([['__root__', join(routesDir, '__root.tsx')]]);
  for (const name of readdirSync(routesDir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.tsx?$/.test(name) || /\.test\./.test(name)) continue;
    const id = /createFileRoute\(\s*['"]([^'"]+)['"]\s*\)/.exec(readFileSync(join(routesDir, name), 'utf8'))?.[1];
    if (id) files.set(id, join(routesDir, name));
  }
  return files;
}

interface PageAssets {
  /** CSS files (outDir-relative) to inline, in order: the entry's first. */
  css: string[];
  /** Route chunks to modulepreload. */
  js: string[];
}

/**
 * The client build's chunks a page needs: the entry's CSS, each matched route's component chunk with its imports,
 * and the chunks of `lazyModules` (modules the page loads with import(): the 404 page's component).
 */
function assetsFor(bundle: Rollup.OutputBundle, files: Map<string, string>, routeIds: string[], lazyModules: readonly string[] = []): PageAssets {
  const chunks = Object.values(bundle).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const entry = chunks.find((c) => c.isEntry);
  if (!entry) throw new Error('prerender: the client build has no entry chunk');
  const css: string[] = [...(entry.viteMetadata?.importedCss ?? [])];
  const js: string[] = [];
  const preloaded = new Set<string>([entry.fileName]);
  const staticOf = (c: Rollup.OutputChunk, seen: Set<string>) => {
    for (const f of c.imports) {
      if (seen.has(f)) continue;
      seen.add(f);
      const dep = byFile.get(f);
      if (dep) staticOf(dep, seen);
    }
    return seen;
  };
  staticOf(entry, preloaded);
  const add = (c: Rollup.OutputChunk) => {
    for (const f of [c.fileName, ...staticOf(c, new Set())]) {
      const chunk = byFile.get(f);
      for (const file of chunk?.viteMetadata?.importedCss ?? []) if (!css.includes(file)) css.push(file);
      if (!preloaded.has(f) && !js.includes(f)) js.push(f);
    }
  };
  for (const id of routeIds) {
    const file = files.get(id);
    if (!file) continue;
    // The route's split component chunk (`<file>?tsr-split=component---loader`); loaded before hydrating.
    for (const c of chunks) {
      const split = c.moduleIds.some((m) => {
        const [path, query] = m.split('?');
        return path === file && (new URLSearchParams(query).get('tsr-split') ?? '').split('---').includes('component');
      });
      if (split) add(c);
    }
  }
  for (const c of chunks) if (lazyModules.some((m) => c.moduleIds.includes(m))) add(c);
  return { css, js };
}

function fillTemplate(
  template: string,
  page: { key: string; html: string; head: string },
  assets: PageAssets,
  readAsset: (file: string) => string,
  earlyClicks: string,
): string {
  const seo = /<!--seo-->[\s\S]*?<!--\/seo-->/;
  const shellNoscript = /<noscript>[\s\S]*?<\/noscript>\s*(?=<div id="root">)/;
  const root = '<div id="root"></div>';
  const stylesheets = /\s*<link rel="stylesheet"[^>]*>/g;
  if (!seo.test(template) || !shellNoscript.test(template) || !template.includes(root)) {
    throw new Error('prerender: index.html lacks the <!--seo--> block, the shell <noscript> or <div id="root"></div>');
  }
  const css = assets.css.map(readAsset).join('\n');
  if (/<\/style/i.test(css)) throw new Error('prerender: a stylesheet contains "</style"');
  const href = (file: string) => `/${file}`;
  const head = [
    page.head,
    // Keeps clicks made before the page is hydrated (build/early-clicks.js); src/main.tsx replays them.
    `<script async src="${href(earlyClicks)}"></script>`,
    `<style>${css}</style>`,
    // The same files as disabled links: never fetched, and Vite's chunk loader sees them as already loaded.
    ...assets.css.map((f) => `<link rel="stylesheet" href="${href(f)}" disabled />`),
  ].join('\n    ');
  // The route's chunks load beside the entry (not after it): the page hydrates as soon as the entry has run.
  const preloads = assets.js.map((f) => `<link rel="modulepreload" crossorigin href="${href(f)}" />\n  `).join('');
  return template
    .replace(stylesheets, '')
    .replace(seo, () => head)
    .replace('</head>', () => `${preloads}</head>`)
    .replace(shellNoscript, '')
    .replace(root, () => `<div id="root" data-prerendered="${page.key}">${page.html}</div>`);
}

export function prerender({ entry, paths }: { entry: string; paths: () => string[] }): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'glob-prerender',
    apply: (_config, env) => (env.command === 'build' && !env.isSsrBuild) || Boolean(env.isPreview),
    configResolved(resolved) {
      config = resolved;
    },
    generateBundle() {
      // Comments and indentation off (the file has no '//' or '/*' inside strings).
      const source = readFileSync(join(config.root, 'build', 'early-clicks.js'), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/[^\n]*/g, '')
        .replace(/\s*\n\s*/g, '\n')
        .trim();
      this.emitFile({ type: 'asset', name: 'early-clicks.js', source });
    },
    writeBundle: {
      sequential: true,
      order: 'post',
      async handler(_options, bundle) {
        const outDir = resolve(config.root, config.build.outDir);
        const ssrDir = join(config.root, 'node_modules', '.cache', `glob-prerender-${basename(outDir)}`);
        rmSync(ssrDir, { recursive: true, force: true });
        config.logger.info('prerendering: building src/entry-server.tsx');
        await build({
          configFile: config.configFile,
          configLoader: 'runner',
          mode: config.mode,
          logLevel: 'warn',
          build: {
            ssr: entry,
            outDir: ssrDir,
            emptyOutDir: true,
            sourcemap: false,
            minify: false,
            copyPublicDir: false,
            rollupOptions: { output: { entryFileNames: 'entry-server.mjs' } },
          },
        });
        const server = (await nativeImport(pathToFileURL(join(ssrDir, 'entry-server.mjs')).href)) as ServerEntry;
        const template = readFileSync(join(outDir, 'index.html'), 'utf8');
        writeFileSync(join(outDir, SHELL_FILE), template);

        const files = routeFiles(join(config.root, 'src', 'routes'));
        const readAsset = (file: string) => {
          const asset = bundle[file];
          if (asset?.type !== 'asset') throw new Error(`prerender: ${file} is not in the client build`);
          return String(asset.source).trim();
        };
        const write = (file: string, html: string) => {
          mkdirSync(dirname(join(outDir, file)), { recursive: true });
          writeFileSync(join(outDir, file), html);
        };
        const earlyClicks = Object.values(bundle).find((a) => a.type === 'asset' && a.names?.includes('early-clicks.js'))?.fileName;
        if (!earlyClicks) throw new Error('prerender: build/early-clicks.js was not emitted');
        const prerendered: string[] = [];
        for (const path of [...new Set(paths().map(normalizePath))]) {
          const page = await server.render(path);
          if (page.notFound) throw new Error(`prerender: ${path} rendered the 404 page`);
          write(pageFile(path), fillTemplate(template, { key: path, ...page }, assetsFor(bundle, files, page.routeIds), readAsset, earlyClicks));
          prerendered.push(path);
        }
        const missing = await server.render(NOT_FOUND_PROBE);
        if (!missing.notFound) throw new Error('prerender: the 404 page did not render');
        // The root route's not-found component is its own chunk (src/routes/__root.tsx imports it lazily).
        const rootLazy = this.getModuleInfo(files.get('__root__')!)?.dynamicallyImportedIds ?? [];
        const notFoundAssets = assetsFor(bundle, files, missing.routeIds, rootLazy);
        write(NOT_FOUND_FILE, fillTemplate(template, { key: '404', ...missing }, notFoundAssets, readAsset, earlyClicks));

        const routes: SiteRoutes = { prerendered, routes: server.routePatterns() };
        writeFileSync(join(outDir, ROUTES_FILE), `${JSON.stringify(routes, null, 2)}\n`);
        rmSync(ssrDir, { recursive: true, force: true });
        config.logger.info(`prerendered ${prerendered.length} pages and ${NOT_FOUND_FILE} into ${relative(config.root, outDir) || '.'}`);
      },
    },
    configurePreviewServer(server) {
      // `vite preview` answers pages like the API does: the page's own file, the app shell, or 404.html with 404.
      const outDir = resolve(server.config.root, server.config.build.outDir);
      const routesFile = join(outDir, ROUTES_FILE);
      if (!existsSync(routesFile)) return;
      const resolvePage = pageResolver(JSON.parse(readFileSync(routesFile, 'utf8')) as SiteRoutes);
      server.middlewares.use((req, res: ServerResponse, next) => {
        const path = (req.url ?? '/').split(/[?#]/)[0]!;
        const isPage = (req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/api/') && !/\/[^/]+\.[a-z0-9]+$/i.test(path);
        if (!isPage) return next();
        const { file, status } = resolvePage(path);
        res.statusCode = status;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(req.method === 'HEAD' ? undefined : readFileSync(join(outDir, file)));
      });
    },
  };
}
