// Linux assets: the tar.gz (top folder GlobNetwork/, what the app updates itself with) and the .deb (the bundle at
// /opt/glob-network, a /usr/bin command, a desktop entry and icons; nothing in anyone's home).
import { existsSync, lutimesSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { COMPRESSION_LEVEL, PRODUCT, ROOT } from './config.mjs';
import { linkFile, linkTree, normalizeModes, run, walk } from './util.mjs';
import { writeTarGz } from './archive.mjs';

export const DEB_ROOT = '/opt/glob-network';

/** `staging`/GlobNetwork (the bundle) as the tar.gz. */
export const buildTarGz = (staging, file, mtime) => writeTarGz(staging, 'GlobNetwork', file, mtime);

/** Debian orders 0.2.0~beta1 before 0.2.0 (a hyphen would make "beta1" a Debian revision, sorting after it). */
export const debVersion = (version) => version.replace('-', '~');

/** The .deb of the bundle at `bundle`, assembled (hard links) under `debRoot`. */
export async function buildDeb(bundle, debRoot, file, { version, mtime }) {
  linkTree(bundle, join(debRoot, DEB_ROOT.slice(1)));
  mkdirSync(join(debRoot, 'usr/bin'), { recursive: true });
  symlinkSync(`${DEB_ROOT}/bin/glob-network`, join(debRoot, 'usr/bin/glob-network'));
  mkdirSync(join(debRoot, 'usr/share/applications'), { recursive: true });
  writeFileSync(join(debRoot, 'usr/share/applications/glob-network.desktop'), desktopEntry());
  for (const [size, png] of icons()) {
    const dir = join(debRoot, `usr/share/icons/hicolor/${size}x${size}/apps`);
    mkdirSync(dir, { recursive: true });
    if (Buffer.isBuffer(png)) writeFileSync(join(dir, 'glob-network.png'), png);
    else linkFile(png, join(dir, 'glob-network.png'));
  }
  normalizeModes(join(debRoot, 'usr'));
  // Installed-Size: KiB, each file rounded up, as dpkg-gencontrol counts it.
  const kib = walk(debRoot, { links: true }).reduce((sum, e) => sum + (e.dir ? 1 : Math.ceil(e.size / 1024)), 0);
  mkdirSync(join(debRoot, 'DEBIAN'), { recursive: true, mode: 0o755 });
  writeFileSync(join(debRoot, 'DEBIAN/control'), control(version, kib), { mode: 0o644 });
  // Every entry dated the release's date (dpkg-deb's SOURCE_DATE_EPOCH only clamps newer ones), for the same bytes
  // from the same tree. The bundle's files are hard links into the cache, whose dates nothing reads.
  for (const e of walk(debRoot, { links: true })) (e.link ? lutimesSync : utimesSync)(e.abs, mtime, mtime);
  utimesSync(debRoot, mtime, mtime);
  // SOURCE_DATE_EPOCH dates the .deb's own members (the ar headers, control.tar) the same way.
  const env = { ...process.env, SOURCE_DATE_EPOCH: String(Math.floor(mtime.getTime() / 1000)) };
  await run('dpkg-deb', ['--root-owner-group', '-Zgzip', `-z${COMPRESSION_LEVEL}`, '--build', debRoot, file], { env });
}

function control(version, kib) {
  return [
    'Package: globnetwork',
    `Version: ${debVersion(version)}`,
    'Architecture: amd64',
    `Maintainer: ${PRODUCT.maintainer}`,
    `Installed-Size: ${kib}`,
    // The bundled Node.js 26 needs glibc 2.28 or newer; everything else it carries itself.
    'Depends: libc6 (>= 2.28)',
    'Section: net',
    'Priority: optional',
    `Homepage: ${PRODUCT.homepage}`,
    `Description: ${PRODUCT.name} desktop app`,
    " The desktop app of Glob Network: share this computer's CPU, GPU and",
    ' memory with the network and earn GLOB. A control panel, a tray icon and',
    ' the node agent, with their own Node.js and llama.cpp (CPU and Vulkan).',
    ' Your data stays in ~/.glob-network, which removing the package keeps.',
    '',
  ].join('\n');
}

function desktopEntry() {
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${PRODUCT.name}`,
    `Comment=${PRODUCT.summary}`,
    'Exec=/usr/bin/glob-network',
    'Icon=glob-network',
    'Terminal=false',
    'Categories=Network;Utility;',
    'StartupNotify=false',
    '',
  ].join('\n');
}

/** The web app's icons (frontend/public/icons), or a plain generated one where the repository has none. */
function icons() {
  const found = [
    [512, join(ROOT, 'frontend/public/icons/icon-512.png')],
    [192, join(ROOT, 'frontend/public/icons/icon-192.png')],
  ].filter(([, p]) => existsSync(p) && readFileSync(p).subarray(1, 4).toString() === 'PNG');
  return found.length ? found : [[256, plainPng(256)]];
}

/** A square PNG in the brand's violet with a white disc: the fallback icon, written with zlib alone. */
function plainPng(size) {
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const inDisc = (x - size / 2) ** 2 + (y - size / 2) ** 2 < (size / 4) ** 2;
      row.set(inDisc ? [255, 255, 255] : [91, 61, 245], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
