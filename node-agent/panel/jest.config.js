/** The control panel's tests: jsdom, Testing Library, and a stubbed fetch standing in for the app's local API. */
module.exports = {
  displayName: 'panel',
  rootDir: __dirname,
  testEnvironment: 'jsdom',
  testEnvironmentOptions: { customExportConditions: ['glob-source', 'browser'] },
  testMatch: ['<rootDir>/src/**/*.test.tsx'],
  transform: {
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' },
        module: { type: 'commonjs' },
      },
    ],
  },
  // Stylesheets (the panel's and @glob/ui's) mean nothing to jsdom.
  moduleNameMapper: { '\\.css$': '<rootDir>/src/test/style-stub.js' },
  setupFilesAfterEnv: ['<rootDir>/src/test/setup.ts'],
  testTimeout: 30_000,
};
