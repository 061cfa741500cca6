/** jest stand-in for the Vite virtual module of the same name (see vite.config.ts pageTable()). */
import { PAGES, SITE } from '../content/pages';

export { SITE };
export const PAGE_META = Object.fromEntries(
  Object.values(PAGES).map((p) => [p.key, { title: p.title, description: p.description, path: p.path }]),
);
