/**
 * The backend's jest projects, selected with `--selectProjects` (npm run test:unit / test:integration -w backend):
 *  - unit:        test/unit and src/**\/*.spec.ts — no database, no Redis, no global setup;
 *  - integration: test/integration — real PostgreSQL + Redis (a migrated template database per run, copied per file);
 *  - contract:    test/contract — the spec against the running API, on the same template database.
 * `npx jest` with no selection runs all three in one run (one global setup: jest runs a shared setup file once).
 */
const shared = {
  testEnvironment: 'node',
  // The shared engine's TypeScript source, as in development (its package's "glob-source" export condition).
  testEnvironmentOptions: { customExportConditions: ['glob-source', 'node', 'node-addons'] },
  rootDir: __dirname,
  // openid-client, otplib's base32 and hash helpers and their own helpers ship as ES modules only: compile them to
  // CommonJS for jest (Node loads them with require() itself). Judged by the innermost node_modules of the path.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose|@scure/base|@noble/hashes)/)(?!.*/node_modules/)'],
};
// The run's template database (created and migrated once) and the tiny model: only where a database is used.
const withDatabase = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test/unit', '<rootDir>/src'],
      testMatch: ['<rootDir>/test/unit/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...shared,
      ...withDatabase,
      displayName: 'integration',
      roots: ['<rootDir>/test/integration'],
      testMatch: ['<rootDir>/test/integration/**/*.spec.ts'],
    },
    { ...shared, ...withDatabase, displayName: 'contract', roots: ['<rootDir>/test/contract'], testMatch: ['<rootDir>/test/contract/**/*.spec.ts'] },
  ],
  testTimeout: 30_000,
  maxWorkers: 2,
};
