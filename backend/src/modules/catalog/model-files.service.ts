/** What the platform itself knows of the catalog's model files: where nodes get each, the API's own copies, sizes and layers. */
import { Injectable, NotFoundException } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import type { Schemas } from '../../contract/types';
import { sha256File } from '@glob/engine/file-proof';
import { readGgufHeader } from '@glob/engine/gguf';
import type { CatalogFile, CatalogModel } from './catalog';
import { CatalogService } from './catalog.service';

type Source = Schemas['ModelFileSource'];

/** A catalog model's size (all parts) and repeating layers, as the platform itself knows them. */
export interface ModelFacts {
  bytes: number;
  layers: number;
}

/** Where a node gets a file the API serves itself; relative, so it resolves against whatever URL the node uses. */
const OWN_COPY = (name: string) => `/api/nodes/catalog/files/${encodeURIComponent(name)}`;

/**
 * Each catalog model's files with their source, size and SHA-256. A file the catalog pins no source for is served
 * from the API's own copy, hashed here once per version of the file on disk.
 */
@Injectable()
export class ModelFilesService {
  /** SHA-256 of the API's own files, by path, for the size and mtime they had when hashed. */
  private readonly hashes = new Map<string, { size: number; mtimeMs: number; sha256: Promise<string> }>();
  /** Layer counts of the API's GGUF files, by path, for the size and mtime they had when read. */
  private readonly layers = new Map<string, { size: number; mtimeMs: number; layers: Promise<number | null> }>();

  constructor(private readonly catalog: CatalogService) {}

  /**
   * A model's size and layer count as the platform knows them, for planning pools: the size its files are pinned at
   * (or the API's own copy has), the layers from the header of the API's copy of the model, else of its tokenizer
   * (a vocabulary-only GGUF keeps the model's metadata). Null while either is unknown.
   */
  async facts(modelId: string): Promise<ModelFacts | null> {
    const m = this.catalog.get(modelId);
    if (!m) return null;
    const files = await this.sources(m);
    if (!files.length) return null;
    const layers = (await this.blockCount(m.files[0]!.path)) ?? (await this.blockCount(m.tokenizerPath));
    return layers ? { bytes: files.reduce((n, f) => n + f.size_bytes, 0), layers } : null;
  }

  /** A GGUF's layer count, read once per version of the file on disk (every pool member's heartbeat asks). */
  private async blockCount(path: string): Promise<number | null> {
    const s = await stat(path).catch(() => null);
    if (!s?.isFile()) return null;
    let known = this.layers.get(path);
    if (!known || known.size !== s.size || known.mtimeMs !== s.mtimeMs) {
      known = { size: s.size, mtimeMs: s.mtimeMs, layers: blockCount(path) };
      this.layers.set(path, known);
    }
    return known.layers;
  }

  /** The path of a file the API serves itself (no source pinned, on disk); 404 for any other name. */
  async ownCopy(name: string): Promise<string> {
    for (const m of this.catalog.models()) {
      const f = m.files.find((x) => x.name === name);
      if (f && !f.url && (await stat(f.path).catch(() => null))?.isFile()) return f.path;
    }
    throw new NotFoundException('No such model file');
  }

  /** All of a model's files, or none when one of them has no source (a model is pulled whole or not at all). */
  async sources(m: CatalogModel): Promise<Source[]> {
    const out: Source[] = [];
    for (const f of m.files) {
      const s = f.url ? pinned(f) : await this.ownSource(f);
      if (!s) return [];
      out.push(s);
    }
    return out;
  }

  private async ownSource(f: CatalogFile): Promise<Source | null> {
    const s = await stat(f.path).catch(() => null);
    if (!s?.isFile()) return null;
    let known = this.hashes.get(f.path);
    if (!known || known.size !== s.size || known.mtimeMs !== s.mtimeMs) {
      known = { size: s.size, mtimeMs: s.mtimeMs, sha256: sha256File(f.path) };
      this.hashes.set(f.path, known);
      known.sha256.catch(() => this.hashes.delete(f.path));
    }
    return { name: f.name, url: OWN_COPY(f.name), size_bytes: s.size, sha256: await known.sha256 };
  }
}

/** A GGUF's repeating layers (`<architecture>.block_count`), or null where the file is unreadable. */
async function blockCount(path: string): Promise<number | null> {
  const header = await readGgufHeader(path).catch(() => null);
  const layers = header?.metadata.get(`${String(header.metadata.get('general.architecture'))}.block_count`);
  return typeof layers === 'number' && Number.isInteger(layers) && layers > 0 ? layers : null;
}

const pinned = (f: CatalogFile): Source | null =>
  f.url && f.sha256 && f.sizeBytes ? { name: f.name, url: f.url, size_bytes: f.sizeBytes, sha256: f.sha256 } : null;
