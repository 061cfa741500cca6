import { setOpenInDesktop } from '../auth/desktop';

/**
 * The pair page's address and the code a visitor brings to it. A machine's app (RFC 8628's device flow) opens
 * /app/pair?code=…; a visitor who is not signed in signs in first, and this module keeps the code meanwhile. Kept apart
 * from the page: the signed-in guard and the sign-in screens read it without loading the page.
 */
export const PAIR_PATH = '/app/pair';

/** `?code=` as the page takes it: the code the machine shows, trimmed and upper-cased; anything else is no code. */
export function pairCodeParam(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  return code || undefined;
}

/** The code kept for the sign-in under way, in this tab's sessionStorage (it survives a social sign-in's round trip). */
export const PAIR_CODE_KEY = 'glob_pair_code';

/** The code this tab came with before signing in, if any. */
export function rememberedPairCode(): string | undefined {
  try {
    return pairCodeParam(sessionStorage.getItem(PAIR_CODE_KEY));
  } catch {
    return undefined;
  }
}

/**
 * A visitor who is not signed in opened the pair page with a code: the code is kept, and the sign-in is marked as one
 * for a machine (the open_in_desktop flag), so that a social sign-in stays on its success screen, which leads back here.
 */
export function keepPairCodeForSignIn(code: string | undefined): void {
  if (!code) return;
  try {
    sessionStorage.setItem(PAIR_CODE_KEY, code);
  } catch {
    // Storage refused (private mode): the sign-in screen's return address still leads back.
  }
  setOpenInDesktop(true);
}

/** The pair page was reached signed in: the kept code and the flag it set have done their work. */
export function forgetPairCode(): void {
  if (rememberedPairCode() === undefined) return;
  try {
    sessionStorage.removeItem(PAIR_CODE_KEY);
  } catch {
    // Nothing was kept.
  }
  setOpenInDesktop(false);
}
