import type { ApiModel } from '../../api/queries/inference';
import { LOCALE } from '../../components/format';
import { TEXT, waitingLine } from './texts';
import type { UiModel } from './types';

/** The default model. */
export const DEFAULT_MODEL_ID = 'llama-3.3-70b-instruct';

/** The four default models (with the default catalog's prices), used when the model list cannot be loaded. */
export const DEFAULT_MODELS: UiModel[] = [
  { id: 'llama-3.3-70b-instruct', name: 'Llama 3.3 70B Instruct', parameters: '70B', price_per_token: 0.25 },
  { id: 'llama-3-70b-instruct', name: 'Llama 3 70B Instruct', parameters: '70B', price_per_token: 0.25 },
  { id: 'llama-3.2-1b-instruct', name: 'Llama 3.2 1B Instruct', parameters: '1B', price_per_token: 0.125 },
  { id: 'llama-3-8b-instruct', name: 'Llama 3 8B Instruct', parameters: '8B', price_per_token: 0.125 },
].map((m) => ({ ...m, description: TEXT.defaultDescription, context_length: 8192, status: 'available' }));

/** A model of the API read as the product's client reads it, with its defaults (id or model_id, name or display_name, …). */
export function toUiModel(m: ApiModel): UiModel {
  const raw = m as Partial<ApiModel> & { model_id?: string };
  return {
    id: raw.id ?? raw.model_id ?? '',
    name: raw.name || raw.display_name || raw.id || raw.model_id || '',
    description: raw.description || TEXT.defaultDescription,
    parameters: raw.parameters ?? '',
    context_length: raw.context_length || 8192,
    status: raw.status || 'available',
    price_per_token: raw.price_per_token ?? 0,
    waiting: raw.waiting ?? 0,
  };
}

export const isAvailable = (m: UiModel) => m.status === 'available';

/** The default model when it can be used, else the first that can, else none. */
export function defaultModelId(models: UiModel[]): string | null {
  const preferred = models.find((m) => m.id === DEFAULT_MODEL_ID && isAvailable(m));
  return (preferred ?? models.find(isAvailable))?.id ?? null;
}

/** How busy an available model is ('3 waiting'), or nothing. */
export const busyness = (m: UiModel) => (isAvailable(m) ? waitingLine(m.waiting) : '');

/** The option text: name, parameters, description, context length, status and how busy it is. */
export function modelLabel(m: UiModel): string {
  const parts = [m.name, m.parameters, `${m.context_length.toLocaleString(LOCALE)} context`, m.status, busyness(m)];
  return `${parts.filter(Boolean).join(' · ')} — ${m.description}`;
}
