/** jest stand-in for the Vite virtual module of the same name (see vite.config.ts pageTable()). */
export { SITE } from '../content/pages';
