/**
 * Model files fetched from their source and checked against the catalog's SHA-256: for node agents pulling the
 * network's models and for `npm run model:pull` on the API's host. ipull (node-llama-cpp's own download engine)
 * does the transfer: parallel ranged requests, progress kept beside the file so an interrupted pull resumes.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Ipull from 'ipull' with { 'resolution-mode': 'import' };
import { formatBytes } from './bytes';
import { importEsmPackage } from './esm';
import { sha256File } from './file-proof';

/** A file to pull: its name in the models directory, where it comes from, and what its bytes must be. */
export interface PinnedFile {
  name: string;
  /** Absolute, or relative to the `baseUrl` given to pullFiles. */
  url: string;
  size_bytes: number;
  sha256: string;
}

/**
 * What an interrupted pull keeps is whole chunks: ipull's default of 5 MiB loses up to that much per connection,
 * and records progress per chunk. 2 MiB keeps the loss small and the progress record short (20,000 entries for 40 GB).
 */
const CHUNK_BYTES = 2 * 1024 * 1024;
/** Progress lines in a log: one per this share of a pull, at most. */
const LOG_STEP = 0.1;

let ipull: Promise<typeof Ipull> | null = null;
const loadIpull = () => (ipull ??= importEsmPackage<typeof Ipull>(require.resolve('ipull')));

/**
 * Whether the file's bytes are the catalog's. Hashing a large model takes a while, so a verified file gets a note
 * (hash, size, modification time) beside it, and is hashed again only when one of them changes.
 */
export async function isVerified(path: string, f: Pick<PinnedFile, 'sha256' | 'size_bytes'>): Promise<boolean> {
  const s = await stat(path).catch(() => null);
  if (!s?.isFile() || s.size !== f.size_bytes) return false;
  const note = `${path}.verified`;
  const stamp = { sha256: f.sha256, size: s.size, mtimeMs: s.mtimeMs };
  const known = await readFile(note, 'utf8').then(JSON.parse, () => null);
  if (known && known.sha256 === stamp.sha256 && known.size === stamp.size && known.mtimeMs === stamp.mtimeMs) return true;
  if ((await sha256File(path)) !== f.sha256) return false;
  await writeFile(note, JSON.stringify(stamp));
  return true;
}

/** Deletes a file (and its verification note). */
export async function discardFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.verified`, { force: true });
}

export interface PullOptions {
  /** Names the pull in messages (a model id). */
  label: string;
  files: PinnedFile[];
  dir: string;
  baseUrl?: string;
  log: (line: string) => void;
  /** ipull's progress bar on a terminal; plain lines (every 10 %) otherwise. */
  progressBar?: boolean;
  signal?: AbortSignal;
}

export interface PullResult {
  ok: boolean;
  /** Bytes fetched by this pull (what an earlier, interrupted one had already fetched is not counted). */
  fetchedBytes: number;
  seconds: number;
}

/**
 * Fetches every file (split parts together, each from its own URL), then checks each against its SHA-256: a
 * mismatch is deleted and reported. A stop keeps what was fetched, for the next pull to resume.
 */
export async function pullFiles(o: PullOptions): Promise<PullResult> {
  const started = performance.now();
  const { downloadFile } = await loadIpull();
  const total = o.files.reduce((n, f) => n + f.size_bytes, 0);
  // One engine per file, run one after another. Not ipull's downloadSequence: closing a sequence finishes its files,
  // which truncates the progress record kept beside each, so a stopped pull would start again from nothing (measured).
  const engines: Array<Awaited<ReturnType<typeof downloadFile>>> = [];
  for (const f of o.files) {
    engines.push(
      await downloadFile({
        url: new URL(f.url, o.baseUrl).toString(),
        savePath: join(o.dir, f.name),
        // A complete file of the right size is not fetched again (it is verified below); a partial one resumes.
        skipExisting: true,
        chunkSize: CHUNK_BYTES,
        cliProgress: o.progressBar ?? false,
      }),
    );
  }
  let logged = 0;
  let fetchedBytes = 0;
  const already = engines.reduce((n, e) => n + e.status.transferredBytes, 0);
  if (already > 0) o.log(`Resuming ${o.label}: ${formatBytes(already)} of ${formatBytes(total)} already here`);
  const transferred = engines.map((e) => e.status.transferredBytes);
  const onProgress = () => {
    const now = transferred.reduce((a, b) => a + b, 0);
    fetchedBytes = Math.max(0, now - already);
    if (o.progressBar) return;
    const share = total > 0 ? now / total : 1;
    // A line per LOG_STEP, and the last one once (progress events go on while the final bytes are written).
    if (share - logged < LOG_STEP && (share < 1 || logged >= 1)) return;
    logged = share;
    const rate = fetchedBytes / Math.max(0.001, (performance.now() - started) / 1000);
    o.log(`Pulling ${o.label}: ${Math.floor(share * 100)} % (${formatBytes(now)} of ${formatBytes(total)}, ${formatBytes(rate)}/s)`);
  };
  engines.forEach((e, i) =>
    e.on('progress', (status) => {
      transferred[i] = status.transferredBytes;
      onProgress();
    }),
  );
  const onAbort = () => engines.forEach((e) => void e.close().catch(() => undefined));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const seconds = () => (performance.now() - started) / 1000;
  try {
    for (const e of engines) {
      o.signal?.throwIfAborted();
      await e.download();
    }
  } catch (err) {
    if (o.signal?.aborted) throw o.signal.reason;
    o.log(`Could not pull ${o.label}: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, fetchedBytes, seconds: seconds() };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  o.signal?.throwIfAborted();
  for (const f of o.files) {
    const path = join(o.dir, f.name);
    if (!(await isVerified(path, f))) {
      await discardFile(path);
      o.log(`Pulled ${o.label}, but ${f.name} is not the catalog's file (its SHA-256 differs): deleted it; it is not served`);
      return { ok: false, fetchedBytes, seconds: seconds() };
    }
  }
  o.log(`Pulled and verified ${o.label} (${formatBytes(fetchedBytes)} fetched in ${seconds().toFixed(1)} s)`);
  return { ok: true, fetchedBytes, seconds: seconds() };
}
