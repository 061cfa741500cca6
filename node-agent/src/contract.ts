/** The spec's schemas as the agent sees them: the API's requests and answers, typed by the generated contract. */
import type { components } from '@glob/contract';

export type Schemas = components['schemas'];
