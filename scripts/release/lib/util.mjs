// Small helpers of the release build: logging, child processes, file trees and hashes.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, createReadStream, linkSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function log(msg) {
  console.log(`\x1b[1m[release]\x1b[0m ${msg}`);
}

/** A message nobody should miss (the development signing key, a placeholder launcher): boxed, on stderr. */
export function shout(lines) {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '!'.repeat(width + 4);
  console.error(`\x1b[33;1m${bar}\n${lines.map((l) => `! ${l.padEnd(width)} !`).join('\n')}\n${bar}\x1b[0m`);
}

/**
 * Runs a program to its end; rejects with its output when it fails (a build's child is quiet unless something is wrong).
 * `inherit` shows its output as it runs instead.
 */
export function run(cmd, args, { cwd, env, inherit = false } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolveRun(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}${out ? `:\n${out.slice(-4000)}` : ''}`));
    });
  });
}

/**
 * Every directory and file under `dir`, sorted by path (so archives list them in the same order on every machine), as
 * { rel, abs, dir, mode, size }. Symbolic links are refused (zip and msi cannot hold them) unless `links` (the .deb's
 * /usr/bin command), which lists them as empty files.
 */
export function walk(dir, { links = false } = {}, rel = '') {
  const out = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const abs = join(dir, r);
    const st = lstatSync(abs);
    if (st.isSymbolicLink() && !links) throw new Error(`${abs} is a symbolic link; a bundle holds only files and directories`);
    if (st.isDirectory()) {
      out.push({ rel: r, abs, dir: true, mode: st.mode & 0o7777, size: 0 });
      out.push(...walk(dir, { links }, r));
    } else {
      out.push({ rel: r, abs, dir: false, link: st.isSymbolicLink(), mode: st.mode & 0o7777, size: st.isSymbolicLink() ? 0 : st.size });
    }
  }
  return out;
}

/**
 * Puts a copy of the tree `src` at `dest` by hard links (no bytes copied: the runtime and the libraries are hundreds
 * of MB per target), falling back to copies across file systems. The cached trees are never written through them.
 */
export function linkTree(src, dest) {
  mkdirSync(dest, { recursive: true });
  for (const e of walk(src)) {
    const to = join(dest, e.rel);
    if (e.dir) {
      mkdirSync(to, { recursive: true, mode: 0o755 });
      continue;
    }
    linkFile(e.abs, to, e.mode);
  }
}

export function linkFile(from, to, mode) {
  try {
    linkSync(from, to);
  } catch (err) {
    if (!['EXDEV', 'EPERM', 'EMLINK'].includes(err.code)) throw err;
    copyFileSync(from, to);
    chmodSync(to, mode ?? lstatSync(from).mode & 0o7777);
  }
}

/** File modes as every archive stores them: 0755 for directories and executables, 0644 for the rest. */
export function normalizeModes(dir) {
  for (const e of walk(dir, { links: true })) {
    const mode = e.dir || e.mode & 0o111 ? 0o755 : 0o644;
    if (!e.link && e.mode !== mode) chmodSync(e.abs, mode);
  }
}

export function sha256File(file) {
  return new Promise((resolveHash, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (d) => hash.update(d))
      .on('error', reject)
      .on('end', () => resolveHash(hash.digest('hex')));
  });
}

export const formatSize = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
