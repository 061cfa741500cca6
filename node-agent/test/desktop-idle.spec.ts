import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idlePauseReason, idleSource, parseIoregIdle, parseMutterIdle, parseXprintidle } from '../src/desktop/idle';

describe('idle time', () => {
  it('file:PATH reads the seconds another program writes; a missing or odd file is unknown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'glob-idle-'));
    try {
      const path = join(dir, 'idle');
      const source = idleSource(`file:${path}`);
      expect(await source()).toBeNull();
      await writeFile(path, '125\n');
      expect(await source()).toBe(125);
      await writeFile(path, '7.9');
      expect(await source()).toBe(7);
      await writeFile(path, 'busy');
      expect(await source()).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads each OS’s own answer', async () => {
    expect(parseXprintidle('61234\n')).toBe(61);
    expect(parseMutterIdle('(uint64 90500,)\n')).toBe(90);
    expect(parseIoregIdle('    | |   "HIDIdleTime" = 3000000000\n')).toBe(3);
    expect(parseXprintidle('')).toBeNull();
    // Linux: xprintidle first, GNOME's IdleMonitor when it is missing; nothing at all: unknown.
    const calls: string[] = [];
    const linux = idleSource('auto', 'linux', async (cmd) => {
      calls.push(cmd);
      if (cmd === 'xprintidle') throw Object.assign(new Error('not found'), { code: 'ENOENT' });
      return '(uint64 120000,)';
    });
    expect(await linux()).toBe(120);
    expect(calls).toEqual(['xprintidle', 'gdbus']);
    expect(await idleSource('auto', 'linux', () => Promise.reject(new Error('no')))()).toBeNull();
    expect(await idleSource('auto', 'darwin', async () => '"HIDIdleTime" = 5000000000')()).toBe(5);
    expect(await idleSource('auto', 'win32', async () => '42000\r\n')()).toBe(42);
    expect(await idleSource('none', 'linux', async () => '1')()).toBeNull();
  });

  it('idle-only pauses while the computer was used less than N minutes ago, and never on an unknown idle time', () => {
    const on = { enabled: true, minutes: 5 };
    expect(idlePauseReason(on, 10)).toBe('This computer is in use: sharing resumes after 5 idle minutes');
    expect(idlePauseReason(on, 299)).not.toBeNull();
    expect(idlePauseReason(on, 300)).toBeNull();
    expect(idlePauseReason(on, null)).toBeNull();
    expect(idlePauseReason({ enabled: false, minutes: 5 }, 0)).toBeNull();
    expect(idlePauseReason({ enabled: true, minutes: 1 }, 0)).toBe('This computer is in use: sharing resumes after 1 idle minute');
  });
});
