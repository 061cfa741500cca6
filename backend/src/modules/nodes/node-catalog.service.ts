import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { CatalogService } from '../catalog/catalog.service';
import { ModelFilesService } from '../catalog/model-files.service';
import { TokenCounter } from '../catalog/token-counter';

/**
 * The catalog as node agents pull it: each model's files with their source, size and SHA-256 (the catalog room's
 * ModelFilesService knows them; a file without a pinned source is the API's own copy). Only the models the platform
 * can give a node (it holds their tokenizer): a pinned model the API cannot count is never pulled for nothing.
 */
@Injectable()
export class NodeCatalogService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly files: ModelFilesService,
    private readonly counter: TokenCounter,
  ) {}

  async list(): Promise<Schemas['NodeCatalog']> {
    const models = await Promise.all(
      this.catalog
        .models()
        .filter((m) => this.counter.canCount(m.id))
        .map(async (m) => {
          const files = await this.files.sources(m);
          return {
            id: m.id,
            name: m.displayName,
            file: m.files[0]!.name,
            context_length: m.contextLength,
            size_bytes: files.length ? files.reduce((n, f) => n + f.size_bytes, 0) : null,
            files,
          };
        }),
    );
    return { models };
  }
}
