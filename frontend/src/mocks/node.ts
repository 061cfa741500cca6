import { setupServer } from 'msw/node';
import { handlers } from './handlers';

/** The same handlers, for jest. */
export const server = setupServer(...handlers);
