#!/usr/bin/env node
// Makes the site's media from code: logo icons, the 1200x630 preview image, the hero video and poster, and
// the blog cover images. Needs Debian's Chromium (/usr/bin/chromium) and ffmpeg. Outputs go to public/.
//   node scripts/media/make-media.mjs
/* global window, document -- page.evaluate callbacks run in the browser */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const here = dirname(fileURLToPath(import.meta.url));
const pub = join(here, '../../public');
const logo = readFileSync(join(pub, 'logo.svg'), 'utf8');
const logoUri = `data:image/svg+xml;base64,${Buffer.from(logo).toString('base64')}`;
const scene = readFileSync(join(here, 'scene.js'), 'utf8');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ deviceScaleFactor: 1 });

async function shot(html, width, height, file, type = 'png') {
  await page.setViewportSize({ width, height });
  await page.setContent(html, { waitUntil: 'load' });
  await page.screenshot({ path: file, type, omitBackground: type === 'png' && html.includes('transparent') });
}

// Icons: on the app's background; the maskable one keeps the logo in the safe zone.
const icon = (size, scale, radius = 0) =>
  `<body style="margin:0"><div style="width:${size}px;height:${size}px;display:grid;place-items:center;background:#07090e;border-radius:${radius}px"><img src="${logoUri}" style="width:${scale * 100}%;height:${scale * 100}%"></div></body>`;
mkdirSync(join(pub, 'icons'), { recursive: true });
await shot(icon(192, 0.74), 192, 192, join(pub, 'icons/icon-192.png'));
await shot(icon(512, 0.74), 512, 512, join(pub, 'icons/icon-512.png'));
await shot(icon(512, 0.56), 512, 512, join(pub, 'icons/icon-maskable-512.png'));
await shot(icon(180, 0.7), 180, 180, join(pub, 'icons/apple-touch-icon.png'));
await shot(icon(32, 0.86), 32, 32, join(pub, 'icons/favicon-32.png'));
execFileSync('ffmpeg', ['-y', '-loglevel', 'error', '-i', join(pub, 'icons/favicon-32.png'), join(pub, 'favicon.ico')]);
rmSync(join(pub, 'icons/favicon-32.png'));

// Open Graph / Twitter preview, 1200x630.
const og = `<body style="margin:0"><div style="position:relative;width:1200px;height:630px;overflow:hidden;background:#07090e;font-family:system-ui,'DejaVu Sans',sans-serif;color:#eef1f7">
<canvas id="c" width="1200" height="630" style="position:absolute;left:380px;top:0;opacity:.9"></canvas>
<div style="position:absolute;inset:0;background:linear-gradient(90deg,#07090e 0%,rgba(7,9,14,.9) 50%,rgba(7,9,14,0) 100%)"></div>
<div style="position:absolute;left:80px;top:70px;width:760px">
<div style="display:flex;align-items:center;gap:18px;margin-bottom:44px"><img src="${logoUri}" style="width:68px;height:68px"><span style="font-size:38px;font-weight:800;letter-spacing:-1px">Glob Network</span></div>
<div style="font-size:62px;font-weight:800;line-height:1.08;letter-spacing:-2px">Run AI together.<br><span style="background:linear-gradient(100deg,#c8f547,#4fd8ff);-webkit-background-clip:text;color:transparent">Earn as you share.</span></div>
<div style="margin-top:26px;width:640px;font-size:26px;line-height:1.4;color:#a3adc2">Share your GPU, CPU and memory, earn GLB tokens, and use large language models that run across the network.</div>
</div>
<div style="position:absolute;left:80px;bottom:56px;display:flex;gap:14px;font-size:22px;font-weight:700">
<span style="padding:10px 20px;border-radius:999px;background:#c8f547;color:#0a0d05">Windows · macOS · Linux</span>
<span style="padding:10px 20px;border-radius:999px;border:2px solid #33405a;color:#eef1f7">globnetwork.io</span></div>
</div><script>${scene};drawScene(document.getElementById('c').getContext('2d'),1200,630,0.3)</script></body>`;
mkdirSync(join(pub, 'media'), { recursive: true });
const ogRaw = join(tmpdir(), 'glob-og.png');
await shot(og, 1200, 630, ogRaw);
// 256-colour palette: a fraction of the size, no visible loss on this artwork.
execFileSync('ffmpeg', [
  '-y',
  '-loglevel',
  'error',
  '-i',
  ogRaw,
  '-vf',
  'split[a][b];[a]palettegen=max_colors=256:stats_mode=full[p];[b][p]paletteuse=dither=sierra2_4a',
  join(pub, 'media/og-image.png'),
]);
rmSync(ogRaw);

// Hero video: 4 s loop at 24 fps, 960x540, from the canvas scene.
const frames = mkdtempSync(join(tmpdir(), 'glob-hero-'));
const W = 960,
  H = 540,
  FPS = 24,
  SECONDS = 4,
  N = FPS * SECONDS;
await page.setViewportSize({ width: W, height: H });
await page.setContent(
  `<body style="margin:0;background:#05070b"><canvas id="c" width="${W}" height="${H}"></canvas><script>${scene}</script></body>`,
);
for (let i = 0; i < N; i++) {
  await page.evaluate(([t, w, h]) => window.drawScene(document.getElementById('c').getContext('2d'), w, h, t), [i / N, W, H]);
  await page.screenshot({ path: join(frames, `f${String(i).padStart(4, '0')}.png`) });
}
const hero = join(pub, 'media/hero');
mkdirSync(hero, { recursive: true });
const input = ['-y', '-loglevel', 'error', '-framerate', String(FPS), '-i', join(frames, 'f%04d.png')];
execFileSync('ffmpeg', [
  ...input,
  '-c:v',
  'libvpx-vp9',
  '-b:v',
  '0',
  '-crf',
  '46',
  '-row-mt',
  '1',
  '-deadline',
  'good',
  '-cpu-used',
  '2',
  '-pix_fmt',
  'yuv420p',
  '-an',
  join(hero, 'network.webm'),
]);
execFileSync('ffmpeg', [
  ...input,
  '-c:v',
  'libx264',
  '-preset',
  'slow',
  '-crf',
  '33',
  '-pix_fmt',
  'yuv420p',
  '-movflags',
  '+faststart',
  '-an',
  join(hero, 'network.mp4'),
]);
execFileSync('ffmpeg', [
  '-y',
  '-loglevel',
  'error',
  '-i',
  join(frames, 'f0000.png'),
  '-c:v',
  'libwebp',
  '-quality',
  '70',
  join(hero, 'network-poster.webp'),
]);
rmSync(frames, { recursive: true, force: true });

await browser.close();
for (const f of ['media/hero/network.webm', 'media/hero/network.mp4', 'media/hero/network-poster.webp', 'media/og-image.png', 'icons/icon-512.png']) {
  console.log(f.padEnd(36), `${(statSync(join(pub, f)).size / 1024).toFixed(1)} KB`);
}
