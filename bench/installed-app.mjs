#!/usr/bin/env node
// The desktop app as a provider installs it: the release's assets (size, and build time where the build recorded it),
// then the Linux package unpacked and started the way its launcher starts it, from cold (a new process; the files may
// be in the OS's page cache) to "Sharing", with its credential and a model already on disk, side by side with the same
// app run from this checkout's build by the machine's own Node.js (the way `npm run node -- desktop` runs it).
// Prints figures; asserts nothing.
// Usage: node bench/installed-app.mjs [release dir=.data/release-test/<version>] [runs=3]
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { benchUser, prepareNodeBench, root, startBackend, table } from './lib.mjs';

const { version } = JSON.parse(readFileSync(join(root, 'node-agent', 'package.json'), 'utf8'));
const releaseDir = process.argv[2] ?? join(root, '.data', 'release-test', version);
const runs = Number(process.argv[3] ?? 3);
const MODEL = 'glob-tiny-chat';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (n) => `${(n / 1024 ** 2).toFixed(1)} MB`;

if (!existsSync(join(releaseDir, 'release-manifest.json'))) {
  console.error(`${releaseDir} holds no release: run \`make release\` (or \`make test-release\`) first`);
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(join(releaseDir, 'release-manifest.json'), 'utf8'));
const report = existsSync(join(releaseDir, 'build-report.json')) ? JSON.parse(readFileSync(join(releaseDir, 'build-report.json'), 'utf8')) : null;
console.log(`Release ${manifest.version}: ${manifest.assets.length} assets`);
table(
  manifest.assets.map((a) => ({
    asset: a.name,
    size: mb(a.size),
    'build s': report?.assets?.[a.name]?.seconds?.toFixed(1) ?? '–',
  })),
);

// The Linux package, unpacked as the .deb would place it (the same tree).
const tarball = manifest.assets.find((a) => a.platform === 'linux' && a.format === 'tar.gz');
const work = mkdtempSync(join(tmpdir(), 'glob-bench-installed-'));
const t0 = performance.now();
spawnSync('tar', ['-xzf', join(releaseDir, tarball.name), '-C', work], { stdio: 'inherit' });
console.log(`\nUnpacked ${tarball.name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const installed = join(work, 'GlobNetwork', 'bin', 'glob-network');

const { modelPath } = prepareNodeBench();
const backend = await startBackend({ WORKER_MODELS: 'none' });
try {
  const provider = await benchUser(backend, 'bench-installed');
  const common = ['--api', backend.base, '--no-browser', '--no-tray', '--models', MODEL, '--threads', '1', '--gpu', 'off'];
  const ways = {
    installed: { cmd: installed, args: ['desktop', ...common] },
    'checkout build': { cmd: process.execPath, args: [join(root, 'node-agent', 'dist', 'glob-node.cjs'), 'desktop', ...common] },
  };

  /** Starts one way in `home`, until its panel says Sharing; answers the times, then quits it. */
  async function coldStart(way, home, extra = []) {
    const started = performance.now();
    const child = spawn(way.cmd, [...way.args, ...extra], { env: { ...process.env, HOME: home, DISPLAY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.once('exit', r));
    let panel = null;
    let panelMs = null;
    for (let i = 0; i < 1800; i++) {
      const m = /Control panel: (http:\/\/127\.0\.0\.1:(\d+))\/#secret=([\w-]+)/.exec(out);
      if (m && !panel) {
        panel = { base: m[1], secret: m[3] };
        panelMs = performance.now() - started;
      }
      if (panel) {
        const state = await fetch(`${panel.base}/local/state`, { headers: { 'x-glob-panel-secret': panel.secret } })
          .then((r) => r.json())
          .catch(() => null);
        if (state?.phase === 'sharing') {
          const sharingMs = performance.now() - started;
          await fetch(`${panel.base}/local/quit`, {
            method: 'POST',
            headers: { 'x-glob-panel-secret': panel.secret, 'content-type': 'application/json' },
            body: '{}',
          });
          await exited;
          return { panelMs, sharingMs };
        }
      }
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error(`${way.cmd} did not reach Sharing:\n${out}`);
  }

  const rows = [];
  for (const [name, way] of Object.entries(ways)) {
    // Paired once (a join token), the model placed where the app keeps models: later starts need neither.
    const home = join(work, `home-${basename(name).replace(/\W/g, '-')}`);
    mkdirSync(join(home, '.glob-network', 'models'), { recursive: true });
    copyFileSync(modelPath, join(home, '.glob-network', 'models', basename(modelPath)));
    const token = await (await fetch(`${backend.base}/api/nodes/join-tokens`, { method: 'POST', headers: provider.auth })).json();
    await coldStart(way, home, ['--join-token', token.join_token]);
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await coldStart(way, home));
    rows.push({
      way: name,
      'to panel p50 ms': Math.round(median(times.map((t) => t.panelMs))),
      'to Sharing p50 ms': Math.round(median(times.map((t) => t.sharingMs))),
      'to Sharing min ms': Math.round(Math.min(...times.map((t) => t.sharingMs))),
    });
  }
  console.log(`\nCold start with the credential and ${MODEL} already on disk (${runs} runs each):`);
  table(rows);
  const [a, b] = rows;
  console.log(`installed / checkout build, to Sharing: ${(a['to Sharing p50 ms'] / b['to Sharing p50 ms']).toFixed(2)} ×`);
} finally {
  await backend.stop();
  rmSync(work, { recursive: true, force: true });
}
