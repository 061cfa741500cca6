/** The desktop app with the real machine's parts: its settings, idle time, start at login, browser and panel files. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../agent';
import { openAppWindow } from '../browser';
import type { Log } from '../logging';
import { launcherHandoff } from '../launcher/bundle';
import { type AgentOptions, PACKAGE_DIR } from '../options';
import { AGENT_VERSION } from '../version';
import { DesktopApp } from './app';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Autostart } from './app';
import { desktopCommand, disableAutostart, enableAutostart, userTarget, windowsRunArgs } from './autostart';
import { idleSource } from './idle';
import { SettingsStore } from './settings';
import { Updater } from './updater';

/** The built panel: dist/panel of this package, beside the bundle (dist/) or above the source (src/). */
export const PANEL_DIR = join(PACKAGE_DIR, 'dist', 'panel');

export function desktopApp(
  options: AgentOptions,
  log: Log,
  createAgent: (o: { apiUrl: () => string; waitForApi: (signal: AbortSignal) => Promise<string> }) => Agent,
): DesktopApp {
  const settings = new SettingsStore(options.dataDir);
  // Started by an installed app's launcher: updates come from the platform, and the login start runs the launcher.
  const handoff = launcherHandoff();
  let knownApi: string | null = options.api ?? null;
  // The login start runs the same directories as this run; the defaults need no flags.
  const defaults = join(options.home, 'node') === options.dataDir && join(options.home, 'models') === options.modelsDir;
  const target = async () => {
    const api = options.api ?? (await settings.read()).settings.api;
    knownApi = api;
    const dirs = defaults ? { api, home: options.home } : { api, dataDir: options.dataDir, modelsDir: options.modelsDir };
    const command = desktopCommand(dirs, process, handoff?.command);
    return userTarget(command, process.env, process.platform, homedir());
  };
  const app: DesktopApp = new DesktopApp({
    log,
    dataDir: options.dataDir,
    api: options.api,
    createAgent,
    settings,
    idle: idleSource(options.idleSource),
    openPanel: openAppWindow,
    noBrowser: options.noBrowser,
    tray: !options.noTray,
    autostart:
      handoff && process.platform === 'win32'
        ? windowsRunAutostart(async () => (await target()).command)
        : { enable: async () => enableAutostart(await target()), disable: async () => disableAutostart(await target()) },
    panelDir: PANEL_DIR,
    panelPort: options.panelPort,
    version: AGENT_VERSION,
    updater: Updater.fromHandoff(handoff, () => app.state().api ?? knownApi, log),
    startedFile: handoff?.started_file ?? null,
  });
  return app;
}

/** The installed Windows app's start at login: the Run value its installer writes, switched with reg.exe. */
function windowsRunAutostart(command: () => Promise<string[]>): Autostart {
  const reg = (args: string[]) => promisify(execFile)('reg.exe', args, { windowsHide: true });
  return {
    enable: async () => (await reg(windowsRunArgs(await command())), true),
    disable: async () => {
      // Deleting a value that is not there fails; it is off either way.
      await reg(windowsRunArgs(null)).catch(() => undefined);
    },
  };
}
