// The agent as one file for `npm pack`: its code, the shared engine, the contract's constants and the small
// libraries it uses are bundled; node-llama-cpp (native binaries per platform) and ipull (its downloader, which
// node-llama-cpp depends on anyway) stay dependencies that npm installs, as does systray2 (the desktop app's tray: it
// runs a helper binary per platform from its own package directory).
// Second, the installed desktop app's launcher (dist/launcher.cjs): it picks the newest good version of the app and
// starts it, alone in its file so that it never shares a chunk with the app it starts.
// GLOB_AGENT_VERSION stamps a release's version into both, and GLOB_AGENT_OUT_DIR writes them elsewhere than dist/
// (scripts/release builds each release this way, never touching the dist/ that tests and `npm pack` use).
import { readFileSync } from 'node:fs';
import { defineConfig } from 'rolldown';

const { version: packageVersion } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const version = process.env.GLOB_AGENT_VERSION || packageVersion;
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`GLOB_AGENT_VERSION must be a version such as 0.2.0, got ${version}`);

const out = process.env.GLOB_AGENT_OUT_DIR || 'dist';

const common = {
  platform: 'node',
  external: ['node-llama-cpp', 'ipull', 'systray2'],
  resolve: { conditionNames: ['glob-source', 'node', 'require', 'import', 'default'] },
  transform: { define: { __GLOB_AGENT_VERSION__: JSON.stringify(version) } },
};

export default defineConfig([
  { ...common, input: 'src/main.ts', output: { file: `${out}/glob-node.cjs`, format: 'cjs', banner: '#!/usr/bin/env node' } },
  { ...common, input: 'src/launcher/main.ts', output: { file: `${out}/launcher.cjs`, format: 'cjs' } },
]);
