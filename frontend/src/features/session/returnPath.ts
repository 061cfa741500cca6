/** The sign-in screen's `?redirect=`: where a visitor goes back to once signed in. */
export interface SignInSearch {
  redirect?: string;
}

const BASE = 'http://app.invalid';

/**
 * A return address the sign-in screen follows: a path of the web app (its query kept), never another site and never a
 * sign-in screen again; anything else is none.
 */
export function returnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/app/')) return undefined;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== BASE || !url.pathname.startsWith('/app/') || url.pathname.startsWith('/app/auth') || url.pathname.startsWith('/app/oauth/'))
    return undefined;
  return `${url.pathname}${url.search}`;
}

/** The sign-in screen's search, validated: a return address only when it is one (see returnPath). */
export function validateSignInSearch(search: Record<string, unknown>): SignInSearch {
  const redirect = returnPath(search.redirect);
  return redirect ? { redirect } : {};
}
