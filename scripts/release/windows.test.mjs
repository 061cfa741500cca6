// The Windows assets of the test release: the zip (what the app updates itself with), and the .msi read back with
// msiinfo: its files, the Start menu shortcut, the start at login and the per-user install.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MSI_UPGRADE_CODE } from './lib/config.mjs';
import { RUN_KEY, RUN_VALUE } from './lib/windows.mjs';
import { msiTable, output, peMachine, testRelease, zipEntries, zipRead } from './test-support.mjs';

const release = await testRelease();
const v = release.version;
const zip = release.file(release.manifest.assets.find((a) => a.platform === 'windows' && a.format === 'zip').name);
const msi = release.file(release.manifest.assets.find((a) => a.format === 'msi').name);
const zipped = await zipEntries(zip);

/** Every file the app loads at run time, relative to the bundle root. */
const WINDOWS_FILES = [
  'runtime/node.exe',
  'runtime/LICENSE',
  'GlobNetwork.vbs',
  'app/package.json',
  'app/release.json',
  'app/release-public-key.pem',
  'app/dist/glob-node.cjs',
  'app/dist/launcher.cjs',
  'app/dist/panel/index.html',
  'app/node_modules/node-llama-cpp/package.json',
  'app/node_modules/node-llama-cpp/dist/index.js',
  'app/node_modules/@node-llama-cpp/win-x64/package.json',
  'app/node_modules/@node-llama-cpp/win-x64/bins/win-x64/llama-addon.node',
  'app/node_modules/@node-llama-cpp/win-x64-vulkan/bins/win-x64-vulkan/llama-addon.node',
  'app/node_modules/ipull/package.json',
  'app/node_modules/systray2/index.js',
  'app/node_modules/systray2/traybin/tray_windows_release.exe',
];

test('the zip holds the bundle under GlobNetwork/: an x64 node.exe and every file the app loads', async () => {
  for (const name of zipped.keys()) assert.match(name, /^GlobNetwork\//);
  for (const f of WINDOWS_FILES) assert.ok(zipped.has(`GlobNetwork/${f}`), `GlobNetwork/${f} is missing`);
  for (const name of zipped.keys()) assert.doesNotMatch(name, /@node-llama-cpp\/[^/]*cuda/, 'no CUDA binaries');
  const read = await zipRead(zip, ['GlobNetwork/runtime/node.exe', 'GlobNetwork/app/release.json', 'GlobNetwork/app/package.json'], 4096);
  assert.equal(peMachine(read.get('GlobNetwork/runtime/node.exe')), 0x8664, 'node.exe is an x64 PE');
  assert.deepEqual(JSON.parse(read.get('GlobNetwork/app/release.json')), { version: v, platform: 'windows', arch: 'x64', update_format: 'zip' });
  assert.deepEqual(JSON.parse(read.get('GlobNetwork/app/package.json')), { name: 'glob-network', version: v, private: true });
});

test('GlobNetwork.vbs starts runtime\\node.exe app\\dist\\launcher.cjs desktop hidden, from its own folder', async () => {
  const vbs = (await zipRead(zip, ['GlobNetwork/GlobNetwork.vbs'])).get('GlobNetwork/GlobNetwork.vbs').toString();
  assert.match(vbs, /\r\n/, 'Windows line ends');
  assert.match(vbs, /GetParentFolderName\(WScript\.ScriptFullName\)/);
  assert.match(vbs, /CreateObject\("WScript\.Shell"\)/);
  assert.match(vbs, /dir & "\\runtime\\node\.exe""/);
  assert.match(vbs, /dir & "\\app\\dist\\launcher\.cjs"" desktop"/);
  assert.match(vbs, /\.Run .*, 0, False/, 'window style 0 (hidden), not waiting');
});

test('the msi installs every file of the zip, no more, under %LOCALAPPDATA%\\Programs\\GlobNetwork', () => {
  const tables = output('msiinfo', ['tables', msi]).split(/\s+/);
  for (const t of ['File', 'Component', 'Directory', 'Shortcut', 'Registry', 'Property', 'Upgrade']) assert.ok(tables.includes(t), `table ${t}`);
  const dirs = new Map(msiTable(msi, 'Directory').map(([id, parent, name]) => [id, { parent, name }]));
  const pathOf = (id) => {
    const parts = [];
    for (let d = id; d !== 'INSTALLDIR'; d = dirs.get(d).parent) parts.unshift(dirs.get(d).name);
    return parts.join('/');
  };
  assert.deepEqual(dirs.get('INSTALLDIR'), { parent: 'ProgramsFolder', name: 'GlobNetwork' });
  assert.deepEqual(dirs.get('ProgramsFolder'), { parent: 'LocalAppDataFolder', name: 'Programs' });
  const components = new Map(msiTable(msi, 'Component').map(([id, , dir]) => [id, dir]));
  const installed = msiTable(msi, 'File').map(([, component, name, size]) => {
    const dir = pathOf(components.get(component));
    return [`GlobNetwork/${dir ? `${dir}/` : ''}${name}`, Number(size)];
  });
  const files = [...zipped].filter(([, e]) => !e.dir).map(([name, e]) => [name, e.size]);
  assert.deepEqual(new Map(installed), new Map(files));
  assert.equal(installed.length, files.length);
});

test('the msi adds a Start menu shortcut running the .vbs with wscript, and starts it at login (HKCU Run)', () => {
  const shortcuts = msiTable(msi, 'Shortcut');
  assert.equal(shortcuts.length, 1);
  const [, dir, name, , target, args, , , , , , workDir] = shortcuts[0];
  assert.equal(dir, 'ProgramMenuFolder');
  assert.equal(name, 'Glob Network');
  assert.equal(target, '[SystemFolder]wscript.exe');
  assert.equal(args, '"[INSTALLDIR]GlobNetwork.vbs"');
  assert.equal(workDir, 'INSTALLDIR');
  const run = msiTable(msi, 'Registry').find(([, , key, valueName]) => key === RUN_KEY && valueName === RUN_VALUE);
  assert.ok(run, 'the Run value');
  assert.equal(run[1], '1', 'under HKEY_CURRENT_USER');
  assert.equal(run[4], '"[SystemFolder]wscript.exe" "[INSTALLDIR]GlobNetwork.vbs"');
});

test('the msi installs per user, without elevation, and replaces any earlier version', () => {
  const props = new Map(msiTable(msi, 'Property').map(([k, value]) => [k, value]));
  assert.equal(props.has('ALLUSERS'), false, 'ALLUSERS unset: a per-user install');
  assert.equal(props.get('MSIINSTALLPERUSER'), '1');
  assert.equal(props.get('ProductVersion'), v.replace(/-.*$/, ''));
  assert.equal(props.get('UpgradeCode'), `{${MSI_UPGRADE_CODE}}`);
  assert.match(props.get('ProductCode'), /^\{[0-9A-F-]{36}\}$/);
  const source = Number(/^Source: (\d+)/m.exec(output('msiinfo', ['suminfo', msi]))[1]);
  assert.equal(source & 8, 8, 'summary information: no elevated privileges needed');
  const upgrades = msiTable(msi, 'Upgrade');
  assert.ok(
    upgrades.some(
      ([code, min, max, , attrs, , prop]) =>
        code === `{${MSI_UPGRADE_CODE}}` && !min && max && !(Number(attrs) & 2) && prop === 'WIX_UPGRADE_DETECTED',
    ),
    'older versions are found and removed',
  );
  const sequence = msiTable(msi, 'InstallExecuteSequence').map(([action]) => action);
  assert.ok(sequence.includes('RemoveExistingProducts'));
});
