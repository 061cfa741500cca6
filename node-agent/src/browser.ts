/**
 * Opens a web page in the user's browser, for pairing by device code: xdg-open on Linux (only with a graphical
 * session, DISPLAY or WAYLAND_DISPLAY), `open` on macOS, `cmd /c start` on Windows. Best effort: a machine without a
 * browser (a server, a container) only prints the address, and nothing here ever throws.
 */
import { spawn } from 'node:child_process';

export type OpenBrowser = (url: string) => void;

/** The command that opens `url` on `platform`, or null where no browser can be opened (or the URL is not http(s)). */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[]; verbatim?: boolean } | null {
  let href: string;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    // The normalised form: quotes and spaces are percent-encoded, so the address is one argument everywhere.
    href = u.href;
  } catch {
    return null;
  }
  if (platform === 'darwin') return { command: 'open', args: [href] };
  // `start`'s first quoted argument is a window title; inside quotes cmd takes & | < > literally.
  if (platform === 'win32') return { command: 'cmd', args: ['/d', '/s', '/c', `start "" "${href}"`], verbatim: true };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return { command: 'xdg-open', args: [href] };
}

/** Starts the platform's opener, detached and silent; a missing opener or a failed start is ignored. */
export const openBrowser: OpenBrowser = (url) => {
  const cmd = browserCommand(url);
  if (!cmd) return;
  try {
    const child = spawn(cmd.command, cmd.args, {
      stdio: 'ignore',
      detached: true,
      windowsHide: true,
      windowsVerbatimArguments: cmd.verbatim ?? false,
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this machine: the address is printed anyway.
  }
};
