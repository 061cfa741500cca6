// The agent as one file for `npm pack`: its code, the shared engine, the contract's constants and the small
// libraries it uses are bundled; node-llama-cpp (native binaries per platform) and ipull (its downloader, which
// node-llama-cpp depends on anyway) stay dependencies that npm installs, as does systray2 (the desktop app's tray: it
// runs a helper binary per platform from its own package directory).
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: 'src/main.ts',
  platform: 'node',
  external: ['node-llama-cpp', 'ipull', 'systray2'],
  resolve: { conditionNames: ['glob-source', 'node', 'require', 'import', 'default'] },
  output: {
    file: 'dist/glob-node.cjs',
    format: 'cjs',
    banner: '#!/usr/bin/env node',
  },
});
