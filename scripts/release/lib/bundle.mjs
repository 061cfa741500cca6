// One target's bundle: the same tree on every platform (the release contract's layout), assembled in a staging folder
// from the cache (hard links) and the agent's build.
//   runtime/node[.exe], runtime/LICENSE
//   app/package.json, app/release.json, app/release-public-key.pem, app/dist/**, app/node_modules/**
//   bin/glob-network (linux), GlobNetwork.vbs (windows)
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appModules, llamaBinaries, runtimeFiles } from './cache.mjs';
import { linkFile, linkTree, normalizeModes } from './util.mjs';

const LINUX_LAUNCHER = `#!/bin/sh
# Glob Network: starts the app with this bundle's own Node.js, wherever the bundle is (/usr/bin/glob-network links here).
ROOT="$(dirname "$(dirname "$(readlink -f "$0")")")"
exec "$ROOT/runtime/node" "$ROOT/app/dist/launcher.cjs" "$@"
`;

// wscript runs this without a console window: window style 0 (hidden), not waiting for it. Paths are relative to the
// script's own folder, so the same file serves the MSI's install folder, the zip and the app's updates.
const WINDOWS_LAUNCHER = [
  "' Glob Network: starts the desktop app with this folder's own Node.js, without a console window.",
  'Option Explicit',
  'Dim fso, shell, dir, args, i',
  'Set fso = CreateObject("Scripting.FileSystemObject")',
  'Set shell = CreateObject("WScript.Shell")',
  'dir = fso.GetParentFolderName(WScript.ScriptFullName)',
  'args = ""',
  'For i = 0 To WScript.Arguments.Count - 1',
  '  args = args & " """ & WScript.Arguments(i) & """"',
  'Next',
  'shell.CurrentDirectory = dir',
  'shell.Run """" & dir & "\\runtime\\node.exe"" """ & dir & "\\app\\dist\\launcher.cjs"" desktop" & args, 0, False',
  '',
].join('\r\n');

/** Assembles `target`'s bundle at `root`; `agentDist` holds glob-node.cjs, launcher.cjs and panel/. */
export async function assembleBundle(target, root, { version, publicKeyPem, agentDist }) {
  mkdirSync(join(root, 'runtime'), { recursive: true });
  const runtime = await runtimeFiles(target.runtime);
  linkFile(runtime.binary, join(root, 'runtime', target.runtime.as));
  linkFile(runtime.license, join(root, 'runtime', 'LICENSE'));

  const app = join(root, 'app');
  mkdirSync(join(app, 'dist'), { recursive: true });
  writeJson(join(app, 'package.json'), { name: 'glob-network', version, private: true });
  writeJson(join(app, 'release.json'), { version, platform: target.platform, arch: target.arch, update_format: target.updateFormat });
  writeFileSync(join(app, 'release-public-key.pem'), publicKeyPem);
  cpSync(agentDist, join(app, 'dist'), { recursive: true });

  const modules = join(app, 'node_modules');
  linkTree(await appModules(), modules);
  for (const name of target.llamaBinaries) linkTree(await llamaBinaries(name), join(modules, '@node-llama-cpp', name));

  if (target.platform === 'linux') {
    mkdirSync(join(root, 'bin'), { recursive: true });
    writeFileSync(join(root, 'bin', 'glob-network'), LINUX_LAUNCHER);
    chmodSync(join(root, 'bin', 'glob-network'), 0o755);
  }
  if (target.platform === 'windows') writeFileSync(join(root, 'GlobNetwork.vbs'), WINDOWS_LAUNCHER);
  // Whatever this machine's umask: 0755 for folders and executables, 0644 for the rest, as every archive stores them.
  normalizeModes(root);
}

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
