import { randomBytes } from 'node:crypto';
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';

/**
 * Browser tests in Debian's Chromium over the production build, two ways:
 *  - mocked:     the build made with VITE_API_MOCKING=1 (dist-mock), served by `vite preview`; MSW answers the API;
 *  - full-stack: the platform as `make serve` runs it (e2e/support/stack.mjs: API serving frontend/dist, worker with the
 *                tiny model, own database and Redis prefix) plus an SMTP server and a local OAuth server for Google.
 * shared.spec.ts runs in both; mocked/ and full-stack/ hold what only makes sense on one side.
 * `npm run test:e2e` builds everything first (e2e/run.mjs).
 */
// Chosen once in the main process; workers inherit the environment, so every process agrees.
process.env.E2E_MOCK_PORT ??= String(20000 + Math.floor(Math.random() * 10000));
process.env.E2E_PORT ??= String(30000 + Math.floor(Math.random() * 10000));
process.env.E2E_CONTROL_PORT ??= String(40000 + Math.floor(Math.random() * 10000));
process.env.E2E_DB ??= `glob_e2e_${randomBytes(5).toString('hex')}`;

/** `--project x` / `--project=x` on the command line: a server no selected project needs is not started. */
function selectedProjects(argv = process.argv): Set<string> | null {
  const names = new Set<string>();
  argv.forEach((arg, i) => {
    if (arg === '--project' && argv[i + 1]) names.add(argv[i + 1]!);
    else if (arg.startsWith('--project=')) names.add(arg.slice('--project='.length));
  });
  return names.size ? names : null;
}
const selected = selectedProjects();
const needs = (project: string) => !selected || selected.has(project);
type WebServer = Exclude<NonNullable<PlaywrightTestConfig['webServer']>, unknown[]>;
const servers = (...list: Array<WebServer | false>): WebServer[] => list.filter((s): s is WebServer => s !== false);

const mockUrl = `http://127.0.0.1:${process.env.E2E_MOCK_PORT}`;
const stackUrl = `http://127.0.0.1:${process.env.E2E_PORT}`;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './e2e',
  fullyParallel: true,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 8_000 },
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../.data/e2e-report.json' }]] : [['list']],
  outputDir: '../.data/e2e-results',
  use: {
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS },
    viewport: { width: 1440, height: 900 },
    // No looping video or floating animation burning the 2 CI cores; the home test turns motion back on.
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    trace: 'off',
    serviceWorkers: 'allow',
  },
  projects: [
    { name: 'mocked', testMatch: ['e2e/shared.spec.ts', 'e2e/mocked/**/*.spec.ts'], use: { baseURL: mockUrl } },
    // The installable app's worker precaches the whole build on every new context: only its own test allows it.
    { name: 'full-stack', testMatch: ['e2e/shared.spec.ts', 'e2e/full-stack/**/*.spec.ts'], use: { baseURL: stackUrl, serviceWorkers: 'block' } },
  ],
  webServer: servers(
    needs('mocked') && {
      command: `npx vite preview --configLoader runner --outDir dist-mock --host 127.0.0.1 --port ${process.env.E2E_MOCK_PORT} --strictPort`,
      url: `${mockUrl}/`,
      env: { VITE_API_MOCKING: '1' },
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: 'ignore',
    },
    needs('full-stack') && {
      command: 'node e2e/support/stack.mjs',
      // Ready once the API answers and the worker serves the tiny model (the stack's control endpoint says so).
      url: `http://127.0.0.1:${process.env.E2E_CONTROL_PORT}/ready`,
      env: { E2E_DB: process.env.E2E_DB, E2E_PORT: process.env.E2E_PORT, E2E_CONTROL_PORT: process.env.E2E_CONTROL_PORT },
      timeout: 180_000,
      reuseExistingServer: false,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
      stdout: 'pipe',
    },
  ),
});
