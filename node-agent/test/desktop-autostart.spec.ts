import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  autostartPath,
  desktopCommand,
  desktopExecArg,
  disableAutostart,
  enableAutostart,
  isAutostartEnabled,
  windowsArg,
  windowsRunArgs,
} from '../src/desktop/autostart';

describe('start at login', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'glob-autostart-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const command = ['/opt/node/bin/node', '/home/ann/My Apps/glob-node.cjs', 'desktop', '--api', 'https://globnetwork.io'];

  it('linux: an XDG autostart entry whose Exec is the command, written and removed', async () => {
    const t = { platform: 'linux' as const, home, command };
    expect(await isAutostartEnabled(t)).toBe(false);
    expect(await enableAutostart(t)).toBe(true);
    const path = join(home, '.config', 'autostart', 'glob-network.desktop');
    expect(autostartPath(t)).toBe(path);
    const text = await readFile(path, 'utf8');
    expect(text).toContain('[Desktop Entry]');
    expect(text).toContain('Type=Application');
    expect(text).toContain('X-GNOME-Autostart-enabled=true');
    expect(text).toContain('Exec=/opt/node/bin/node "/home/ann/My Apps/glob-node.cjs" desktop --api https://globnetwork.io\n');
    // Once the program is gone (the package removed), the desktop skips the entry instead of failing at each login.
    expect(text).toContain('TryExec=/opt/node/bin/node\n');
    expect(await isAutostartEnabled(t)).toBe(true);
    await disableAutostart(t);
    expect(await isAutostartEnabled(t)).toBe(false);
    await disableAutostart(t);
  });

  it('darwin: a LaunchAgent that runs at load, ProgramArguments the command', async () => {
    const t = { platform: 'darwin' as const, home, command: [...command, '--name', 'a&b'] };
    await enableAutostart(t);
    const path = join(home, 'Library', 'LaunchAgents', 'network.glob.desktop.plist');
    const text = await readFile(path, 'utf8');
    expect(text).toContain('<key>Label</key>\n  <string>network.glob.desktop</string>');
    expect(text).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/);
    const args = [...text.matchAll(/^ {4}<string>(.*)<\/string>$/gm)].map((m) => m[1]);
    expect(args).toEqual([...command, '--name', 'a&amp;b']);
    await disableAutostart(t);
    await expect(stat(path)).rejects.toThrow();
  });

  it('win32: a script in the Startup folder under %APPDATA% that starts the command hidden', async () => {
    const t = { platform: 'win32' as const, home, command: ['C:\\Program Files\\nodejs\\node.exe', 'C:\\glob\\glob-node.cjs', 'desktop'] };
    await enableAutostart(t);
    const path = join(home, 'Microsoft', 'Windows', 'Start Menu', 'Programs', 'Startup', 'Glob Network.vbs');
    const text = await readFile(path, 'utf8');
    expect(text).toContain('CreateObject("WScript.Shell").Run """C:\\Program Files\\nodejs\\node.exe"" C:\\glob\\glob-node.cjs desktop", 0, False');
    expect(await isAutostartEnabled(t)).toBe(true);
    await disableAutostart(t);
    expect(await isAutostartEnabled(t)).toBe(false);
  });

  it('quotes arguments as each format reads them back', () => {
    expect(desktopExecArg('plain')).toBe('plain');
    expect(desktopExecArg('50%')).toBe('50%%');
    expect(desktopExecArg('a "b" $c')).toBe('"a \\"b\\" \\$c"');
    expect(windowsArg('C:\\a b\\')).toBe('"C:\\a b\\\\"');
    expect(windowsArg('say "hi"')).toBe('"say \\"hi\\""');
  });

  it('the command: node, its own flags, this script, desktop and the API', () => {
    const proc = {
      execPath: '/usr/bin/node',
      execArgv: ['--enable-source-maps'],
      argv: ['/usr/bin/node', '/srv/glob-node.cjs', 'desktop'],
    } as unknown as NodeJS.Process;
    expect(desktopCommand({ api: 'https://globnetwork.io' }, proc)).toEqual([
      '/usr/bin/node',
      '--enable-source-maps',
      '/srv/glob-node.cjs',
      'desktop',
      '--api',
      'https://globnetwork.io',
    ]);
    expect(desktopCommand({ api: null, home: '/h' }, proc)).toEqual([
      '/usr/bin/node',
      '--enable-source-maps',
      '/srv/glob-node.cjs',
      'desktop',
      '--home',
      '/h',
    ]);
  });

  it('the installed app: the login start runs its launcher, never a version inside its updates', () => {
    const proc = {
      execPath: '/home/ann/.glob-network/updates/versions/0.2.0/runtime/node',
      execArgv: [],
      argv: ['', '/x.cjs'],
    } as unknown as NodeJS.Process;
    expect(desktopCommand({ api: 'https://globnetwork.io' }, proc, ['/opt/glob-network/bin/glob-network'])).toEqual([
      '/opt/glob-network/bin/glob-network',
      'desktop',
      '--api',
      'https://globnetwork.io',
    ]);
  });

  it('the installed Windows app switches the Run value its installer writes, with the launcher as the command', () => {
    const command = ['wscript.exe', 'C:\\Users\\Ann Lee\\AppData\\Local\\Programs\\GlobNetwork\\GlobNetwork.vbs', 'desktop'];
    expect(windowsRunArgs(command)).toEqual([
      'add',
      'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run',
      '/v',
      'Glob Network',
      '/t',
      'REG_SZ',
      '/d',
      'wscript.exe "C:\\Users\\Ann Lee\\AppData\\Local\\Programs\\GlobNetwork\\GlobNetwork.vbs" desktop',
      '/f',
    ]);
    expect(windowsRunArgs(null)).toEqual(['delete', 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run', '/v', 'Glob Network', '/f']);
  });
});
