// What the release tests share: the built test release (built once, under a lock, when absent), and readers of what
// is inside its assets (zip entries with yauzl, tar entries with node-tar, executable headers).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Parser } from 'tar';
import yauzl from 'yauzl';
import { DEFAULT_VERSION } from './lib/config.mjs';
import { MANIFEST } from './lib/manifest.mjs';
import { TEST_RELEASES, buildTestRelease } from './test-build.mjs';

/** Whether `dir` holds a whole release: its manifest (written last) and every asset it names. */
function complete(dir) {
  if (!existsSync(join(dir, MANIFEST))) return false;
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  return manifest.assets.every((a) => existsSync(join(dir, a.name)));
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The test release of `version` (the build's own default: node-agent's version), built first when absent. Test
 * files run in parallel processes: one builds under .data/release-test/.lock while the others wait for it.
 */
export async function testRelease(version = DEFAULT_VERSION, args = []) {
  const dir = join(TEST_RELEASES, version);
  const lock = join(TEST_RELEASES, `.lock-${version}`);
  mkdirSync(TEST_RELEASES, { recursive: true });
  for (;;) {
    if (complete(dir)) break;
    try {
      mkdirSync(lock);
    } catch {
      // A lock left by a build that died is taken over.
      const holder = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : 0);
      if (holder && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      await sleep(1000);
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (!complete(dir)) await buildTestRelease(version, args);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  const manifestText = readFileSync(join(dir, MANIFEST), 'utf8');
  return { dir, version, manifestText, manifest: JSON.parse(manifestText), file: (name) => join(dir, name) };
}

/** A zip's entries: name → { mode, size, dir }. */
export function zipEntries(file) {
  return new Promise((resolveEntries, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const entries = new Map();
      zip.on('entry', (e) => {
        const mode = (e.externalFileAttributes >>> 16) & 0o7777;
        entries.set(e.fileName, { mode, size: e.uncompressedSize, dir: e.fileName.endsWith('/') });
        zip.readEntry();
      });
      zip.on('end', () => resolveEntries(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The first `max` bytes (or all) of each named entry of a zip: name → Buffer. */
export function zipRead(file, names, max = Infinity) {
  const wanted = new Set(names);
  return new Promise((resolveRead, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map();
      zip.on('entry', (e) => {
        if (!wanted.has(e.fileName)) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const chunks = [];
          let got = 0;
          stream.on('data', (c) => {
            if (got < max) chunks.push(c);
            got += c.length;
          });
          stream.on('end', () => {
            out.set(e.fileName, Buffer.concat(chunks).subarray(0, max));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolveRead(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/**
 * A tar stream's entries: path → { mode, type, size, linkpath, head } where head is the first `max` bytes of each
 * entry named in `read`. `source`: a .tar.gz file, or a readable stream of a plain tar (dpkg-deb --fsys-tarfile).
 */
export function tarEntries(source, read = [], max = Infinity) {
  const wanted = new Set(read);
  return new Promise((resolveEntries, reject) => {
    const entries = new Map();
    const parser = new Parser({
      onReadEntry: (e) => {
        const info = { mode: e.mode & 0o7777, type: e.type, size: e.size, linkpath: e.linkpath, head: null };
        entries.set(e.path, info);
        if (!wanted.has(e.path)) return e.resume();
        const chunks = [];
        let got = 0;
        e.on('data', (c) => {
          if (got < max) chunks.push(c);
          got += c.length;
        });
        e.on('end', () => (info.head = Buffer.concat(chunks).subarray(0, max)));
      },
    });
    parser.on('end', () => resolveEntries(entries));
    parser.on('error', reject);
    if (typeof source === 'string') {
      const stream = createReadStream(source);
      stream.on('error', reject);
      stream.pipe(parser);
    } else {
      source.on('error', reject);
      source.pipe(parser);
    }
  });
}

/** dpkg's own tool, a system package (knip would look for it among npm's binaries). */
const DPKG_DEB = 'dpkg-deb';

/** The data tree of a .deb as a tar stream. */
export function debDataTar(file) {
  const child = spawn(DPKG_DEB, ['--fsys-tarfile', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  return child.stdout;
}

/** Runs a program and returns its stdout; throws with its stderr when it fails. */
export function output(cmd, args, { cwd } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error}`);
  return r.stdout;
}

/** An ELF header's class and machine: 64-bit x86-64 is { bits: 64, machine: 0x3e }. */
export function elf(buf) {
  if (buf.readUInt32BE(0) !== 0x7f454c46) return null;
  return { bits: buf[4] === 2 ? 64 : 32, machine: buf.readUInt16LE(0x12) };
}

/** A PE file's COFF machine (0x8664 for x64), or null when it is not one. */
export function peMachine(buf) {
  if (buf.toString('latin1', 0, 2) !== 'MZ') return null;
  const pe = buf.readUInt32LE(0x3c);
  if (buf.toString('latin1', pe, pe + 4) !== 'PE\0\0') return null;
  return buf.readUInt16LE(pe + 4);
}

/** A thin 64-bit Mach-O's magic and CPU type (arm64 0x0100000c, x86_64 0x01000007). */
export const machO = (buf) => ({ magic: buf.readUInt32LE(0), cputype: buf.readUInt32LE(4) });

/** The rows of an msiinfo export: header lines dropped, each row split on tabs. */
export function msiTable(msi, table) {
  return output('msiinfo', ['export', msi, table])
    .split(/\r?\n/)
    .slice(3)
    .filter(Boolean)
    .map((line) => line.split('\t'));
}
