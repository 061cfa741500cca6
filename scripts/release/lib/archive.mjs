// The tar.gz and zip writers: entries in sorted order, one fixed mtime (the release's date) and the staged modes, so the
// same inputs give the same bytes.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { create as createTar } from 'tar';
import yazl from 'yazl';
import { COMPRESSION_LEVEL } from './config.mjs';
import { walk } from './util.mjs';

/** `cwd`/`top` (a folder) as a .tar.gz whose entries all start with `top`/. */
export async function writeTarGz(cwd, top, file, mtime) {
  const entries = [top, ...walk(`${cwd}/${top}`).map((e) => `${top}/${e.rel}`)];
  await createTar({ cwd, file, gzip: { level: COMPRESSION_LEVEL }, portable: true, mtime, noDirRecurse: true }, entries);
}

/** `cwd`/`top` (a folder) as a .zip whose entries all start with `top`/, unix modes kept (0755 executables). */
export async function writeZip(cwd, top, file, mtime) {
  const zip = new yazl.ZipFile();
  zip.addEmptyDirectory(`${top}/`, { mtime, mode: 0o40755 });
  for (const e of walk(`${cwd}/${top}`)) {
    const name = `${top}/${e.rel}`;
    if (e.dir) zip.addEmptyDirectory(`${name}/`, { mtime, mode: 0o40000 | e.mode });
    else zip.addFile(e.abs, name, { mtime, mode: 0o100000 | e.mode, compressionLevel: COMPRESSION_LEVEL });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}
