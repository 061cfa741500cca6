/**
 * The catalog's model files on the API's own host: pulled for the in-cluster worker (`npm run model:pull`), the
 * way node agents pull them, and pinned from their source (`npm run model:pin`): a model is pulled only once the
 * catalog holds each file's SHA-256 and size.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatBytes } from '@glob/engine/bytes';
import { isVerified, type PinnedFile, pullFiles } from '@glob/engine/model-files';
import type { CatalogEntry } from './catalog';

type Log = (line: string) => void;

/** Pulls the model's files that are missing or wrong (resumable, SHA-256 checked); true when all are the catalog's. */
export async function pullCatalogModel(model: CatalogEntry, log: Log, progressBar = false): Promise<boolean> {
  const pinned = model.files.filter((f): f is typeof f & { url: string; sha256: string; sizeBytes: number } => !!(f.url && f.sha256 && f.sizeBytes));
  if (pinned.length !== model.files.length) {
    const why = model.files.some((f) => !f.url) ? 'has no source in the catalog' : 'has a source whose files the catalog does not pin yet';
    log(`${model.id} ${why}: ${model.files[0]!.url ? `run \`npm run model:pin -- ${model.id}\` first` : `put its file at ${model.path}`}`);
    return false;
  }
  const missing: PinnedFile[] = [];
  for (const f of pinned) {
    if (!(await isVerified(f.path, { sha256: f.sha256, size_bytes: f.sizeBytes })))
      missing.push({ name: f.name, url: f.url, sha256: f.sha256, size_bytes: f.sizeBytes });
  }
  if (missing.length === 0) {
    log(`${model.id}: already here and verified (${model.path})`);
    return true;
  }
  const bytes = missing.reduce((a, f) => a + f.size_bytes, 0);
  log(`Pulling ${model.id} (${formatBytes(bytes)}${missing.length > 1 ? ` in ${missing.length} parts` : ''}) into ${dirname(model.path)}`);
  const { ok } = await pullFiles({ label: model.id, files: missing, dir: dirname(model.path), log, progressBar });
  return ok;
}

/** A file's SHA-256 and size as its source states them (Hugging Face's LFS headers), or by reading it all. */
async function sourceDigest(url: string, log: Log): Promise<{ sha256: string; size: number }> {
  const head = await fetch(url, { method: 'HEAD', redirect: 'manual' });
  const etag = head.headers.get('x-linked-etag')?.replace(/"/g, '');
  const size = Number(head.headers.get('x-linked-size'));
  if (etag && /^[0-9a-f]{64}$/.test(etag) && size > 0) return { sha256: etag, size };
  log(`${url}: no SHA-256 in its headers; reading the whole file to hash it`);
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    read += chunk.length;
  }
  return { sha256: hash.digest('hex'), size: read };
}

/** Writes the SHA-256 and size of each file of the model, as its source gives them, into the catalog file. */
export async function pinCatalogModel(catalogPath: string, model: CatalogEntry, log: Log): Promise<void> {
  if (model.files.some((f) => !f.url)) throw new Error(`${model.id} has no source in ${catalogPath}: nothing to pin`);
  const digests = [];
  for (const f of model.files) digests.push(await sourceDigest(f.url!, log));
  const raw = JSON.parse(readFileSync(catalogPath, 'utf8')) as { models: Array<Record<string, unknown>> };
  const entry = raw.models.find((m) => m.id === model.id)!;
  const one = <T>(values: T[]): T | T[] => (values.length === 1 ? values[0]! : values);
  entry.sha256 = one(digests.map((d) => d.sha256));
  entry.size_bytes = one(digests.map((d) => d.size));
  writeFileSync(catalogPath, `${JSON.stringify(raw, null, 2)}\n`);
  const total = digests.reduce((a, d) => a + d.size, 0);
  log(`Pinned ${model.id}: ${digests.length} file(s), ${formatBytes(total)}, in ${catalogPath}`);
}
