/** The flag a desktop-initiated sign-in leaves in local storage. */
export const OPEN_IN_DESKTOP_KEY = 'open_in_desktop';

/** Whether the sign-in under way was started for the desktop app (the flag is 'true'). */
export function openInDesktop(): boolean {
  try {
    return localStorage.getItem(OPEN_IN_DESKTOP_KEY) === 'true';
  } catch {
    return false;
  }
}

/** Sets the flag ('true') or removes it; storage that refuses (private mode) leaves it as it was. */
export function setOpenInDesktop(on: boolean): void {
  try {
    if (on) localStorage.setItem(OPEN_IN_DESKTOP_KEY, 'true');
    else localStorage.removeItem(OPEN_IN_DESKTOP_KEY);
  } catch {
    // Nothing to keep: the sign-in then ends as a sign-in in the browser does.
  }
}
