import { useEffect } from 'react';

/** The tab title of a web-app screen ('Sign In — Glob Network'); the app's pages are not indexed. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} — Glob Network`;
  }, [title]);
}
