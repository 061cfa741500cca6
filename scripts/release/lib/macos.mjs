// macOS assets: GlobNetwork.app zipped (unix modes kept), the bundle in Contents/Resources, a shell script as its
// executable and an Info.plist that keeps it out of the Dock (the app lives in the menu bar). Not signed or
// notarized: Gatekeeper asks the first time it is opened.
import { chmodSync, closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeZip } from './archive.mjs';

export const APP = 'GlobNetwork.app';

const MACOS_LAUNCHER = `#!/bin/sh
# Glob Network: starts the desktop app with this bundle's own Node.js.
DIR="$(cd "$(dirname "$0")" && pwd)"
exec "$DIR/../Resources/runtime/node" "$DIR/../Resources/app/dist/launcher.cjs" desktop "$@"
`;

/** Writes Contents/Info.plist and Contents/MacOS/GlobNetwork around `contents`/Resources (the bundle). */
export function wrapApp(contents, { version }) {
  const minimum = minimumMacos(join(contents, 'Resources', 'runtime', 'node'));
  writeFileSync(join(contents, 'Info.plist'), infoPlist(version, minimum));
  mkdirSync(join(contents, 'MacOS'), { recursive: true });
  writeFileSync(join(contents, 'MacOS', 'GlobNetwork'), MACOS_LAUNCHER);
  chmodSync(join(contents, 'MacOS', 'GlobNetwork'), 0o755);
  chmodSync(join(contents, 'Info.plist'), 0o644);
}

export const buildMacZip = (staging, file, mtime) => writeZip(staging, APP, file, mtime);

function infoPlist(version, minimum) {
  const entries = {
    CFBundleDevelopmentRegion: 'en',
    CFBundleDisplayName: 'Glob Network',
    CFBundleExecutable: 'GlobNetwork',
    CFBundleIdentifier: 'network.glob.desktop',
    CFBundleInfoDictionaryVersion: '6.0',
    CFBundleName: 'Glob Network',
    CFBundlePackageType: 'APPL',
    CFBundleShortVersionString: version,
    CFBundleVersion: version,
    LSMinimumSystemVersion: minimum,
    LSUIElement: true,
    NSHighResolutionCapable: true,
  };
  const body = Object.entries(entries)
    .map(([k, v]) => `\t<key>${k}</key>\n\t${typeof v === 'boolean' ? `<${v}/>` : `<string>${v}</string>`}`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
${body}
</dict>
</plist>
`;
}

/**
 * The oldest macOS the bundled Node.js runs on, read from its Mach-O LC_BUILD_VERSION (13.5 for Node 26), so
 * Info.plist follows the runtime when it changes.
 */
export function minimumMacos(binary) {
  const b = readHead(binary, 32);
  if (b.readUInt32LE(0) !== 0xfeedfacf) throw new Error(`${binary} is not a 64-bit Mach-O binary`);
  const commands = b.readUInt32LE(16);
  const head = readHead(binary, 32 + b.readUInt32LE(20));
  let offset = 32;
  for (let i = 0; i < commands; i++) {
    const cmd = head.readUInt32LE(offset);
    if (cmd === 0x32 /* LC_BUILD_VERSION */ || cmd === 0x24 /* LC_VERSION_MIN_MACOSX */) {
      const v = head.readUInt32LE(offset + (cmd === 0x32 ? 12 : 8));
      return `${v >>> 16}.${(v >> 8) & 0xff}${v & 0xff ? `.${v & 0xff}` : ''}`;
    }
    offset += head.readUInt32LE(offset + 4);
  }
  throw new Error(`${binary} does not say which macOS it needs`);
}

/** The first `bytes` of a file (the runtime is 150 MB; its headers are what is read). */
export function readHead(file, bytes) {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    readSync(fd, buf, 0, bytes, 0);
    return buf;
  } finally {
    closeSync(fd);
  }
}
