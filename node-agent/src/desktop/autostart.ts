/**
 * Start at login, as each OS expects it of a per-user app: Linux an XDG autostart entry
 * (~/.config/autostart/glob-network.desktop), macOS a LaunchAgent (~/Library/LaunchAgents/network.glob.desktop.plist,
 * RunAtLoad), Windows a script in the user's Startup folder that starts the app without a console window. Pure of
 * the process: every function takes the platform, the home (the roaming AppData folder on Windows) and the command.
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';

export interface AutostartTarget {
  platform: NodeJS.Platform;
  /** The user's home directory; on Windows, %APPDATA%. */
  home: string;
  /** The program and its arguments. */
  command: string[];
}

export const LAUNCH_AGENT_LABEL = 'network.glob.desktop';

/** Where the entry lives; null on a platform without one. */
export function autostartPath(t: Pick<AutostartTarget, 'platform' | 'home'>): string | null {
  if (t.platform === 'darwin') return join(t.home, 'Library', 'LaunchAgents', `${LAUNCH_AGENT_LABEL}.plist`);
  if (t.platform === 'win32') return join(t.home, 'Microsoft', 'Windows', 'Start Menu', 'Programs', 'Startup', 'Glob Network.vbs');
  if (t.platform === 'linux' || t.platform === 'freebsd' || t.platform === 'openbsd')
    return join(t.home, '.config', 'autostart', 'glob-network.desktop');
  return null;
}

/** The Desktop Entry spec's Exec quoting: reserved characters inside double quotes, `"` `` ` `` `$` `\` escaped, `%` doubled. */
export function desktopExecArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%');
  if (escaped !== '' && !/[\s"'\\><~|&;$*?#()`]/.test(escaped)) return escaped;
  return `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`;
}

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One argument of a Windows command line, as CommandLineToArgvW reads it back. */
export function windowsArg(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/** The entry's text for the target's platform. */
export function autostartContent(t: AutostartTarget): string {
  if (t.platform === 'darwin') {
    const args = t.command.map((a) => `    <string>${xml(a)}</string>`).join('\n');
    return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCH_AGENT_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>ProcessType</key>
  <string>Interactive</string>
</dict>
</plist>
`;
  }
  if (t.platform === 'win32') {
    // WScript.Shell.Run with window style 0 starts the app hidden (a .cmd would leave a console window open); in a
    // VBScript string a quote is doubled.
    const line = t.command.map(windowsArg).join(' ').replace(/"/g, '""');
    return `' Starts Glob Network at login (written by the app; switch it off in its panel or tray menu).\r\nCreateObject("WScript.Shell").Run "${line}", 0, False\r\n`;
  }
  return `[Desktop Entry]
Type=Application
Name=Glob Network
Comment=Share this computer with Glob Network
Exec=${t.command.map(desktopExecArg).join(' ')}
${isAbsolute(t.command[0] ?? '') ? `TryExec=${t.command[0]}\n` : ''}Terminal=false
X-GNOME-Autostart-enabled=true
`;
}

/** Writes the entry (replacing an older one, so it starts the current command); false where the platform has none. */
export async function enableAutostart(t: AutostartTarget): Promise<boolean> {
  const path = autostartPath(t);
  if (!path) return false;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, autostartContent(t), { mode: 0o644 });
  return true;
}

export async function disableAutostart(t: Pick<AutostartTarget, 'platform' | 'home'>): Promise<void> {
  const path = autostartPath(t);
  if (path) await rm(path, { force: true });
}

export async function isAutostartEnabled(t: Pick<AutostartTarget, 'platform' | 'home'>): Promise<boolean> {
  const path = autostartPath(t);
  return (
    !!path &&
    (await stat(path).then(
      (s) => s.isFile(),
      () => false,
    ))
  );
}

/**
 * How this process starts the desktop app again: node (with its own flags, e.g. a TypeScript loader in development),
 * this script, `desktop`, and the API and directories it was given.
 */
export function desktopCommand(
  o: { api: string | null; home?: string; dataDir?: string; modelsDir?: string },
  proc: NodeJS.Process = process,
  /** An installed app's own launcher (bin/glob-network, the .app, GlobNetwork.vbs), which starts its newest version. */
  launcher?: string[],
): string[] {
  const script = proc.argv[1];
  return [
    ...(launcher ?? [proc.execPath, ...proc.execArgv, ...(script ? [script] : [])]),
    'desktop',
    ...(o.api ? ['--api', o.api] : []),
    ...(o.home ? ['--home', o.home] : []),
    ...(o.dataDir ? ['--data-dir', o.dataDir] : []),
    ...(o.modelsDir ? ['--models-dir', o.modelsDir] : []),
  ];
}

/**
 * The installed Windows app starts at login through the value its .msi writes (HKCU\…\Run, "Glob Network"); the app
 * switches that same value, so the installer's start at login and the panel's are one setting, never two launches.
 */
export const WINDOWS_RUN_KEY = 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run';
export const WINDOWS_RUN_VALUE = 'Glob Network';

/** reg.exe's arguments that set (with the command) or delete the Run value. */
export function windowsRunArgs(command: string[] | null): string[] {
  return command
    ? ['add', WINDOWS_RUN_KEY, '/v', WINDOWS_RUN_VALUE, '/t', 'REG_SZ', '/d', command.map(windowsArg).join(' '), '/f']
    : ['delete', WINDOWS_RUN_KEY, '/v', WINDOWS_RUN_VALUE, '/f'];
}

/** The target for this process's user: the home directory, or %APPDATA% on Windows. */
export function userTarget(
  command: string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = '',
): AutostartTarget {
  return { platform, home: platform === 'win32' ? (env.APPDATA ?? join(home, 'AppData', 'Roaming')) : home, command };
}
