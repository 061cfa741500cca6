/**
 * "Only while this computer is idle": the OS's seconds since the last keyboard or mouse input. Linux: `xprintidle`
 * (X11) when installed, else GNOME Mutter's IdleMonitor over D-Bus (`gdbus`, Wayland too); macOS: `ioreg`'s
 * HIDIdleTime; Windows: GetLastInputInfo through PowerShell. Null when the OS does not say: idle-only sharing then
 * cannot be used. `file:PATH` reads the seconds from a file (headless machines, tests: a simulated idle signal).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Seconds since the last input now, or null where unknown. Never throws. */
export type IdleSource = () => Promise<number | null>;

/** Runs a program and answers its stdout; rejects when it is missing or fails. Injectable for tests. */
export type Exec = (command: string, args: string[]) => Promise<string>;

const defaultExec: Exec = (command, args) =>
  new Promise((resolve, reject) =>
    execFile(command, args, { timeout: 5_000, windowsHide: true }, (err, stdout) => (err ? reject(err) : resolve(String(stdout)))),
  );

const seconds = (n: number): number | null => (Number.isFinite(n) && n >= 0 ? Math.floor(n) : null);

/** xprintidle prints milliseconds. */
export const parseXprintidle = (out: string): number | null => (/^\s*\d+\s*$/.test(out) ? seconds(Number(out) / 1000) : null);

/** gdbus prints `(uint64 12345,)`, milliseconds. */
export function parseMutterIdle(out: string): number | null {
  const m = /uint64\s+(\d+)/.exec(out);
  return m ? seconds(Number(m[1]) / 1000) : null;
}

/** ioreg's IOHIDSystem entry holds `"HIDIdleTime" = <nanoseconds>`. */
export function parseIoregIdle(out: string): number | null {
  const m = /"HIDIdleTime"\s*=\s*(\d+)/.exec(out);
  return m ? seconds(Number(m[1]) / 1e9) : null;
}

/** A file holding the idle seconds (a number, surrounding whitespace allowed). */
export function parseIdleFile(text: string): number | null {
  const t = text.trim();
  return /^\d+(\.\d+)?$/.test(t) ? seconds(Number(t)) : null;
}

// GetLastInputInfo gives the tick count of the last input; the difference with now is the idle time, in ms.
const WINDOWS_SCRIPT = `Add-Type @'
using System; using System.Runtime.InteropServices;
public static class GlobIdle {
  [StructLayout(LayoutKind.Sequential)] struct LASTINPUTINFO { public uint cbSize; public uint dwTime; }
  [DllImport("user32.dll")] static extern bool GetLastInputInfo(ref LASTINPUTINFO plii);
  public static uint Ms() { var i = new LASTINPUTINFO(); i.cbSize = (uint)Marshal.SizeOf(i); GetLastInputInfo(ref i); return (uint)Environment.TickCount - i.dwTime; }
}
'@
[GlobIdle]::Ms()`;

const attempt = async (fn: () => Promise<number | null>): Promise<number | null> => {
  try {
    return await fn();
  } catch {
    return null;
  }
};

/** The idle source for `--idle-source` (`auto`, `none`, `file:PATH`) on `platform`. */
export function idleSource(spec: string, platform: NodeJS.Platform = process.platform, exec: Exec = defaultExec): IdleSource {
  if (spec === 'none') return () => Promise.resolve(null);
  if (spec.startsWith('file:')) {
    const path = spec.slice(5);
    return () => attempt(async () => parseIdleFile(await readFile(path, 'utf8')));
  }
  if (platform === 'darwin') return () => attempt(async () => parseIoregIdle(await exec('ioreg', ['-c', 'IOHIDSystem', '-d', '4'])));
  if (platform === 'win32')
    return () => attempt(async () => parseXprintidle(await exec('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', WINDOWS_SCRIPT])));
  if (platform !== 'linux') return () => Promise.resolve(null);
  return async () =>
    (await attempt(async () => parseXprintidle(await exec('xprintidle', [])))) ??
    attempt(async () =>
      parseMutterIdle(
        await exec('gdbus', [
          'call',
          '--session',
          '--dest',
          'org.gnome.Mutter.IdleMonitor',
          '--object-path',
          '/org/gnome/Mutter/IdleMonitor/Core',
          '--method',
          'org.gnome.Mutter.IdleMonitor.GetIdletime',
        ]),
      ),
    );
}

/**
 * Why claiming pauses under idle-only sharing: the computer was used less than `minutes` ago. Null (no pause) when
 * idle-only is off or the idle time is unknown (the panel says it cannot be used).
 */
export function idlePauseReason(idleOnly: { enabled: boolean; minutes: number }, idleSeconds: number | null): string | null {
  if (!idleOnly.enabled || idleSeconds === null || idleSeconds >= idleOnly.minutes * 60) return null;
  const m = idleOnly.minutes;
  return `This computer is in use: sharing resumes after ${m} idle minute${m === 1 ? '' : 's'}`;
}
