/**
 * The installed app's launcher, with real processes: bundles laid out as a release installs them, whose app is a
 * small script that starts, crashes, hangs or asks for a restart as each test says.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Bundle, failedVersions, readBundle } from '../src/launcher/bundle';
import { candidates, installedCommand, runLauncher } from '../src/launcher/launcher';
import { type Behaviour, setBehaviour, writeBundle } from './bundle-fixtures';

describe('the launcher', () => {
  let dir: string;
  let updates: string;
  let record: string;
  let lines: string[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'glob-launcher-'));
    updates = join(dir, 'home', 'updates');
    record = join(dir, 'record');
    lines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const installed = (version: string, b: Omit<Behaviour, 'record'> = { start: true }): Bundle =>
    readBundle(writeBundle(join(dir, 'opt', 'glob-network'), { version }, { behaviour: { record, ...b } }))!;
  const update = (version: string, b: Omit<Behaviour, 'record'> = { start: true }): string =>
    writeBundle(join(updates, 'versions', version), { version }, { behaviour: { record, ...b } });
  const starts = (): string[] =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ')[0]!)
      : [];
  const launch = (bundle: Bundle, startTimeoutMs = 15_000) =>
    runLauncher({
      installed: bundle,
      updatesDir: updates,
      args: ['desktop', '--no-tray'],
      command: installedCommand(bundle),
      log: (l) => lines.push(l),
      startTimeoutMs,
    });

  it('starts the newest good version with the app’s arguments, and hands it the installed launcher and its started file', async () => {
    const opt = installed('0.1.0');
    update('0.2.0');
    update('0.1.5');
    expect(await launch(opt)).toBe(0);
    expect(readFileSync(record, 'utf8')).toBe('0.2.0 desktop --no-tray\n');
    expect(installedCommand(opt)).toEqual([join(opt.root, 'bin', 'glob-network')]);
    // Started once, the previous one (0.1.5) is kept to fall back to.
    expect(existsSync(join(updates, 'versions', '0.1.5'))).toBe(true);
  });

  it('a version that exits before it starts is recorded as failed, and the previous one starts instead', async () => {
    const opt = installed('0.1.0');
    update('0.2.0', { exit: 3 });
    expect(await launch(opt)).toBe(0);
    expect(starts()).toEqual(['0.2.0', '0.1.0']);
    expect(failedVersions(updates)).toEqual(['0.2.0']);
    expect(lines.join('\n')).toMatch(/Version 0\.2\.0 exited with 3 before it started: going back to 0\.1\.0/);
    // Never tried again.
    expect(candidates(opt, updates).map((b) => b.version)).toEqual(['0.1.0']);
  });

  it('a version that hangs before it starts is stopped, recorded as failed, and the previous one starts', async () => {
    const opt = installed('0.1.0');
    update('0.2.0', { hangMs: 60_000 });
    expect(await launch(opt, 1_500)).toBe(0);
    expect(starts()).toEqual(['0.2.0', '0.1.0']);
    expect(failedVersions(updates)).toEqual(['0.2.0']);
    expect(lines.join('\n')).toMatch(/did not start within 2 s/);
  });

  it('restart for an update: the app exits 75 and the launcher starts the version it installed', async () => {
    const next = writeBundle(join(dir, 'download'), { version: '0.2.0' }, { behaviour: { record, start: true } });
    const opt = installed('0.1.0', { start: true, exit: 75, install: { from: next, version: '0.2.0' } });
    expect(await launch(opt)).toBe(0);
    expect(starts()).toEqual(['0.1.0', '0.2.0']);
    expect(lines.join('\n')).toMatch(/Restarting to apply the update/);
  });

  it('after an update starts, only it and the newest older update stay; the installed bundle is never touched', async () => {
    const opt = installed('0.1.0');
    for (const v of ['0.2.0', '0.3.0', '0.4.0']) update(v);
    expect(await launch(opt)).toBe(0);
    expect(starts()).toEqual(['0.4.0']);
    expect(['0.2.0', '0.3.0', '0.4.0'].filter((v) => existsSync(join(updates, 'versions', v)))).toEqual(['0.3.0', '0.4.0']);
    expect(readBundle(opt.root)?.version).toBe('0.1.0');
  });

  it('a newer package installed over an older update wins; a broken or foreign update is never started', async () => {
    const opt = installed('0.5.0');
    update('0.2.0');
    // Not whole (no runtime), another architecture, and a folder whose name is not its version.
    rmSync(join(update('0.9.0'), 'runtime'), { recursive: true });
    writeBundle(join(updates, 'versions', '0.8.0'), { version: '0.8.0', arch: 'arm64' }, { behaviour: { record, start: true } });
    cpSync(update('0.7.0'), join(updates, 'versions', '0.7.1'), { recursive: true });
    rmSync(join(updates, 'versions', '0.7.0'), { recursive: true });
    expect(candidates(opt, updates).map((b) => b.version)).toEqual(['0.5.0', '0.2.0']);
    expect(await launch(opt)).toBe(0);
    expect(starts()).toEqual(['0.5.0']);
  });

  it('the installed version failing is its own exit code, not recorded (there is nothing to fall back to)', async () => {
    const opt = installed('0.1.0', { exit: 4 });
    expect(await launch(opt)).toBe(4);
    expect(failedVersions(updates)).toEqual([]);
  });

  it('a clean exit before starting (another instance is running, --help) ends the launcher without blame', async () => {
    const opt = installed('0.1.0');
    const v2 = update('0.2.0', { exit: 0 });
    expect(await launch(opt)).toBe(0);
    expect(starts()).toEqual(['0.2.0']);
    expect(failedVersions(updates)).toEqual([]);
    setBehaviour(v2, { record, start: true, exit: 1 });
    // Started, then ended with an error: the app's own outcome, passed on, and still not blamed on the update.
    expect(await launch(opt)).toBe(1);
    expect(failedVersions(updates)).toEqual([]);
  });

  it('the start at login runs each platform’s own launcher of the installed app', () => {
    const at = (root: string, platform: Bundle['platform']): Bundle => ({ root, version: '0.1.0', platform, arch: 'x64', update_format: 'zip' });
    expect(installedCommand(at('C:\\Users\\ann\\AppData\\Local\\Programs\\GlobNetwork', 'windows'))).toEqual([
      'wscript.exe',
      join('C:\\Users\\ann\\AppData\\Local\\Programs\\GlobNetwork', 'GlobNetwork.vbs'),
    ]);
    expect(installedCommand(at('/Applications/GlobNetwork.app/Contents/Resources', 'macos'))).toEqual([
      '/Applications/GlobNetwork.app/Contents/MacOS/GlobNetwork',
    ]);
  });
});
