import { Global, Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { ModelFilesService } from './model-files.service';
import { TokenCounter } from './token-counter';

/**
 * The model catalog, for every room of both processes (global, like the config): the catalog itself (CatalogService),
 * what the platform knows of its files (ModelFilesService) and each model's tokenizer (TokenCounter). It depends on no
 * other room.
 */
@Global()
@Module({
  providers: [CatalogService, ModelFilesService, TokenCounter],
  exports: [CatalogService, ModelFilesService, TokenCounter],
})
export class CatalogModule {}
