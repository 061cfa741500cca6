/** The desktop app with the real machine's parts: its settings, idle time, start at login, browser and panel files. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../agent';
import { openAppWindow } from '../browser';
import type { Log } from '../logging';
import { type AgentOptions, PACKAGE_DIR } from '../options';
import { DesktopApp } from './app';
import { desktopCommand, disableAutostart, enableAutostart, userTarget } from './autostart';
import { idleSource } from './idle';
import { SettingsStore } from './settings';

/** The built panel: dist/panel of this package, beside the bundle (dist/) or above the source (src/). */
export const PANEL_DIR = join(PACKAGE_DIR, 'dist', 'panel');

export function desktopApp(
  options: AgentOptions,
  log: Log,
  createAgent: (o: { apiUrl: () => string; waitForApi: (signal: AbortSignal) => Promise<string> }) => Agent,
): DesktopApp {
  const settings = new SettingsStore(options.dataDir);
  // The login start runs the same directories as this run; the defaults need no flags.
  const defaults = join(options.home, 'node') === options.dataDir && join(options.home, 'models') === options.modelsDir;
  const target = async () => {
    const api = options.api ?? (await settings.read()).settings.api;
    const command = desktopCommand(defaults ? { api, home: options.home } : { api, dataDir: options.dataDir, modelsDir: options.modelsDir });
    return userTarget(command, process.env, process.platform, homedir());
  };
  return new DesktopApp({
    log,
    dataDir: options.dataDir,
    api: options.api,
    createAgent,
    settings,
    idle: idleSource(options.idleSource),
    openPanel: openAppWindow,
    noBrowser: options.noBrowser,
    tray: !options.noTray,
    autostart: {
      enable: async () => enableAutostart(await target()),
      disable: async () => disableAutostart(await target()),
    },
    panelDir: PANEL_DIR,
    panelPort: options.panelPort,
  });
}
