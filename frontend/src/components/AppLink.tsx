import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { useRouter } from '@tanstack/react-router';

/** Whether a click on a root-relative link should be handled by the router rather than the browser. */
export function isRouterClick(event: MouseEvent, anchor: HTMLAnchorElement | null, href: string | null | undefined): href is string {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if (!anchor || !href || anchor.target === '_blank' || anchor.hasAttribute('download')) return false;
  return href.startsWith('/') && !href.startsWith('//') && !href.startsWith('/api/');
}

/** A link to an internal URL held as data (content modules): a real <a>, navigated by the router. */
export function AppLink({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const router = useRouter();
  return (
    <a
      href={href}
      {...rest}
      onClick={(event) => {
        onClick?.(event);
        if (isRouterClick(event, event.currentTarget, href)) {
          event.preventDefault();
          void router.navigate({ href });
        }
      }}
    />
  );
}
