import createClient from 'openapi-fetch';
import type { paths } from '@glob/contract';

/** The typed API client over the generated contract (same origin: Vite proxies /api in development). */
export const api = createClient<paths>({ baseUrl: '' });
