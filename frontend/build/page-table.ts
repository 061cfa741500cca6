import type { Plugin } from 'vite';
import { PAGES, SITE } from '../src/content';

/**
 * The content module's page table, split for the browser: `virtual:glob-head` carries SITE (a few fields, main
 * chunk); `virtual:glob-head/<key>` carries one page's title, description and path, and `virtual:glob-noscript/<key>`
 * its no-script markup: both land in that page's route chunk. Nothing else of src/content/pages.ts is shipped.
 */
export function pageTable(): Plugin {
  const HEAD = 'virtual:glob-head';
  const PAGE_HEAD = 'virtual:glob-head/';
  const NOSCRIPT = 'virtual:glob-noscript/';
  const page = (key: string, error: (message: string) => never) =>
    PAGES[key as keyof typeof PAGES] ?? error(`No page key "${key}" in src/content/pages.ts`);
  return {
    name: 'glob-page-table',
    resolveId(id) {
      if (id === HEAD || id.startsWith(PAGE_HEAD) || id.startsWith(NOSCRIPT)) return `\0${id}`;
      return null;
    },
    load(id) {
      if (id === `\0${HEAD}`) return `export const SITE = ${JSON.stringify(SITE)};\n`;
      if (id.startsWith(`\0${PAGE_HEAD}`)) {
        const { title, description, path } = page(id.slice(PAGE_HEAD.length + 1), (m) => this.error(m));
        return `export default ${JSON.stringify({ title, description, path })};\n`;
      }
      if (id.startsWith(`\0${NOSCRIPT}`)) {
        return `export default ${JSON.stringify(page(id.slice(NOSCRIPT.length + 1), (m) => this.error(m)).noscript.trim())};\n`;
      }
      return null;
    },
  };
}
