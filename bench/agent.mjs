#!/usr/bin/env node
// node bench/agent.mjs [layers=12]
// What joining the network costs a provider, measured side by side:
//  1. Installing: the packed node agent (`npm pack`, then `npm install <tarball>` into an empty directory, as
//     `npx glob-node` does) against this repository's `npm ci` (what joining took before): packages, disk, seconds.
//     Both from npm's local cache (--prefer-offline), so the network is not what is measured.
//  2. Pulling a model from the API's own copy (GET /api/nodes/catalog/files/…, Range-capable): the agent's pull
//     (ipull, 2 MiB chunks, then the SHA-256 check) against one plain GET of the same URL (node:http) written to disk and
//     hashed (the direct baseline); and a pull stopped at about half and resumed: bytes fetched in all against the
//     file's size, and seconds.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { root, startBackend } from './lib.mjs';

const layers = Number(process.argv[2] ?? 12);
const work = mkdtempSync(join(tmpdir(), 'glob-bench-agent-'));
const mb = (bytes) => (bytes / 1024 ** 2).toFixed(1);
const seconds = (from) => (performance.now() - from) / 1000;
const du = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
/** Installed packages: every package.json directly under node_modules (scoped ones one level deeper). */
const packages = (dir) => {
  const top = join(dir, 'node_modules');
  let n = 0;
  for (const e of readdirSync(top)) {
    if (e.startsWith('.')) continue;
    if (e.startsWith('@')) n += readdirSync(join(top, e)).length;
    else n++;
  }
  return n;
};
const npm = (args, cwd) => {
  const t0 = performance.now();
  const r = spawnSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${r.stderr}`);
  return seconds(t0);
};

try {
  // 1. Installing.
  // Built first, packed without scripts: npm pack's stdout is then only its JSON.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: join(root, 'node-agent'), stdio: ['ignore', 'ignore', 'inherit'] });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: join(root, 'node-agent'), encoding: 'utf8' }),
  )[0];
  const agentDir = join(work, 'agent');
  mkdirSync(agentDir);
  const agentSeconds = npm(['install', join(work, packed.filename)], agentDir);
  const repoDir = join(work, 'repo');
  for (const ws of ['', 'generated', 'engine', 'backend', 'node-agent', 'frontend']) {
    mkdirSync(join(repoDir, ws), { recursive: true });
    writeFileSync(join(repoDir, ws, 'package.json'), execFileSync('cat', [join(root, ws, 'package.json')]));
  }
  writeFileSync(join(repoDir, 'package-lock.json'), execFileSync('cat', [join(root, 'package-lock.json')]));
  const repoSeconds = npm(['ci', '--ignore-scripts'], repoDir);
  const rows = [
    ['npx glob-node (packed agent)', packages(agentDir), du(join(agentDir, 'node_modules')), agentSeconds, packed.size],
    ['clone + npm ci (the repository)', packages(repoDir), du(join(repoDir, 'node_modules')), repoSeconds, null],
  ];
  console.log('\nJoining: what a provider installs (from the npm cache)\n');
  console.log('| install | packages | node_modules | seconds | tarball |\n|---|---|---|---|---|');
  for (const [what, n, bytes, s, tarball] of rows)
    console.log(`| ${what} | ${n} | ${mb(bytes)} MB | ${s.toFixed(1)} | ${tarball ? `${(tarball / 1024).toFixed(1)} KB` : '—'} |`);
  const node = rows[1];
  console.log(
    `\nThe packed agent: ${((rows[0][1] / node[1]) * 100).toFixed(0)} % of the packages, ${((rows[0][2] / node[2]) * 100).toFixed(0)} % of the disk.`,
  );
  const agentModules = join(agentDir, 'node_modules', '@node-llama-cpp');
  console.log(
    `Of its ${mb(rows[0][2])} MB, node-llama-cpp's prebuilt llama.cpp binaries (every backend npm picks for this OS): ${mb(du(agentModules))} MB.`,
  );
  rmSync(repoDir, { recursive: true, force: true });

  // 2. Pulling.
  const models = join(work, 'models');
  mkdirSync(models);
  spawnSync(
    'npm',
    [
      'run',
      '--silent',
      'model:tiny',
      '-w',
      'backend',
      '--',
      join(models, 'bench-pull.gguf'),
      `--layers=${layers}`,
      '--embd=512',
      '--ff=1536',
      '--heads=8',
      '--seed=9',
    ],
    { cwd: root, stdio: 'ignore' },
  );
  const size = statSync(join(models, 'bench-pull.gguf')).size;
  const catalog = join(models, 'catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({ models: [{ id: 'bench-pull', name: 'Bench pull', parameters: '?', price_per_token: 0.125, path: 'bench-pull.gguf' }] }),
  );
  const backend = await startBackend({ MODEL_CATALOG: catalog, MODELS_DIR: models, WORKER_MODELS: 'none', NODE_CATALOG_RATE_LIMIT: '1000000' });
  try {
    const t0 = performance.now();
    const { models: listed } = await (await fetch(`${backend.base}/api/nodes/catalog`)).json();
    const hashSeconds = seconds(t0);
    const file = listed[0].files[0];
    const url = new URL(file.url, backend.base).toString();
    const { pullFiles } = await import(join(root, 'engine', 'dist', 'model-files.js'));
    const quiet = () => undefined;
    const results = [];
    for (let run = 0; run < 3; run++) {
      // The direct baseline: one GET, written to disk, then hashed, as the agent hashes what it pulled.
      const direct = join(work, `direct-${run}`);
      mkdirSync(direct);
      let t = performance.now();
      await new Promise((done, fail) =>
        get(url, (res) => pipeline(res, createWriteStream(join(direct, file.name))).then(done, fail)).on('error', fail),
      );
      const hash = createHash('sha256');
      await pipeline(createReadStream(join(direct, file.name)), hash);
      if (hash.digest('hex') !== file.sha256) throw new Error('the direct copy differs');
      const directSeconds = seconds(t);
      const pulled = join(work, `pulled-${run}`);
      mkdirSync(pulled);
      t = performance.now();
      const r = await pullFiles({ label: 'bench-pull', files: [file], dir: pulled, baseUrl: backend.base, log: quiet });
      if (!r.ok) throw new Error('the pull failed');
      results.push({ directSeconds, pullSeconds: seconds(t) });
      rmSync(direct, { recursive: true });
      rmSync(pulled, { recursive: true });
    }
    // Stopped at about half, then resumed: what the two runs fetched in all.
    const resumed = join(work, 'resumed');
    mkdirSync(resumed);
    const stop = new AbortController();
    let firstFetched = 0;
    const t1 = performance.now();
    await pullFiles({
      label: 'bench-pull',
      files: [file],
      dir: resumed,
      baseUrl: backend.base,
      signal: stop.signal,
      log: (line) => {
        const m = /: (\d+) % \(([\d.]+) MB/.exec(line);
        if (m && Number(m[1]) >= 50) {
          firstFetched = Number(m[2]) * 1024 ** 2;
          stop.abort(new Error('stopped'));
        }
      },
    }).catch(() => undefined);
    const firstSeconds = seconds(t1);
    let kept = 0;
    const t2 = performance.now();
    const second = await pullFiles({
      label: 'bench-pull',
      files: [file],
      dir: resumed,
      baseUrl: backend.base,
      log: (line) => {
        const m = /Resuming bench-pull: ([\d.]+) MB/.exec(line);
        if (m) kept = Number(m[1]) * 1024 ** 2;
      },
    });
    const secondSeconds = seconds(t2);

    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const direct = median(results.map((r) => r.directSeconds));
    const pull = median(results.map((r) => r.pullSeconds));
    console.log(`\nPulling a ${mb(size)} MB model from the API's own copy on loopback (median of 3)\n`);
    console.log('| path | seconds | MB/s |\n|---|---|---|');
    console.log(`| one GET to disk + SHA-256 (direct) | ${direct.toFixed(2)} | ${mb(size / direct)} |`);
    console.log(`| the agent's pull (ipull + SHA-256) | ${pull.toFixed(2)} | ${mb(size / pull)} |`);
    console.log(`\nAgent / direct: ${(direct / pull).toFixed(2)} × the throughput.`);
    console.log(`The API's first catalog answer, hashing its copy: ${hashSeconds.toFixed(2)} s (then cached by size and mtime).`);
    console.log(
      `Stopped at ~half (${mb(firstFetched)} MB in ${firstSeconds.toFixed(2)} s), resumed with ${mb(kept)} MB kept: ` +
        `the second run fetched ${mb(second.fetchedBytes)} MB in ${secondSeconds.toFixed(2)} s; ` +
        `fetched in all ${mb(firstFetched + second.fetchedBytes)} MB for a ${mb(size)} MB file ` +
        `(${(((firstFetched + second.fetchedBytes) / size - 1) * 100).toFixed(1)} % more; what a stop loses is at most the chunks in flight).`,
    );
  } finally {
    await backend.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
