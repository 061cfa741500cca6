import type { MouseEvent } from 'react';
import { useRouter } from '@tanstack/react-router';
import { isRouterClick } from './AppLink';

/**
 * Trusted static markup from src/content (never user input). Root-relative links inside it navigate
 * through the router instead of reloading the page.
 */
/** Wide code blocks and tables scroll sideways: they take focus so keyboards can scroll them too. */
export function focusableScrollers(html: string): string {
  return html.replace(/<(pre|table)(?=[\s>])(?![^>]*tabindex)/g, '<$1 tabindex="0"');
}

export function Html({ html, className, id }: { html: string; className?: string; id?: string }) {
  const router = useRouter();
  const onClick = (event: MouseEvent<HTMLElement>) => {
    const anchor = (event.target as Element).closest?.('a') ?? null;
    const href = anchor?.getAttribute('href');
    if (isRouterClick(event, anchor, href)) {
      event.preventDefault();
      void router.navigate({ href });
    }
  };
  return <div id={id} className={className} onClick={onClick} dangerouslySetInnerHTML={{ __html: focusableScrollers(html) }} />;
}
