#!/usr/bin/env node
// Lighthouse (mobile) on the marketing site's home, downloads and blog pages: median of N runs of the four category
// scores, FCP, LCP, TBT and CLS, plus the gzipped JavaScript each page loads; then the web app's assistant route: the
// JS loaded by its first paint and once a reply's code block is highlighted. Prints, asserts nothing.
// The pages are prerendered at build time (frontend/build/prerender.ts); the bench says whether the HTML it got was.
//
//   node bench/web.mjs                 builds nothing; starts the real backend serving frontend/dist (own database)
//   node bench/web.mjs http://127.0.0.1:3000 [runs]     measures a running server instead (make serve)
//
// Needs Debian's Chromium (CHROME_PATH, default /usr/bin/chromium), a built backend and frontend
// (`npm run build -w backend && npm run build -w frontend`). The npm package `lighthouse` is a frontend dev dependency.
import { get } from 'node:http';
import { gzipSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

const arg = process.argv[2];
const base = arg && /^https?:/.test(arg) ? arg.replace(/\/$/, '') : undefined;
const runs = Number((base ? process.argv[3] : arg) ?? process.env.RUNS ?? 3);
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const PAGES = [
  ['home', '/'],
  ['downloads', '/downloads'],
  ['blog', '/blog'],
];

if (!existsSync(chromePath)) {
  console.error(`Chromium not found at ${chromePath} (set CHROME_PATH)`);
  process.exit(2);
}

let stack;
let origin = base;
if (!origin) {
  const { startStack } = await import('../frontend/e2e/support/stack.mjs');
  stack = await startStack();
  origin = stack.url;
}
const url = new URL(origin);
if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
  console.error('bench/web.mjs only targets loopback addresses');
  process.exit(2);
}

const median = (values) => {
  const v = values.filter((x) => typeof x === 'number' && !Number.isNaN(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

/** Gzipped size of every script the page loaded, measured here (independent of the server's own compression). */
const gzCache = new Map();
async function gzippedJs(lhr) {
  const items = lhr.audits['network-requests']?.details?.items ?? [];
  const scripts = items.filter((i) => i.resourceType === 'Script' && i.url.startsWith(origin) && i.statusCode === 200);
  let total = 0;
  for (const { url: scriptUrl } of scripts) {
    if (!gzCache.has(scriptUrl)) {
      const body = Buffer.from(await (await fetch(scriptUrl)).arrayBuffer());
      gzCache.set(scriptUrl, gzipSync(body, { level: 9 }).length);
    }
    total += gzCache.get(scriptUrl);
  }
  return { kb: total / 1024, files: scripts.length };
}

/** How the server sends a page: its Content-Encoding (fetch would hide it) and whether the HTML is prerendered. */
const headersOf = (path) =>
  new Promise((resolve) => {
    get(`${origin}${path}`, { headers: { 'Accept-Encoding': 'gzip, br' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    }).on('error', () => resolve({}));
  });
const compression = (await headersOf('/'))['content-encoding'] ?? 'none';
const prerendered = await Promise.all(
  PAGES.map(([, path]) =>
    fetch(`${origin}${path}`)
      .then((r) => r.text())
      .then((html) => /<div id="root" data-prerendered=/.test(html))
      .catch(() => false),
  ),
);

const chrome = await chromeLauncher.launch({
  chromePath,
  chromeFlags: [
    '--headless=new',
    '--no-sandbox',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** Signs a fresh user up through the API, reading the e-mailed code from the stack's mail catcher. */
async function signUp(controlUrl) {
  const email = `bench.${Date.now()}@example.com`;
  const post = (path, body, token) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  await post('/api/users/send-otp', { email, purpose: 'signup' });
  let otp = null;
  for (let i = 0; i < 100 && !otp; i++) {
    const { mails } = await (await fetch(`${controlUrl}/mail?to=${encodeURIComponent(email)}&since=0`)).json();
    otp = mails.find((m) => m.code)?.code ?? null;
    if (!otp) await new Promise((r) => setTimeout(r, 100));
  }
  const { verification_token } = await post('/api/users/verify-otp', { email, otp, purpose: 'signup' });
  const session = await post('/api/users/register-with-otp', {
    email,
    password: `Bench-${Date.now()}!`,
    username: `bench_${Date.now() % 1e6}`,
    verification_token,
  });
  return { ...session, post: (path, body) => post(path, body, session.access_token) };
}

/**
 * The assistant route, signed in: the gzipped JS loaded when /app/assistant first paints (a new conversation), and
 * once a conversation whose reply holds a code block is opened and highlighted (the highlighter is its own chunk,
 * fetched only then). Needs the stack this bench starts (its mail catcher signs the user up).
 */
async function assistantRoute(controlUrl) {
  const { chromium } = await import('@playwright/test');
  const who = await signUp(controlUrl);
  const { conversation } = await who.post('/api/chat/conversations', { title: 'Bench', model_id: 'glob-tiny-chat' });
  const reply = 'A table and code:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\ndef square(x):\n    return x * x\n```\n';
  await who.post(`/api/chat/conversations/${conversation.id}/messages`, { message: { role: 'user', content: 'Show me code' } });
  await who.post(`/api/chat/conversations/${conversation.id}/messages`, { message: { role: 'assistant', content: reply } });
  const browser = await chromium.launch({ executablePath: chromePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const figures = [];
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addInitScript(
        ([access, refresh, user]) => {
          localStorage.setItem('access_token', access);
          localStorage.setItem('refresh_token', refresh);
          localStorage.setItem('user', user);
        },
        [who.access_token, who.refresh_token, JSON.stringify(who.user)],
      );
      const page = await context.newPage();
      const scripts = new Set();
      page.on('response', (r) => r.request().resourceType() === 'script' && r.url().startsWith(origin) && scripts.add(r.url()));
      const started = Date.now();
      // A new conversation first (nothing remembered in this fresh browser): the assistant's own first paint.
      await page.goto(`${origin}/app/assistant`);
      await page.getByRole('heading', { level: 1, name: 'AI Assistant' }).waitFor();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      const firstPaint = { ms: Date.now() - started, urls: [...scripts] };
      // Then the conversation with code, from the sidebar: what its first code block adds.
      const opened = Date.now();
      await page
        .getByRole('button', { name: /^Bench/ })
        .first()
        .click();
      await page.locator('.md-code .hljs-keyword').first().waitFor();
      const highlighted = { ms: Date.now() - opened, urls: [...scripts] };
      const size = async (urls) => {
        let total = 0;
        for (const u of urls) {
          if (!gzCache.has(u)) gzCache.set(u, gzipSync(Buffer.from(await (await fetch(u)).arrayBuffer()), { level: 9 }).length);
          total += gzCache.get(u);
        }
        return total / 1024;
      };
      figures.push({ paintMs: firstPaint.ms, paintKb: await size(firstPaint.urls), codeMs: highlighted.ms, codeKb: await size(highlighted.urls) });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const pick = (k) => median(figures.map((f) => f[k]));
  return { paintMs: pick('paintMs'), paintKb: pick('paintKb'), codeMs: pick('codeMs'), codeKb: pick('codeKb') };
}

const results = [];
let assistant = null;
try {
  for (const [name, path] of PAGES) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const { lhr } = await lighthouse(`${origin}${path}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        formFactor: 'mobile',
        screenEmulation: { mobile: true, width: 412, height: 823, deviceScaleFactor: 1.75, disabled: false },
        throttlingMethod: 'simulate',
        onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
        disableStorageReset: false,
      });
      samples.push({
        performance: lhr.categories.performance.score * 100,
        accessibility: lhr.categories.accessibility.score * 100,
        bestPractices: lhr.categories['best-practices'].score * 100,
        seo: lhr.categories.seo.score * 100,
        fcp: lhr.audits['first-contentful-paint'].numericValue,
        lcp: lhr.audits['largest-contentful-paint'].numericValue,
        tbt: lhr.audits['total-blocking-time'].numericValue,
        cls: lhr.audits['cumulative-layout-shift'].numericValue,
        js: await gzippedJs(lhr),
        failing: Object.values(lhr.audits)
          .filter(
            (a) =>
              a.score !== null &&
              a.score < 0.9 &&
              a.scoreDisplayMode !== 'informative' &&
              a.scoreDisplayMode !== 'notApplicable' &&
              a.scoreDisplayMode !== 'manual',
          )
          .map((a) => a.id),
      });
    }
    const pick = (k) => median(samples.map((s) => s[k]));
    results.push({
      name,
      path,
      performance: pick('performance'),
      accessibility: pick('accessibility'),
      bestPractices: pick('bestPractices'),
      seo: pick('seo'),
      fcp: pick('fcp'),
      lcp: pick('lcp'),
      tbt: pick('tbt'),
      cls: pick('cls'),
      jsKb: median(samples.map((s) => s.js.kb)),
      jsFiles: samples[0]?.js.files ?? 0,
      failing: [...new Set(samples.flatMap((s) => s.failing))],
    });
  }
  if (stack) assistant = await assistantRoute(stack.controlUrl);
} finally {
  await chrome.kill();
  await stack?.stop();
}

const lighthouseVersion = createRequire(import.meta.url)('lighthouse/package.json').version;
console.log(`Lighthouse ${lighthouseVersion} mobile (simulated throttling), median of ${runs} runs, ${origin}`);
console.log(
  `server compression: ${compression}; prerendered HTML: ${PAGES.map(([name], i) => `${name} ${prerendered[i] ? 'yes' : 'no'}`).join(', ')}\n`,
);
console.log(
  'page'.padEnd(11),
  'perf'.padStart(5),
  'a11y'.padStart(5),
  'best'.padStart(5),
  'seo'.padStart(5),
  'FCP ms'.padStart(8),
  'LCP ms'.padStart(8),
  'TBT ms'.padStart(8),
  'CLS'.padStart(7),
  'JS gz KB'.padStart(9),
  'files'.padStart(6),
);
for (const r of results) {
  console.log(
    r.name.padEnd(11),
    r.performance.toFixed(0).padStart(5),
    r.accessibility.toFixed(0).padStart(5),
    r.bestPractices.toFixed(0).padStart(5),
    r.seo.toFixed(0).padStart(5),
    r.fcp.toFixed(0).padStart(8),
    r.lcp.toFixed(0).padStart(8),
    r.tbt.toFixed(0).padStart(8),
    r.cls.toFixed(3).padStart(7),
    r.jsKb.toFixed(1).padStart(9),
    String(r.jsFiles).padStart(6),
  );
}
console.log(
  assistant
    ? `\nassistant at 1440 px, signed in, median of ${runs}: /app/assistant painted (heading and message box) after ${assistant.paintMs.toFixed(0)} ms with ${assistant.paintKb.toFixed(1)} KB gz JS; a conversation with a code block opened from the sidebar, highlighted after ${assistant.codeMs.toFixed(0)} ms, ${assistant.codeKb.toFixed(1)} KB gz JS in all (+${(assistant.codeKb - assistant.paintKb).toFixed(1)} KB: the highlighter's chunk)`
    : '\nassistant route: measured only on the stack this bench starts (it signs a user up through its mail catcher)',
);
const below = results.filter((r) => r.failing.length);
if (below.length) {
  console.log('\naudits below 0.9 in at least one run:');
  for (const r of below) console.log(`  ${r.name}: ${r.failing.join(', ')}`);
}
