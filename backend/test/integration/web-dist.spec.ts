import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inlineScriptHashes, webPages } from '../../src/bootstrap';
import { startStack, TestStack } from '../support/app';

/** A web build as frontend/build/prerender.ts writes it: prerendered pages, the app shell, the 404 page. */
function fakeBuild(): string {
  const dist = mkdtempSync(join(tmpdir(), 'glob-web-'));
  const files: Record<string, string> = {
    'index.html': '<div id="root" data-prerendered="/">home</div>',
    'downloads/index.html': '<div id="root" data-prerendered="/downloads">downloads</div>',
    'blog/index.html': '<div id="root" data-prerendered="/blog">blog</div>',
    'blog/first-post/index.html': '<div id="root" data-prerendered="/blog/first-post">post</div>',
    'app.html': '<div id="root"></div>',
    '404.html': '<div id="root" data-prerendered="404">not found</div>',
    'assets/index-abc123.js': 'console.log(1)',
    'robots.txt': 'User-agent: *',
    'routes.json': JSON.stringify({
      prerendered: ['/', '/downloads', '/blog', '/blog/first-post'],
      routes: ['/', '/app', '/app/auth', '/app/oauth/callback/$provider', '/blog', '/blog/$slug', '/downloads'],
    }),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    writeFileSync(join(dist, file), text);
  }
  return dist;
}

describe('webPages: which file answers a page request', () => {
  const pageFor = webPages(fakeBuild());

  it('serves a prerendered page its own file, with or without a trailing slash', () => {
    expect(pageFor('/')).toEqual({ file: 'index.html', status: 200 });
    expect(pageFor('/downloads')).toEqual({ file: 'downloads/index.html', status: 200 });
    expect(pageFor('/downloads/')).toEqual({ file: 'downloads/index.html', status: 200 });
    expect(pageFor('/blog/first-post')).toEqual({ file: 'blog/first-post/index.html', status: 200 });
  });

  it('serves the app shell to the other routes of the client', () => {
    expect(pageFor('/app/auth')).toEqual({ file: 'app.html', status: 200 });
    expect(pageFor('/app')).toEqual({ file: 'app.html', status: 200 });
    expect(pageFor('/app/oauth/callback/google')).toEqual({ file: 'app.html', status: 200 });
    expect(pageFor('/blog/no-such-post')).toEqual({ file: 'app.html', status: 200 });
  });

  it('answers 404 with the 404 page when no route matches', () => {
    expect(pageFor('/nowhere-at-all')).toEqual({ file: '404.html', status: 404 });
    expect(pageFor('/downloads/extra/segments')).toEqual({ file: '404.html', status: 404 });
    expect(pageFor('/../etc/passwd')).toEqual({ file: '404.html', status: 404 });
  });

  it("allows the shell's inline scripts by their hashes (the theme applied before first paint), not scripts with a src", () => {
    const dist = mkdtempSync(join(tmpdir(), 'glob-web-'));
    const theme = "try{document.documentElement.dataset.theme='light'}catch(e){}";
    writeFileSync(join(dist, 'app.html'), `<head><script>${theme}</script><script type="module" crossorigin src="/assets/index.js"></script></head>`);
    expect(inlineScriptHashes(dist)).toEqual([`'sha256-${createHash('sha256').update(theme).digest('base64')}'`]);
    expect(inlineScriptHashes(mkdtempSync(join(tmpdir(), 'glob-web-')))).toEqual([]);
  });

  it('is a plain single-page app for a build without routes.json', () => {
    const dist = mkdtempSync(join(tmpdir(), 'glob-web-'));
    writeFileSync(join(dist, 'index.html'), 'spa');
    expect(webPages(dist)('/anything')).toEqual({ file: 'index.html', status: 200 });
  });
});

describe('the API serving the web build (WEB_DIST)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { WEB_DIST: fakeBuild() } });
  });
  afterAll(() => stack.close());

  it('serves /downloads its prerendered file and /app/auth the app shell, never cached', async () => {
    const downloads = await stack.http.get('/downloads').expect(200);
    expect(downloads.text).toContain('data-prerendered="/downloads"');
    expect(downloads.headers['content-type']).toMatch(/text\/html/);
    expect(downloads.headers['cache-control']).toBe('no-cache');
    const home = await stack.http.get('/').expect(200);
    expect(home.text).toContain('data-prerendered="/"');
    const auth = await stack.http.get('/app/auth').expect(200);
    expect(auth.text).toBe('<div id="root"></div>');
    expect(auth.headers['cache-control']).toBe('no-cache');
  });

  it('answers unknown paths with the 404 page and status 404', async () => {
    const res = await stack.http.get('/nowhere-at-all').expect(404);
    expect(res.text).toContain('data-prerendered="404"');
  });

  it('keeps files, hashed assets and the API as they were', async () => {
    const asset = await stack.http.get('/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    await stack.http.get('/assets/missing.js').expect(404);
    const robots = await stack.http.get('/robots.txt').expect(200);
    expect(robots.text).toBe('User-agent: *');
    const shell = await stack.http.get('/app.html').expect(200);
    expect(shell.headers['cache-control']).toBe('no-cache');
    const health = await stack.http.get('/api/health').expect(200);
    expect(health.body.status).toBe('ok');
    // This build has no inline script: nothing beyond 'self' may run.
    expect(shell.headers['content-security-policy']).toContain("script-src 'self';");
    await stack.http.get('/api/no-such-operation').expect(404);
  });
});
