/**
 * The tray icon and its menu: what the app is doing in one word, and the few things a provider does without opening
 * the panel. trayMenu() is the menu for a state (pure, unit-tested); Tray wires it to systray2's helper process,
 * updating the menu as the state changes. A tray that cannot start (no display, missing GTK or AppIndicator
 * libraries, --no-tray) is reported in one log line and the app goes on without it.
 */
import { chmod, copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Log } from '../logging';
import type { PanelState } from './panel-api';
import { trayIcon } from './tray-icon';

export type TrayStatus = 'Sharing' | 'Paused' | 'Offline' | 'Update ready';
export type TrayAction = 'open' | 'sharing' | 'restart-update' | 'start-at-login' | 'quit';

export interface TrayItem {
  /** The status line has no action (shown greyed out). */
  action: TrayAction | null;
  title: string;
  enabled: boolean;
  checked?: boolean;
  /** Kept in the menu but not shown (systray2 knows items by position, so the menu keeps its length). */
  hidden?: boolean;
}

export interface TrayMenu {
  title: string;
  tooltip: string;
  status: TrayStatus;
  items: TrayItem[];
}

/** The status word: an update waiting wins; then sharing or offline as the phase says; anything else is a pause. */
export function trayStatus(state: PanelState): TrayStatus {
  if (state.update.ready) return 'Update ready';
  if (state.phase === 'sharing') return 'Sharing';
  if (state.phase === 'offline') return 'Offline';
  return 'Paused';
}

const DETAIL: Partial<Record<PanelState['phase'], string>> = {
  unpaired: 'not paired yet',
  pairing: 'waiting for the code to be confirmed',
  starting: 'starting',
  stopping: 'stopping',
};

export function trayMenu(state: PanelState, startAtLogin: boolean): TrayMenu {
  const status = trayStatus(state);
  const detail = state.update.ready ? state.update.message : (DETAIL[state.phase] ?? state.paused_reason);
  return {
    title: 'Glob Network',
    tooltip: `Glob Network: ${status}${detail ? ` (${detail})` : ''}`,
    status,
    items: [
      { action: null, title: status, enabled: false },
      { action: 'open', title: 'Open Glob Network', enabled: true },
      { action: 'sharing', title: state.sharing ? 'Pause sharing' : 'Resume sharing', enabled: state.phase !== 'stopping' },
      {
        action: 'restart-update',
        title: `Restart to update${state.update.version ? ` to ${state.update.version}` : ''}`,
        enabled: state.update.phase === 'ready',
        hidden: state.update.phase !== 'ready',
      },
      { action: 'start-at-login', title: 'Start at login', enabled: true, checked: startAtLogin },
      { action: 'quit', title: 'Quit', enabled: true },
    ],
  };
}

/** systray2's item and class, as much of them as is used here (the package is loaded only when a tray starts). */
interface SysItem {
  title: string;
  tooltip: string;
  checked?: boolean;
  enabled?: boolean;
  hidden?: boolean;
}
interface SysTrayLike {
  ready(): Promise<void>;
  onClick(listener: (e: { item: SysItem; seq_id: number }) => void): Promise<unknown>;
  sendAction(action: { type: 'update-menu'; menu: { icon: string; title: string; tooltip: string; items: SysItem[] } }): Promise<unknown>;
  kill(exitNode?: boolean): Promise<void>;
  readonly process: { exitCode: number | null; once(event: 'exit', listener: (code: number | null) => void): unknown } | null;
}
type SysTrayClass = new (conf: {
  menu: { icon: string; title: string; tooltip: string; items: SysItem[] };
  copyDir?: boolean | string;
}) => SysTrayLike;

/**
 * systray2 runs `traybin/tray_<os>_release` from its package, whose executable bit npm does not always keep (and
 * systray2's own chmod is a no-op). A copy where systray2 looks for one (`<copyDir>/<version>/<binary>`), made
 * executable, is used instead; undefined (the package's own) on Windows or when no copy can be made.
 */
async function trayBinaryDir(cacheDir: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined;
  const bin = `tray_${process.platform}_release`;
  try {
    const pkgDir = dirname(require.resolve('systray2/package.json'));
    const version = (JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
    const target = join(cacheDir, version, bin);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(pkgDir, 'traybin', bin), target);
    await chmod(target, 0o755);
    return cacheDir;
  } catch {
    return undefined;
  }
}

/** How long the helper has to say it is ready before the app goes on without a tray. */
const READY_TIMEOUT_MS = 10_000;

export class Tray {
  private last: string;

  private constructor(
    private readonly tray: SysTrayLike,
    private readonly icon: string,
    private readonly items: SysItem[],
    menu: TrayMenu,
  ) {
    this.last = JSON.stringify(menu);
  }

  /** The tray, or null when it cannot start here (logged once). */
  static async start(o: {
    menu: TrayMenu;
    onAction: (a: TrayAction) => void;
    log: Log;
    /** Where the helper binary is copied to (made executable). */
    cacheDir: string;
    load?: () => Promise<SysTrayClass>;
  }): Promise<Tray | null> {
    if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
      o.log('No tray icon: no graphical session (the panel works without it)');
      return null;
    }
    try {
      const SysTray = await (o.load ?? loadSysTray)();
      const icon = trayIcon();
      const items: SysItem[] = o.menu.items.map((i) => ({
        title: i.title,
        tooltip: i.title,
        enabled: i.enabled,
        checked: i.checked ?? false,
        hidden: i.hidden ?? false,
      }));
      const copyDir = await trayBinaryDir(o.cacheDir);
      const sys = new SysTray({ menu: { icon, title: '', tooltip: o.menu.tooltip, items }, copyDir: copyDir ?? false });
      // The helper may die before it is ready (missing libraries) without systray2 rejecting anything.
      let timer: NodeJS.Timeout | undefined;
      let poll: NodeJS.Timeout | undefined;
      await Promise.race([
        sys.ready(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the tray helper did not start')), READY_TIMEOUT_MS);
          poll = setInterval(() => {
            const child = sys.process;
            if (!child) return;
            clearInterval(poll);
            const exited = (code: number | null) => reject(new Error(`the tray helper exited (${code})`));
            if (child.exitCode !== null) exited(child.exitCode);
            else child.once('exit', exited);
          }, 50);
        }),
      ]).finally(() => {
        clearTimeout(timer);
        clearInterval(poll);
      });
      const tray = new Tray(sys, icon, items, o.menu);
      await sys.onClick((e) => {
        const i = items.indexOf(e.item);
        const action = o.menu.items[i >= 0 ? i : e.seq_id]?.action;
        if (action) o.onAction(action);
      });
      return tray;
    } catch (err) {
      o.log(`No tray icon: ${err instanceof Error ? err.message.split('\n')[0] : String(err)} (the panel works without it)`);
      return null;
    }
  }

  /** Shows `menu`, when it differs from what is shown. */
  update(menu: TrayMenu): void {
    const text = JSON.stringify(menu);
    if (text === this.last) return;
    this.last = text;
    // The same item objects, changed in place: systray2 knows its items by identity.
    menu.items.forEach((m, i) => {
      const item = this.items[i]!;
      item.title = m.title;
      item.tooltip = m.title;
      item.enabled = m.enabled;
      item.checked = m.checked ?? false;
      item.hidden = m.hidden ?? false;
    });
    void this.tray
      .sendAction({ type: 'update-menu', menu: { icon: this.icon, title: '', tooltip: menu.tooltip, items: this.items } })
      .catch(() => undefined);
  }

  /** The helper told to exit; not waited for more than a second. */
  async close(): Promise<void> {
    await Promise.race([this.tray.kill(false).catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }
}

async function loadSysTray(): Promise<SysTrayClass> {
  const mod = (await import('systray2')) as unknown as { default: SysTrayClass | { default: SysTrayClass } };
  return typeof mod.default === 'function' ? mod.default : mod.default.default;
}
