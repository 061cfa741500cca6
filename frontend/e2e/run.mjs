#!/usr/bin/env node
// npm run test:e2e: builds the backend, the production web build, the mocked build and the desktop app's panel, then runs Playwright
// (both projects). E2E_SKIP_BUILD=1 skips the builds; extra arguments go to `playwright test`.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const frontend = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(frontend, '..');
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (process.env.E2E_SKIP_BUILD !== '1') {
  run('npm', ['run', '--silent', 'build', '-w', 'backend'], { cwd: root });
  run('npm', ['run', '--silent', 'build', '-w', 'frontend'], { cwd: root });
  run('npm', ['run', '--silent', 'build:mock', '-w', 'frontend'], { cwd: root });
  run('npm', ['run', '--silent', 'build:panel', '-w', 'glob-node'], { cwd: root });
}
run('npx', ['playwright', 'test', ...process.argv.slice(2)], { cwd: frontend });
