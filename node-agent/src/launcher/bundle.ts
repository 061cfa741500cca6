/**
 * An installed copy of the desktop app (a bundle): the same tree on every platform, wherever it lives
 * (/opt/glob-network from the .deb, the .app's Contents/Resources, the Windows install folder, or an update the app
 * downloaded into <home>/updates/versions/<version>/):
 *
 *   runtime/node (node.exe)     its own Node.js
 *   app/release.json            { version, platform, arch, update_format }
 *   app/release-public-key.pem  the key a release manifest must be signed with
 *   app/dist/glob-node.cjs      the app; app/dist/launcher.cjs the launcher; app/node_modules its libraries
 *
 * The launcher and the app's updater share these definitions, and the handoff between them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { valid } from 'semver';

export type ReleasePlatform = 'linux' | 'windows' | 'macos';
export type ReleaseArch = 'x64' | 'arm64';
export type UpdateFormat = 'tar.gz' | 'zip';

/** app/release.json: which release a bundle is, and the asset format it updates itself with. */
export interface ReleaseInfo {
  version: string;
  platform: ReleasePlatform;
  arch: ReleaseArch;
  update_format: UpdateFormat;
}

export interface Bundle extends ReleaseInfo {
  root: string;
}

/** The exit code by which the app asks its launcher to start it again (with the newest good version). */
export const RESTART_FOR_UPDATE = 75;

/** The environment variable by which the launcher hands the app what it needs to update itself. */
export const LAUNCHER_ENV = 'GLOB_NETWORK_LAUNCHER';

export interface LauncherHandoff {
  /** How to start the installed app (the start at login uses it, never a versioned path that an update removes). */
  command: string[];
  /** The app writes this file once it runs (its panel serves): the launcher's sign that this version starts. */
  started_file: string;
  /** <home>/updates: versions/<version>/ holds each downloaded update, launcher.json the versions that failed. */
  updates_dir: string;
  /** The bundle this process runs from. */
  bundle: string;
}

export function runtimePath(root: string, platform: ReleasePlatform): string {
  return join(root, 'runtime', platform === 'windows' ? 'node.exe' : 'node');
}

export const appScript = (root: string): string => join(root, 'app', 'dist', 'glob-node.cjs');
export const publicKeyPath = (root: string): string => join(root, 'app', 'release-public-key.pem');

const PLATFORMS: readonly string[] = ['linux', 'windows', 'macos'];
const ARCHES: readonly string[] = ['x64', 'arm64'];
const FORMATS: readonly string[] = ['tar.gz', 'zip'];

/** A bundle as its release.json describes it, when that file is whole and the runtime and the app are present. */
export function readBundle(root: string): Bundle | null {
  let info: Partial<ReleaseInfo>;
  try {
    info = JSON.parse(readFileSync(join(root, 'app', 'release.json'), 'utf8')) as Partial<ReleaseInfo>;
  } catch {
    return null;
  }
  if (
    typeof info.version !== 'string' ||
    !valid(info.version) ||
    !PLATFORMS.includes(info.platform as string) ||
    !ARCHES.includes(info.arch as string) ||
    !FORMATS.includes(info.update_format as string)
  )
    return null;
  const bundle = { root, ...(info as ReleaseInfo) };
  return existsSync(runtimePath(root, bundle.platform)) && existsSync(appScript(root)) ? bundle : null;
}

/** The handoff in this process's environment, when a launcher started it. */
export function launcherHandoff(env: NodeJS.ProcessEnv = process.env): LauncherHandoff | null {
  const raw = env[LAUNCHER_ENV];
  if (!raw) return null;
  try {
    const h = JSON.parse(raw) as Partial<LauncherHandoff>;
    if (!Array.isArray(h.command) || typeof h.started_file !== 'string' || typeof h.updates_dir !== 'string' || typeof h.bundle !== 'string')
      return null;
    return h as LauncherHandoff;
  } catch {
    return null;
  }
}

export const versionsDir = (updatesDir: string): string => join(updatesDir, 'versions');
export const launcherStatePath = (updatesDir: string): string => join(updatesDir, 'launcher.json');

/** The versions that failed to start (the launcher's record): never started again, never downloaded again. */
export function failedVersions(updatesDir: string): string[] {
  try {
    const state = JSON.parse(readFileSync(launcherStatePath(updatesDir), 'utf8')) as { failed?: unknown };
    return Array.isArray(state.failed) ? state.failed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
