/** Unit tests: jest + @swc/jest + Testing Library, MSW in node (jest-fixed-jsdom keeps Node's fetch). */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'jest-fixed-jsdom',
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/src/**/*.test.tsx'],
  // Some dependencies ship ES modules only: MSW's and openapi-msw's few, and the Markdown renderer's unified
  // ecosystem (react-markdown, remark, micromark, mdast/hast/unist utilities, vfile and their small helpers).
  transformIgnorePatterns: [
    '/node_modules/(?!(rettime|until-async|openapi-msw|@open-draft|react-markdown|remark-.*|micromark.*|mdast-.*|hast-.*|unist-.*|unified|bail|is-plain-obj|trough|vfile.*|devlop|decode-named-character-reference|character-entities.*|character-reference-invalid|property-information|space-separated-tokens|comma-separated-tokens|html-url-attributes|trim-lines|ccount|escape-string-regexp|markdown-table|longest-streak|zwitch|estree-util-.*|is-.*|parse-entities|stringify-entities)/)',
  ],
  transform: {
    '^.+\\.(t|j)sx?$|^.+\\.mjs$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic' } },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleNameMapper: {
    '\\.css$': '<rootDir>/src/test/style-stub.cjs',
    // `virtual:glob-head/<key>` (one page's title, description and path) is a virtual mock per key: src/test/setup.ts.
    '^virtual:glob-head$': '<rootDir>/src/test/virtual-glob-head.ts',
    '^virtual:glob-noscript/(.*)$': '<rootDir>/src/test/virtual-noscript.ts',
  },
  globals: { __RELEASE_HOST__: 'https://releases.globnetwork.io' },
  setupFilesAfterEnv: ['<rootDir>/src/test/setup.ts'],
  // Typing with user-event is slow on a busy 2-core machine; the default 5 s made form tests flaky there.
  testTimeout: 30_000,
  maxWorkers: 2,
  clearMocks: true,
  restoreMocks: true,
};
