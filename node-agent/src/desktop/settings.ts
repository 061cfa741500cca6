/**
 * The desktop app's settings, kept beside the node's credential (`<data-dir>/desktop.json`, mode 0600): the owner's
 * sharing switch, idle-only sharing and the start at login. A missing file is a first run: the defaults, with the
 * start at login on.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DesktopSettings {
  sharing: boolean;
  idle_only: { enabled: boolean; minutes: number };
  start_at_login: boolean;
  /** The API the panel was given before pairing, so a restart before the credential exists still knows it. */
  api: string | null;
}

export const DEFAULT_SETTINGS: DesktopSettings = {
  sharing: true,
  idle_only: { enabled: false, minutes: 10 },
  start_at_login: true,
  api: null,
};

/** Idle minutes the panel may ask for: 1 minute to a day. */
export const IDLE_MINUTES = { min: 1, max: 1440 } as const;

export class SettingsStore {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'desktop.json');
  }

  /** The stored settings (unknown or damaged fields take their defaults) and whether this is the first run. */
  async read(): Promise<{ settings: DesktopSettings; firstRun: boolean }> {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(this.path, 'utf8'));
    } catch (err) {
      const firstRun = (err as NodeJS.ErrnoException).code === 'ENOENT';
      return { settings: structuredClone(DEFAULT_SETTINGS), firstRun };
    }
    return { settings: parseSettings(raw), firstRun: false };
  }

  /** Written to a temporary file first, so a crash never leaves half a file. */
  async write(s: DesktopSettings): Promise<void> {
    await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, this.path);
  }
}

export function parseSettings(raw: unknown): DesktopSettings {
  const d = DEFAULT_SETTINGS;
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const idle = (o.idle_only && typeof o.idle_only === 'object' ? o.idle_only : {}) as Record<string, unknown>;
  const minutes = idle.minutes;
  return {
    sharing: typeof o.sharing === 'boolean' ? o.sharing : d.sharing,
    idle_only: {
      enabled: typeof idle.enabled === 'boolean' ? idle.enabled : d.idle_only.enabled,
      minutes:
        typeof minutes === 'number' && Number.isInteger(minutes) && minutes >= IDLE_MINUTES.min && minutes <= IDLE_MINUTES.max
          ? minutes
          : d.idle_only.minutes,
    },
    start_at_login: typeof o.start_at_login === 'boolean' ? o.start_at_login : d.start_at_login,
    api: typeof o.api === 'string' && /^https?:\/\//.test(o.api) ? o.api : null,
  };
}
