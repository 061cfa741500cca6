/**
 * dist/launcher.cjs: what the installed app's shortcuts run (bin/glob-network, the .app, GlobNetwork.vbs), with the
 * bundle's own Node.js. Without a command it starts the desktop app; any of the agent's commands and flags pass on.
 */
import { join, resolve } from 'node:path';
import { parseOptions } from '../options';
import { readBundle } from './bundle';
import { installedCommand, runLauncher } from './launcher';

/** The installed bundle: this file is its app/dist/launcher.cjs. */
const ROOT = resolve(__dirname, '..', '..');

async function main(): Promise<number> {
  const given = process.argv.slice(2);
  const args = given[0] === 'run' || given[0] === 'desktop' ? given : ['desktop', ...given];
  const installed = readBundle(ROOT);
  if (!installed) {
    console.error(`Glob Network: ${ROOT} is not a whole installation (app/release.json, runtime/ or app/dist/ is missing); reinstall it.`);
    return 1;
  }
  let home: string;
  try {
    home = parseOptions(args).home;
  } catch {
    // The app itself prints what is wrong with the flags.
    home = parseOptions([args[0]!]).home;
  }
  return runLauncher({
    installed,
    updatesDir: join(home, 'updates'),
    args,
    command: installedCommand(installed),
    log: (line) => console.log(`[launcher] ${line}`),
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
