import { createOpenApiHttp } from 'openapi-msw';
import type { paths } from '@glob/contract';

/** MSW's `http`, typed by openapi-msw over the generated contract: paths, params, bodies and responses. */
export const http = createOpenApiHttp<paths>();
