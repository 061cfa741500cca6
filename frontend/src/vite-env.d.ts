/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_MOCKING?: string;
  readonly VITE_RELEASE_HOST?: string;
}

declare module 'virtual:glob-head' {
  /** SITE of src/content/pages.ts. */
  export const SITE: {
    name: string;
    url: string;
    supportEmail: string;
    discord: string;
    github: string;
    releasesHost: string;
    ogImage: string;
    ogImageWidth: number;
    ogImageHeight: number;
  };
}

declare module 'virtual:glob-head/*' {
  /** The default title, description and path of one page key (PAGES[key] of src/content/pages.ts). */
  const page: { title: string; description: string; path: string };
  export default page;
}

declare module 'virtual:glob-noscript/*' {
  /** The no-script markup of one page key (PAGES[key].noscript). */
  const html: string;
  export default html;
}
