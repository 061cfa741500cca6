#!/usr/bin/env node
// `make release`: builds one version of the desktop app for every platform (each asset carries its own Node.js and
// node-llama-cpp's prebuilt binaries, all from the npm registry, cached outside the clone), then writes and signs the
// release manifest (the release contract: .deb, tar.gz, msi, Windows zip, macOS arm64 and x64 zips).
//
//   node scripts/release/build.mjs [--version V] [--out DIR] [--targets linux-x64,windows-x64,macos-arm64,macos-x64]
//     [--formats deb,tar.gz,msi,zip] [--date ISO] [--changelog FILE] [--skip-agent-build] [--jobs N]
//     [--keep-staging]
//
// Defaults: V from node-agent/package.json, DIR .data/release/V, every target and format, the date now, no changelog.
// Signing key: RELEASE_SIGNING_KEY (PKCS8 PEM) or RELEASE_SIGNING_KEY_FILE, else a development key (said loudly).
// Cache: ~/.cache/glob-network/release (GLOB_RELEASE_CACHE moves it); staging: .data/release-staging/, removed after.
// A second version cheaply (the updater's tests): `--targets linux-x64 --formats tar.gz --version V2` rebuilds the
// agent with V2 stamped in (rolldown, seconds) and packs only that tar.gz from the cached runtime and libraries.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildAgent } from './lib/agent.mjs';
import { assembleBundle } from './lib/bundle.mjs';
import { appModules, llamaBinaries, runtimeFiles } from './lib/cache.mjs';
import { DEFAULT_VERSION, ROOT, TARGETS, VERSION_PATTERN } from './lib/config.mjs';
import { buildDeb, buildTarGz } from './lib/linux.mjs';
import { APP, buildMacZip, wrapApp } from './lib/macos.mjs';
import { MANIFEST, PUBLIC_KEY, SIGNATURE, devKeyWarning, manifestText, signManifest, signingKey } from './lib/manifest.mjs';
import { formatSize, log, seconds, sha256File } from './lib/util.mjs';
import { buildMsi, buildWindowsZip } from './lib/windows.mjs';

const FORMATS = ['deb', 'tar.gz', 'msi', 'zip'];

function options(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      version: { type: 'string', default: DEFAULT_VERSION },
      out: { type: 'string' },
      targets: { type: 'string', default: Object.keys(TARGETS).join(',') },
      formats: { type: 'string', default: FORMATS.join(',') },
      date: { type: 'string' },
      changelog: { type: 'string' },
      'skip-agent-build': { type: 'boolean', default: false },
      'keep-staging': { type: 'boolean', default: false },
      jobs: { type: 'string', default: String(Math.min(2, availableParallelism())) },
    },
  });
  if (!VERSION_PATTERN.test(values.version)) throw new Error(`--version must be a version such as 0.2.0 or 0.2.0-beta1, got ${values.version}`);
  const targets = values.targets.split(',').filter(Boolean);
  for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown target ${t} (targets: ${Object.keys(TARGETS).join(', ')})`);
  const formats = values.formats.split(',').filter(Boolean);
  for (const f of formats) if (!FORMATS.includes(f)) throw new Error(`unknown format ${f} (formats: ${FORMATS.join(', ')})`);
  const date = values.date ? new Date(values.date) : new Date();
  if (Number.isNaN(date.getTime())) throw new Error(`--date must be an ISO date, got ${values.date}`);
  return {
    version: values.version,
    out: resolve(values.out ?? join(ROOT, '.data', 'release', values.version)),
    targets,
    formats,
    date,
    changelog: values.changelog ? readFileSync(values.changelog, 'utf8') : '',
    skipAgentBuild: values['skip-agent-build'],
    keepStaging: values['keep-staging'],
    jobs: Math.max(1, Number(values.jobs) || 1),
  };
}

/** Runs the jobs, at most `limit` at once, in their order. */
async function pool(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

async function main() {
  const opts = options(process.argv.slice(2));
  const { version, out, date } = opts;
  const started = Date.now();
  const key = signingKey();
  const names = opts.targets.flatMap((t) => TARGETS[t].assets.filter((a) => opts.formats.includes(a.format)).map((a) => a.name(version)));
  if (!names.length) throw new Error(`--targets ${opts.targets.join(',')} --formats ${opts.formats.join(',')} select no asset`);
  log(`Glob Network ${version}: ${names.join(', ')} into ${relative(process.cwd(), out) || '.'}`);

  mkdirSync(out, { recursive: true });
  for (const f of [MANIFEST, SIGNATURE, PUBLIC_KEY]) rmSync(join(out, f), { force: true });
  const staging = join(ROOT, '.data', 'release-staging', `${version}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });

  const phases = [];
  const timed = async (name, fn) => {
    const t = Date.now();
    const result = await fn();
    phases.push([name, Date.now() - t]);
    return result;
  };

  try {
    // Everything from the registry first (a first build on a machine downloads here, once), then the app's own code.
    await timed('cache', async () => {
      await appModules();
      for (const t of opts.targets) {
        await runtimeFiles(TARGETS[t].runtime);
        for (const b of TARGETS[t].llamaBinaries) await llamaBinaries(b);
      }
    });
    const agentDist = join(staging, 'agent');
    await timed('agent', () => buildAgent(version, agentDist, { skip: opts.skipAgentBuild }));

    const jobs = [];
    await timed('bundles', async () => {
      for (const name of opts.targets) {
        const target = TARGETS[name];
        const assets = target.assets.filter((a) => opts.formats.includes(a.format));
        if (!assets.length) continue;
        const dir = join(staging, name);
        const isMac = target.platform === 'macos';
        const bundle = isMac ? join(dir, APP, 'Contents', 'Resources') : join(dir, 'GlobNetwork');
        await assembleBundle(target, bundle, { version, publicKeyPem: key.publicKeyPem, agentDist });
        if (isMac) wrapApp(join(dir, APP, 'Contents'), { version });
        for (const asset of assets) {
          const build = {
            deb: (file) => buildDeb(bundle, join(dir, 'deb'), file, { version, mtime: date }),
            'tar.gz': (file) => buildTarGz(dir, file, date),
            msi: (file) => buildMsi(dir, file, { version }),
            zip: (file) => (isMac ? buildMacZip(dir, file, date) : buildWindowsZip(dir, file, date)),
          }[asset.format];
          jobs.push({ target: name, asset, build });
        }
      }
    });

    // The external tools' assets (dpkg-deb, wixl) alternate with the in-process archives (node-tar compresses on this
    // process's thread): on 2 cores one of each runs at a time.
    const external = jobs.filter((j) => ['deb', 'msi'].includes(j.asset.format));
    const inProcess = jobs.filter((j) => !external.includes(j));
    const interleaved = [];
    while (external.length || inProcess.length) interleaved.push(...[external.shift(), inProcess.shift()].filter(Boolean));
    log(`packing ${jobs.length} assets, ${opts.jobs} at a time`);
    const built = await pool(
      interleaved.map((job) => async () => {
        const name = job.asset.name(version);
        const file = join(out, name);
        const partial = `${file}.partial`;
        rmSync(file, { force: true });
        rmSync(partial, { force: true });
        const t = Date.now();
        await job.build(partial);
        renameSync(partial, file);
        const ms = Date.now() - t;
        const size = statSync(file).size;
        log(`${name}: ${formatSize(size)} in ${seconds(ms)}`);
        return { ...job, name, file, size, ms, sha256: await sha256File(file) };
      }),
      opts.jobs,
    );

    // The manifest lists the assets in the contract's order: each target's, targets in TARGETS' order.
    const assets = [];
    for (const [tName, target] of Object.entries(TARGETS)) {
      for (const a of target.assets) {
        const b = built.find((x) => x.target === tName && x.asset === a);
        if (b) assets.push({ name: b.name, platform: a.platform, arch: target.arch, format: a.format, size: b.size, sha256: b.sha256, ms: b.ms });
      }
    }
    const text = manifestText({ version, releasedAt: date.toISOString(), changelog: opts.changelog, assets });
    writeFileSync(join(out, PUBLIC_KEY), key.publicKeyPem);
    writeFileSync(join(out, SIGNATURE), `${signManifest(text, key.privateKey)}\n`);
    writeFileSync(join(out, MANIFEST), text);

    const total = Date.now() - started;
    const width = Math.max(...assets.map((a) => a.name.length), 10);
    console.log(`\n${'asset'.padEnd(width)}  ${'size'.padStart(10)}  ${'build'.padStart(8)}`);
    for (const a of assets) console.log(`${a.name.padEnd(width)}  ${formatSize(a.size).padStart(10)}  ${seconds(a.ms).padStart(8)}`);
    for (const [name, ms] of phases) console.log(`${`(${name})`.padEnd(width)}  ${''.padStart(10)}  ${seconds(ms).padStart(8)}`);
    const bytes = assets.reduce((s, a) => s + a.size, 0);
    console.log(`${'total'.padEnd(width)}  ${formatSize(bytes).padStart(10)}  ${seconds(total).padStart(8)}  (wall, ${opts.jobs} at a time)`);
    // The build's own figures, beside the release (bench/installed-app.mjs prints them; never published).
    const report = {
      wall_seconds: total / 1000,
      jobs: opts.jobs,
      phases: Object.fromEntries([...phases].map(([name, ms]) => [name, ms / 1000])),
      assets: Object.fromEntries(assets.map((a) => [a.name, { bytes: a.size, seconds: a.ms / 1000 }])),
    };
    writeFileSync(join(out, 'build-report.json'), `${JSON.stringify(report, null, 2)}\n`);
    log(`signed with ${key.source}: ${join(out, MANIFEST)}`);
    if (key.dev) devKeyWarning(key.source);
  } finally {
    if (opts.keepStaging) log(`staging kept: ${staging}`);
    else rmSync(staging, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`\x1b[31m[release] ${err instanceof Error ? err.message : err}\x1b[0m`);
  process.exit(1);
});
