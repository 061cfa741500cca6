/** Build-time settings (Vite `define`; jest sets the same globals). */
declare const __RELEASE_HOST__: string;

/** The release-info host: its latest.json is the downloads page's first source. */
export const RELEASE_HOST: string = __RELEASE_HOST__.replace(/\/+$/, '');
