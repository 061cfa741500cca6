/**
 * The node agent's unit tests (the agent against the real API and llama.cpp: backend/test/integration), and its
 * desktop control panel's (panel/jest.config.js).
 */
module.exports = {
  projects: [
    {
      displayName: 'agent',
      testEnvironment: 'node',
      // The shared engine's TypeScript source, as in development (its package's "glob-source" export condition).
      testEnvironmentOptions: { customExportConditions: ['glob-source', 'node', 'node-addons'] },
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
      testTimeout: 30_000,
    },
    '<rootDir>/panel/jest.config.js',
  ],
};
