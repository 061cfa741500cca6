/** One jest run: unit, integration (real PostgreSQL + Redis) and contract tests. */
module.exports = {
  testEnvironment: 'node',
  // The shared engine's TypeScript source, as in development (its package's "glob-source" export condition).
  testEnvironmentOptions: { customExportConditions: ['glob-source', 'node', 'node-addons'] },
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  // openid-client, otplib's base32 and hash helpers and their own helpers ship as ES modules only: compile them to
  // CommonJS for jest (Node loads them with require() itself). Judged by the innermost node_modules of the path.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose|@scure/base|@noble/hashes)/)(?!.*/node_modules/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
};
