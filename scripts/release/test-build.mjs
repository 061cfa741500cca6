#!/usr/bin/env node
// The release the tests read (`make test-release`): every target, signed with a throwaway test key, into
// .data/release-test/<version>/. Every version there is signed with the same key (made once, beside them), so an app
// built as one version verifies the next: Playwright's release.spec updates an installed app from one to the other.
// They are compressed at level 1 (GLOB_RELEASE_COMPRESSION): the same contents in 0.7 × the time. Extra arguments
// go to build.mjs.
//
//   node scripts/release/test-build.mjs [build.mjs options]
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_VERSION, ROOT } from './lib/config.mjs';

export const TEST_RELEASES = join(ROOT, '.data', 'release-test');
/** A fixed date: the same tree gives the same archives from one run to the next. */
export const TEST_DATE = '2026-11-28T15:00:00.000Z';

/** The test releases' signing key (never a release's: it exists only under .data/release-test). */
export const TEST_KEY_FILE = join(TEST_RELEASES, 'test-signing-key.pem');

/** Builds `version` into .data/release-test/<version>/ with the test key; resolves with the folder. */
export async function buildTestRelease(version = DEFAULT_VERSION, args = []) {
  if (!existsSync(TEST_KEY_FILE)) {
    mkdirSync(TEST_RELEASES, { recursive: true });
    writeFileSync(TEST_KEY_FILE, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  }
  const out = join(TEST_RELEASES, version);
  const argv = ['scripts/release/build.mjs', '--version', version, '--out', out, '--date', TEST_DATE, ...args];
  const code = await new Promise((done, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, RELEASE_SIGNING_KEY_FILE: TEST_KEY_FILE, GLOB_RELEASE_COMPRESSION: process.env.GLOB_RELEASE_COMPRESSION ?? '1' },
    });
    child.on('error', reject);
    child.on('close', done);
  });
  if (code !== 0) throw new Error(`the release build exited with ${code}`);
  return out;
}

if (import.meta.filename === process.argv[1]) {
  buildTestRelease(DEFAULT_VERSION, process.argv.slice(2)).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
