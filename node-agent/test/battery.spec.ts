import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batteryPause, batteryPercent, defaultBatterySource, readSysfsBattery } from '../src/battery';

describe('battery (a fake /sys/class/power_supply)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'glob-power-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const supply = async (name: string, files: Record<string, string>) => {
    await mkdir(join(root, name));
    for (const [f, v] of Object.entries(files)) await writeFile(join(root, name, f), `${v}\n`);
  };

  it('no battery (a desktop: only mains, or no directory at all) → null', async () => {
    await supply('AC', { type: 'Mains', online: '1' });
    expect(await readSysfsBattery(root)).toBeNull();
    expect(await readSysfsBattery(join(root, 'missing'))).toBeNull();
  });

  it('discharging at 15 % → on battery, paused', async () => {
    await supply('AC', { type: 'Mains', online: '0' });
    await supply('BAT0', { type: 'Battery', status: 'Discharging', capacity: '15' });
    const b = await readSysfsBattery(root);
    expect(b).toEqual({ onBattery: true, percent: 15 });
    expect(batteryPause(b)).toBe(true);
    expect(batteryPercent(b)).toBe(15);
  });

  it('charging at 15 % → not on battery, not paused, reported as null', async () => {
    await supply('BAT0', { type: 'Battery', status: 'Charging', capacity: '15' });
    const b = await readSysfsBattery(root);
    expect(b).toEqual({ onBattery: false, percent: 15 });
    expect(batteryPause(b)).toBe(false);
    expect(batteryPercent(b)).toBeNull();
  });

  it('on battery at 20 % and more → runs', async () => {
    await supply('BAT0', { type: 'Battery', status: 'Discharging', capacity: '20' });
    expect(batteryPause(await readSysfsBattery(root))).toBe(false);
  });

  it('two batteries: the lowest charge counts; an unreadable capacity is unknown (never pauses)', async () => {
    await supply('BAT0', { type: 'Battery', status: 'Discharging', capacity: '80' });
    await supply('BAT1', { type: 'Battery', status: 'Discharging', capacity: '12' });
    expect(await readSysfsBattery(root)).toEqual({ onBattery: true, percent: 12 });
    await rm(root, { recursive: true });
    await mkdir(root);
    await supply('BAT0', { type: 'Battery', status: 'Discharging' });
    const b = await readSysfsBattery(root);
    expect(b).toEqual({ onBattery: true, percent: null });
    expect(batteryPause(b)).toBe(false);
  });

  it('outside Linux the battery is unknown', async () => {
    expect(await defaultBatterySource('darwin')()).toBeNull();
    expect(await defaultBatterySource('win32')()).toBeNull();
  });
});
