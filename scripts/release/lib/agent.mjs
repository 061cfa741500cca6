// The app's own code: node-agent's rolldown build (dist/glob-node.cjs and dist/launcher.cjs, with the release's version
// compiled in from GLOB_AGENT_VERSION) and the control panel.
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_DIR } from './config.mjs';
import { log, run } from './util.mjs';

/**
 * Builds the agent for `version` straight into `dest` (a staging folder; rolldown.config.mjs's GLOB_AGENT_OUT_DIR), so a
 * release never touches node-agent/dist, which tests, `npm pack` and Playwright's build use at the same time under
 * `make test`; the panel likewise. With `skip`, node-agent/dist is copied as it is.
 */
export async function buildAgent(version, dest, { skip = false } = {}) {
  const dist = join(AGENT_DIR, 'dist');
  mkdirSync(dest, { recursive: true });
  if (skip) {
    log(`agent: using node-agent/dist as it is (--skip-agent-build)`);
    if (!existsSync(join(dist, 'panel', 'index.html')))
      throw new Error('node-agent/dist/panel is missing: build it (npm run build:panel -w glob-node)');
    cpSync(join(dist, 'panel'), join(dest, 'panel'), { recursive: true });
    copyFileSync(join(dist, 'glob-node.cjs'), join(dest, 'glob-node.cjs'));
    if (existsSync(join(dist, 'launcher.cjs'))) copyFileSync(join(dist, 'launcher.cjs'), join(dest, 'launcher.cjs'));
  } else {
    log(`agent: rolldown with GLOB_AGENT_VERSION=${version}, then the panel`);
    await run('npx', ['rolldown', '-c', 'rolldown.config.mjs'], {
      cwd: AGENT_DIR,
      env: { ...process.env, GLOB_AGENT_VERSION: version, GLOB_AGENT_OUT_DIR: dest },
    });
    await run('npx', ['vite', 'build', '--config', 'panel/vite.config.mts', '--outDir', join(dest, 'panel'), '--emptyOutDir', '--logLevel', 'warn'], {
      cwd: AGENT_DIR,
    });
  }
  if (!existsSync(join(dest, 'glob-node.cjs'))) throw new Error('glob-node.cjs is missing: the agent did not build');
  if (!existsSync(join(dest, 'launcher.cjs'))) throw new Error('launcher.cjs is missing: the agent did not build');
  if (!existsSync(join(dest, 'panel', 'index.html'))) throw new Error('the panel did not build');
  await checkBuilt(version, dest);
}

/** What was built must be whole JavaScript and carry this release's version (--skip-agent-build may find another's). */
async function checkBuilt(version, dest) {
  for (const file of ['glob-node.cjs', 'launcher.cjs']) await run(process.execPath, ['--check', join(dest, file)]);
  if (!readFileSync(join(dest, 'glob-node.cjs'), 'utf8').includes(`AGENT_VERSION = ${JSON.stringify(version)}`))
    throw new Error(`glob-node.cjs is not stamped ${version} (--skip-agent-build found another version's build)`);
}
