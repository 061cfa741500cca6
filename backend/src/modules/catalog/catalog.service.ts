/** The model catalog as one injectable service: read once at start, and again whenever its file changes. */
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { type Stats, unwatchFile, watchFile } from 'node:fs';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { type CatalogModel, loadCatalog } from './catalog';

/** How often the catalog file is looked at for a change (a poll of its metadata: editors replace files by renaming). */
const WATCH_INTERVAL_MS = 2_000;

/**
 * The operator's catalog (MODEL_CATALOG), or the built-in one. An invalid catalog stops the process at start; a change
 * of the file later replaces the catalog at once for every reader, unless the new file is invalid or unreadable: then
 * the catalog stays as it was, with a warning. What was set up from the catalog at start (the models a worker loaded,
 * the queue dashboard's queues) follows a change only after a restart.
 */
@Injectable()
export class CatalogService implements OnModuleDestroy {
  private readonly logger = new Logger('Catalog');
  private current: CatalogModel[];
  private byId: Map<string, CatalogModel>;
  private readonly path: string | undefined;
  private readonly onChange = (now: Stats, before: Stats) => this.changed(now, before);

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'inference'>) {
    this.current = loadCatalog(config);
    this.byId = byId(this.current);
    this.path = config.inference.catalogPath;
    // Not persistent: watching never keeps a process alive.
    if (this.path) watchFile(this.path, { persistent: false, interval: WATCH_INTERVAL_MS }, this.onChange);
  }

  onModuleDestroy(): void {
    if (this.path) unwatchFile(this.path, this.onChange);
  }

  /** Every catalog model, in the file's order. */
  models(): CatalogModel[] {
    return this.current;
  }

  /** The catalog model of this id, if there is one. */
  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The ids of every catalog model, in the file's order. */
  ids(): string[] {
    return this.current.map((m) => m.id);
  }

  private changed(now: Stats, before: Stats): void {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
    let next: CatalogModel[];
    try {
      next = loadCatalog(this.config);
    } catch (err) {
      this.logger.warn(
        `Model catalog ${this.path} changed but cannot be used, so it stays as it was: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    // The same models written again (a copy renamed into place) change nothing.
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.byId = byId(next);
    this.logger.log(`Model catalog ${this.path} reloaded: ${next.length} model(s)`);
  }
}

/** Models by id; where the file names an id twice, its first entry (as a search of the list finds it). */
const byId = (models: CatalogModel[]) => new Map([...models].reverse().map((m) => [m.id, m]));
