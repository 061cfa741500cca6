/**
 * Opens a web page in the user's browser, for pairing by device code: xdg-open on Linux (only with a graphical
 * session, DISPLAY or WAYLAND_DISPLAY), `open` on macOS, `cmd /c start` on Windows. Best effort: a machine without a
 * browser (a server, a container) only prints the address, and nothing here ever throws.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, win32 } from 'node:path';

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
export const openBrowser: OpenBrowser = (url) => start(browserCommand(url));

function start(cmd: { command: string; args: string[]; verbatim?: boolean } | null): void {
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
}

/** Chromium-family browsers that open a page as an app window (`--app=URL`: no tabs, no address bar). */
const APP_BROWSERS: Partial<Record<NodeJS.Platform, (env: NodeJS.ProcessEnv) => string[]>> = {
  linux: () => ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable', 'brave-browser'],
  darwin: () => ['Google Chrome', 'Chromium', 'Microsoft Edge', 'Brave Browser'].map((app) => `/Applications/${app}.app/Contents/MacOS/${app}`),
  win32: (env) =>
    [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env['ProgramFiles(x86)']]
      .filter((d): d is string => !!d)
      .flatMap((d) => [
        win32.join(d, 'Google', 'Chrome', 'Application', 'chrome.exe'),
        win32.join(d, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
      ]),
};

/**
 * The command that opens `url` as an app window of a Chromium-family browser found here, else the default browser's
 * command (browserCommand). `exists` is injectable for tests.
 */
export function appWindowCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): { command: string; args: string[]; verbatim?: boolean } | null {
  const fallback = browserCommand(url, platform, env);
  if (!fallback) return null;
  const candidates = APP_BROWSERS[platform]?.(env) ?? [];
  const dirs = platform === 'linux' ? (env.PATH ?? '').split(delimiter).filter(Boolean) : [''];
  for (const c of candidates) {
    const found = dirs.map((d) => (d ? join(d, c) : c)).find((p) => exists(p));
    if (found) return { command: found, args: [`--app=${new URL(url).href}`] };
  }
  return fallback;
}

/** Opens `url` in an app window where a Chromium-family browser is installed, else in the default browser. */
export const openAppWindow: OpenBrowser = (url) => start(appWindowCommand(url));
