import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import constants from '@glob/contract/constants.json';
import { z } from 'zod';

const params = constants.inferenceParamDefaults;
/** The sampling defaults are the spec's (InferenceParams); a catalog model's context length defaults to 8192. */
export const GENERATION_DEFAULTS = {
  temperature: params.temperature,
  maxTokens: params.max_tokens,
  topP: params.top_p,
  contextLength: 8192,
} as const;
export const TINY_MODEL_FILE = 'glob-tiny-chat.gguf';

const entry = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  name: z.string().min(1).max(100),
  display_name: z.string().min(1).max(100).optional(),
  parameters: z.string().max(20),
  description: z.string().max(500).default('AI Language Model'),
  context_length: z.number().int().positive().default(GENERATION_DEFAULTS.contextLength),
  price_per_token: z.number().min(0).max(1000),
  path: z.string().min(1),
  /** A GGUF with the model's vocabulary (the model's own file by default): the platform counts tokens with it. */
  tokenizer: z.string().min(1).optional(),
});
const file = z.object({ models: z.array(entry).min(1) });

/** A catalog model as the file describes it (its price in GLOB per token, its paths resolved). */
export interface CatalogEntry {
  id: string;
  name: string;
  displayName: string;
  parameters: string;
  description: string;
  contextLength: number;
  /** GLOB per token. */
  pricePerToken: number;
  path: string;
  /** Where the platform reads the model's tokenizer (the model file itself unless the catalog names another). */
  tokenizerPath: string;
}

/** The product's four default models and the project's own tiny model, used when MODEL_CATALOG is unset. */
export const BUILT_IN_CATALOG: z.input<typeof file> = JSON.parse(readFileSync(join(__dirname, '..', '..', 'models', 'catalog.example.json'), 'utf8'));

const inDir = (dir: string, path: string) => (isAbsolute(path) ? path : join(dir, path));

/**
 * Reads a catalog file (or the built-in one), validated, its paths resolved against `modelsDir`: what the server and
 * the node agent both need of it.
 */
export function readCatalogFile({ catalogPath, modelsDir }: { catalogPath?: string; modelsDir: string }): CatalogEntry[] {
  const raw = catalogPath ? JSON.parse(readFileSync(catalogPath, 'utf8')) : BUILT_IN_CATALOG;
  const parsed = file.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `Invalid model catalog ${catalogPath ?? '(built-in)'}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data.models.map((m) => ({
    id: m.id,
    name: m.name,
    displayName: m.display_name ?? m.name,
    parameters: m.parameters,
    description: m.description,
    contextLength: m.context_length,
    pricePerToken: m.price_per_token,
    path: inDir(modelsDir, m.path),
    tokenizerPath: inDir(modelsDir, m.tokenizer ?? m.path),
  }));
}
