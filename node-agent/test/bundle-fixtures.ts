/**
 * Installed-app bundles for the launcher's and the updater's tests: the layout a release has (runtime/node, app/…),
 * with this test's Node.js behind runtime/node and a small script for the app, whose behaviour the test chooses.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReleaseInfo } from '../src/launcher/bundle';

/**
 * What the fake app does: appends its version to `record` (one line per start), then, per the JSON in its
 * `behaviour` file: `start` (writes the launcher's started file) and exits with `exit`, or hangs for `hangMs`.
 */
export const FAKE_APP = `
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '..', '..');
const me = JSON.parse(fs.readFileSync(path.join(root, 'app', 'release.json'), 'utf8'));
const handoff = JSON.parse(process.env.GLOB_NETWORK_LAUNCHER);
const b = JSON.parse(fs.readFileSync(path.join(root, 'behaviour.json'), 'utf8'));
fs.appendFileSync(b.record, me.version + ' ' + process.argv.slice(2).join(' ') + '\\n');
if (b.install) fs.cpSync(b.install.from, path.join(handoff.updates_dir, 'versions', b.install.version), { recursive: true });
if (b.hangMs) setTimeout(() => process.exit(0), b.hangMs);
else {
  if (b.start) fs.writeFileSync(handoff.started_file, String(process.pid));
  setTimeout(() => process.exit(b.exit ?? 0), 50);
}
`;

export interface Behaviour {
  record: string;
  start?: boolean;
  exit?: number;
  hangMs?: number;
  /** Before exiting, copies a bundle into the updates as `version` (as the updater would). */
  install?: { from: string; version: string };
}

export function writeBundle(
  root: string,
  info: Partial<ReleaseInfo> & { version: string },
  opts: { app?: string; publicKey?: string; behaviour?: Behaviour } = {},
): string {
  const release: ReleaseInfo = { platform: 'linux', arch: 'x64', update_format: 'tar.gz', ...info };
  mkdirSync(join(root, 'runtime'), { recursive: true });
  mkdirSync(join(root, 'app', 'dist'), { recursive: true });
  // The bundle's "own Node.js": a script that runs this test's.
  const node = join(root, 'runtime', release.platform === 'windows' ? 'node.exe' : 'node');
  writeFileSync(node, `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
  chmodSync(node, 0o755);
  writeFileSync(join(root, 'app', 'release.json'), JSON.stringify(release));
  writeFileSync(join(root, 'app', 'package.json'), JSON.stringify({ name: 'glob-network', version: release.version, private: true }));
  writeFileSync(join(root, 'app', 'dist', 'glob-node.cjs'), opts.app ?? FAKE_APP);
  if (opts.publicKey) writeFileSync(join(root, 'app', 'release-public-key.pem'), opts.publicKey);
  if (opts.behaviour) setBehaviour(root, opts.behaviour);
  return root;
}

export function setBehaviour(root: string, b: Behaviour): void {
  writeFileSync(join(root, 'behaviour.json'), JSON.stringify(b));
}
