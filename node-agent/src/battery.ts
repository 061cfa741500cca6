/**
 * The battery, where the OS reports one. On Linux: /sys/class/power_supply/<name>/{type,status,capacity};
 * elsewhere unknown (null). A node pauses itself while it runs on battery below 20 %.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface BatteryState {
  /** True while the machine runs on its battery (no charger). */
  onBattery: boolean;
  /** The charge, 0-100; null when the OS does not say. */
  percent: number | null;
}

/** Reads the battery now; null without one (or where it cannot be read). Injectable for tests. */
export type BatterySource = () => Promise<BatteryState | null>;

/** Below this charge on battery the node takes no jobs. */
export const BATTERY_PAUSE_PERCENT = 20;

const readTrimmed = (path: string): Promise<string | null> =>
  readFile(path, 'utf8').then(
    (s) => s.trim(),
    () => null,
  );

/** Every supply of type Battery under `root`: on battery when any discharges; the charge is the lowest one. */
export async function readSysfsBattery(root = '/sys/class/power_supply'): Promise<BatteryState | null> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return null;
  }
  let found = false;
  let onBattery = false;
  let percent: number | null = null;
  for (const name of names.sort()) {
    const dir = join(root, name);
    if ((await readTrimmed(join(dir, 'type'))) !== 'Battery') continue;
    found = true;
    if ((await readTrimmed(join(dir, 'status'))) === 'Discharging') onBattery = true;
    const raw = await readTrimmed(join(dir, 'capacity'));
    const capacity = Number(raw);
    if (raw !== null && raw !== '' && Number.isFinite(capacity)) {
      const p = Math.min(100, Math.max(0, Math.round(capacity)));
      percent = percent === null ? p : Math.min(percent, p);
    }
  }
  return found ? { onBattery, percent } : null;
}

export function defaultBatterySource(platform: NodeJS.Platform = process.platform): BatterySource {
  return platform === 'linux' ? () => readSysfsBattery() : () => Promise.resolve(null);
}

/** The heartbeat's battery_percent: the charge while on battery, else null. */
export const batteryPercent = (b: BatteryState | null): number | null => (b?.onBattery ? b.percent : null);

/** True while on battery below 20 % (charging, or at 20 % and more, resumes). */
export const batteryPause = (b: BatteryState | null): boolean => !!b?.onBattery && b.percent !== null && b.percent < BATTERY_PAUSE_PERCENT;
