import { iconIco, iconPng } from '../src/desktop/tray-icon';
import { trayMenu } from '../src/desktop/tray';
import { panelStateFixture, panelUpdateFixture } from './desktop-fixtures';

/** What the menu shows (hidden items stay in it, since systray2 knows items by position). */
const titles = (m: ReturnType<typeof trayMenu>) => m.items.filter((i) => !i.hidden).map((i) => i.title);

describe('the tray menu', () => {
  it('sharing: the status line, Open, Pause sharing, Start at login (checked) and Quit', () => {
    const m = trayMenu(panelStateFixture(), true);
    expect(m.status).toBe('Sharing');
    expect(titles(m)).toEqual(['Sharing', 'Open Glob Network', 'Pause sharing', 'Start at login', 'Quit']);
    expect(m.items[0]).toMatchObject({ action: null, enabled: false });
    expect(m.items.find((i) => i.action === 'start-at-login')?.checked).toBe(true);
    expect(m.tooltip).toBe('Glob Network: Sharing');
  });

  it('paused by the sharing switch: Resume sharing; the start at login unchecked', () => {
    const m = trayMenu(panelStateFixture({ phase: 'paused', sharing: false, paused_reason: 'Sharing is off' }), false);
    expect(m.status).toBe('Paused');
    expect(m.items.find((i) => i.action === 'sharing')?.title).toBe('Resume sharing');
    expect(m.items.find((i) => i.action === 'start-at-login')?.checked).toBe(false);
    expect(m.tooltip).toBe('Glob Network: Paused (Sharing is off)');
  });

  it('paused while the switch is on (idle-only, the battery): still "Pause sharing"', () => {
    const m = trayMenu(panelStateFixture({ phase: 'paused', paused_reason: 'This computer is in use' }), true);
    expect(m.status).toBe('Paused');
    expect(m.items.find((i) => i.action === 'sharing')?.title).toBe('Pause sharing');
  });

  it('offline when the platform cannot be reached', () => {
    expect(trayMenu(panelStateFixture({ phase: 'offline' }), true).status).toBe('Offline');
  });

  it('a downloaded update: "Restart to update to 0.2.0" appears (same menu length), and the status says Update ready', () => {
    const plain = trayMenu(panelStateFixture(), true);
    const m = trayMenu(
      panelStateFixture({
        update: panelUpdateFixture({ ready: true, phase: 'ready', version: '0.2.0', message: 'Version 0.2.0 starts at the next restart' }),
      }),
      true,
    );
    expect(m.items).toHaveLength(plain.items.length);
    expect(titles(m)).toEqual(['Update ready', 'Open Glob Network', 'Pause sharing', 'Restart to update to 0.2.0', 'Start at login', 'Quit']);
    expect(m.items.find((i) => i.action === 'restart-update')).toMatchObject({ enabled: true, hidden: false });
    expect(m.tooltip).toBe('Glob Network: Update ready (Version 0.2.0 starts at the next restart)');
    // Downloading is not ready: nothing to restart for yet.
    const downloading = trayMenu(panelStateFixture({ update: panelUpdateFixture({ phase: 'downloading', version: '0.2.0', progress: 0.4 }) }), true);
    expect(downloading.status).toBe('Sharing');
    expect(downloading.items.find((i) => i.action === 'restart-update')).toMatchObject({ enabled: false, hidden: true });
  });

  it('an update waiting wins over every other status', () => {
    for (const phase of ['sharing', 'offline', 'paused'] as const) {
      const m = trayMenu(panelStateFixture({ phase, update: panelUpdateFixture({ ready: true, message: 'Update: npx glob-node@latest' }) }), true);
      expect(m.status).toBe('Update ready');
      expect(m.items[0]!.title).toBe('Update ready');
      expect(m.tooltip).toContain('npx glob-node@latest');
    }
  });

  it('unpaired, pairing, starting and stopping show as Paused, with what is going on in the tooltip', () => {
    expect(trayMenu(panelStateFixture({ phase: 'unpaired', node: null }), true)).toMatchObject({
      status: 'Paused',
      tooltip: 'Glob Network: Paused (not paired yet)',
    });
    expect(trayMenu(panelStateFixture({ phase: 'pairing' }), true).tooltip).toContain('waiting for the code');
    const stopping = trayMenu(panelStateFixture({ phase: 'stopping' }), true);
    expect(stopping.items.find((i) => i.action === 'sharing')?.enabled).toBe(false);
  });

  it('the icon: a PNG and an ICO, small', () => {
    const png = iconPng();
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    const ico = iconIco();
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect(ico.readUInt32LE(14) + 22).toBe(ico.length);
    expect(png.length + ico.length).toBeLessThan(8 * 1024);
  });
});
