import { existsSync } from 'node:fs';
import type { AppConfig } from '../../config/config';
import { type CatalogEntry, readCatalogFile } from '../../engine/catalog';
import { UNITS_PER_GLOB } from '../wallet/units';

export { GENERATION_DEFAULTS, TINY_MODEL_FILE } from '../../engine/catalog';

export interface CatalogModel extends CatalogEntry {
  /** Price of one token in milli-GLOB. */
  priceUnits: number;
}

/** The operator's catalog (or the built-in one), priced in milli-GLOB. */
export function loadCatalog(config: Pick<AppConfig, 'inference'>): CatalogModel[] {
  return readCatalogFile(config.inference).map((m) => ({ ...m, priceUnits: Math.round(m.pricePerToken * UNITS_PER_GLOB) }));
}

/**
 * Models a worker loads: WORKER_MODELS (ids, or `none` for a worker that only sends mail), else every
 * catalog model whose weights are on this machine.
 */
export function modelsForWorker(config: Pick<AppConfig, 'inference'>, catalog: CatalogModel[]): CatalogModel[] {
  const wanted = config.inference.workerModels;
  return catalog.filter((m) => (wanted ? wanted.includes(m.id) : existsSync(m.path)));
}

/** "70B" → 70e9, "2M" → 2e6: used for the task difficulty. */
export function parameterCount(parameters: string): number {
  const m = /^([\d.]+)\s*([KMBT]?)/i.exec(parameters.trim());
  if (!m) return 0;
  const scale = { '': 1, K: 1e3, M: 1e6, B: 1e9, T: 1e12 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'B' | 'T'];
  return Number(m[1]) * scale;
}
