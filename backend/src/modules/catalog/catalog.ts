/** The model catalog's file: its format (validated), its models as the platform prices them, and the built-in one. */
import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { AppConfig } from '../../config/config';
import { splitParts } from '@glob/engine/gguf';
import { UNITS_PER_GLOB } from '../../common/units';

/** A catalog model's context length when its entry names none. */
export const DEFAULT_CONTEXT_LENGTH = 8192;
export const TINY_MODEL_FILE = 'glob-tiny-chat.gguf';
/** The project's own tiny embedding model (written beside the chat model by `npm run model:tiny`). */
export const TINY_EMBED_MODEL_FILE = 'glob-tiny-embed.gguf';
/**
 * The project's tiny chat models with real families' tokenizers and chat templates (random weights, written beside the
 * chat model by `npm run model:tiny`): every path of the platform runs on a real vocabulary before a real model loads.
 */
export const TINY_FAMILY_MODEL_FILES = { llama3: 'glob-tiny-llama3.gguf', qwen2: 'glob-tiny-qwen2.gguf' } as const;
/** Every model file the project writes itself (nothing to pull: the API holds them and serves them to nodes). */
export const PROJECT_MODEL_FILES: readonly string[] = [TINY_MODEL_FILE, TINY_EMBED_MODEL_FILE, ...Object.values(TINY_FAMILY_MODEL_FILES)];
/** A catalog model's date when its entry names none: the day the catalog began (a fixed day, never the load time). */
export const DEFAULT_CREATED = '2026-11-21';

/**
 * What the platform serves with a chat model and with an embedding model: the one place to change when a feature is
 * built (`GET /v1/models` reports it as `supported_features`).
 */
export const MODEL_FEATURES = { tools: true, structured_outputs: true, embeddings: false } as const;
export const EMBEDDING_MODEL_FEATURES = { tools: false, structured_outputs: false, embeddings: true } as const;

/** A catalog model is a chat model (it generates text) or an embedding model (it answers vectors), never both. */
export type ModelKind = 'chat' | 'embedding';
export const modelFeatures = (m: { kind: ModelKind }) => ({ ...(m.kind === 'embedding' ? EMBEDDING_MODEL_FEATURES : MODEL_FEATURES) });

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lower-case hex');
const oneOrMore = <T extends z.ZodType>(t: T) => z.union([t, z.array(t).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));
const entry = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
    name: z.string().min(1).max(100),
    /** `embedding` for a model that answers `POST /v1/embeddings` only; a chat model by default. */
    kind: z.enum(['chat', 'embedding']).default('chat'),
    display_name: z.string().min(1).max(100).optional(),
    parameters: z.string().max(20),
    description: z.string().max(500).default('AI Language Model'),
    context_length: z.number().int().positive().default(DEFAULT_CONTEXT_LENGTH),
    price_per_token: z.number().min(0).max(1000),
    /** The model's date (its release, or the day it joined the catalog), YYYY-MM-DD: OpenAI's `created`. */
    created: z.iso.date().default(DEFAULT_CREATED),
    path: z.string().regex(/^(.*[/\\])?[A-Za-z0-9._-]{1,200}\.gguf$/, 'a .gguf file name (letters, digits, . _ -)'),
    /** A GGUF with the model's vocabulary (the model's own file by default): the platform counts tokens with it. */
    tokenizer: z.string().min(1).optional(),
    /** Where nodes pull the file (the first part of a split model; the others are named alike). */
    source: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * The file's SHA-256 and size in bytes, one per part of a split model: a node keeps only bytes that match, and
     * pulls a model only once they are pinned (`npm run model:pin` reads them from the source).
     */
    sha256: oneOrMore(sha256).optional(),
    size_bytes: oneOrMore(z.number().int().positive()).optional(),
  })
  .superRefine((m, ctx) => {
    const parts = splitParts(basename(m.path)).length;
    for (const key of ['sha256', 'size_bytes'] as const) {
      const given = m[key];
      if (given && given.length !== parts) ctx.addIssue({ code: 'custom', path: [key], message: `needs ${parts} value(s), one per file` });
    }
  });
const file = z.object({ models: z.array(entry).min(1) });

/** One file of a catalog model: where the API has it, and where nodes get it, when the catalog pins one. */
export interface CatalogFile {
  name: string;
  /** Where this machine would have it (it may not). */
  path: string;
  /** The operator's source, or null: then nodes get the API's own copy, if it has one. */
  url: string | null;
  sha256: string | null;
  sizeBytes: number | null;
}

/** A catalog model as the file describes it (its price in GLOB per token, its paths resolved). */
export interface CatalogEntry {
  id: string;
  name: string;
  kind: ModelKind;
  displayName: string;
  parameters: string;
  description: string;
  contextLength: number;
  /** GLOB per token. */
  pricePerToken: number;
  /** The catalog's date of the model as Unix time in seconds (midnight UTC). */
  created: number;
  path: string;
  /** Where the platform reads the model's tokenizer (the model file itself unless the catalog names another). */
  tokenizerPath: string;
  /** The model's file, or its split parts in order. */
  files: CatalogFile[];
}

export interface CatalogModel extends CatalogEntry {
  /** Price of one token in milli-GLOB. */
  priceUnits: number;
}

/** The product's four default models and the project's own tiny model, used when MODEL_CATALOG is unset. */
export const BUILT_IN_CATALOG_PATH = join(__dirname, '..', '..', '..', 'models', 'catalog.example.json');
export const BUILT_IN_CATALOG: z.input<typeof file> = JSON.parse(readFileSync(BUILT_IN_CATALOG_PATH, 'utf8'));

const inDir = (dir: string, path: string) => (isAbsolute(path) ? path : join(dir, path));
/** The URL of each part of a split file, named like the parts (as Hugging Face names them). */
const partUrls = (url: string, count: number): string[] => {
  const u = new URL(url);
  const parts = splitParts(u.pathname);
  return parts.length === count ? parts.map((p) => Object.assign(new URL(u), { pathname: p }).toString()) : Array.from({ length: count }, () => url);
};

/** Reads a catalog file (or the built-in one), validated, its paths resolved against `modelsDir`. */
export function readCatalogFile({ catalogPath, modelsDir }: { catalogPath?: string; modelsDir: string }): CatalogEntry[] {
  const raw = catalogPath ? JSON.parse(readFileSync(catalogPath, 'utf8')) : BUILT_IN_CATALOG;
  const parsed = file.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `Invalid model catalog ${catalogPath ?? '(built-in)'}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data.models.map((m) => {
    const path = inDir(modelsDir, m.path);
    const parts = splitParts(path);
    const urls = m.source ? partUrls(m.source, parts.length) : null;
    return {
      id: m.id,
      name: m.name,
      kind: m.kind,
      displayName: m.display_name ?? m.name,
      parameters: m.parameters,
      description: m.description,
      contextLength: m.context_length,
      pricePerToken: m.price_per_token,
      created: Date.parse(`${m.created}T00:00:00Z`) / 1000,
      path,
      tokenizerPath: inDir(modelsDir, m.tokenizer ?? m.path),
      files: parts.map((p, i) => ({
        name: basename(p),
        path: p,
        url: urls?.[i] ?? null,
        sha256: m.sha256?.[i] ?? null,
        sizeBytes: m.size_bytes?.[i] ?? null,
      })),
    };
  });
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
