// ESLint over backend, frontend, scripts and bench (`make lint`; `make test` fails on any finding).
// Formatting is Prettier's job, so no stylistic rules here.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The server's rooms below the reply flow: the catalog, trust, money, accounts and the rest it stands on. */
const LOWER_ROOMS = ['accounts', 'admin', 'api-keys', 'catalog', 'chat', 'notifications', 'rewards', 'security', 'site', 'system', 'trust', 'wallet'];

export default defineConfig(
  globalIgnores(['**/node_modules/', '**/dist/', '**/dist-mock/', 'generated/', '.data/', 'frontend/src/routeTree.gen.ts', 'frontend/public/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'import-x/first': 'error',
      'import-x/no-duplicates': 'error',
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
      'import-x/no-mutable-exports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    // NestJS injects constructor parameters by their runtime class: importing one as a type would break injection.
    files: ['backend/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    // Three packages, kept apart: the node agent (node-agent/, a stranger's machine runs it) and the server
    // (backend/) share code only through the engine (engine/, @glob/engine) and the generated contract; the engine
    // imports neither; none of them imports the test support (testing/, @glob/testing). Package imports resolve to
    // their TypeScript source (the "glob-source" condition) so these zones see through them.
    files: ['backend/**/*.ts', 'node-agent/**/*.ts', 'engine/**/*.ts'],
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.js', '.json'], conditionNames: ['glob-source', 'types', 'node', 'require', 'default'] }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './node-agent/src',
              from: './backend',
              message: 'The node agent never imports the server: share the code through @glob/engine.',
            },
            {
              target: './engine/src',
              from: ['./backend', './node-agent'],
              message: '@glob/engine imports nothing of the server or the agent.',
            },
            {
              target: './backend/src',
              from: './node-agent',
              message: 'Server code never imports the node agent: share it through @glob/engine.',
            },
            {
              target: ['./backend/src', './node-agent/src', './engine/src'],
              from: './testing',
              message: '@glob/testing is for tests, the e2e stack and the benches: shipped code never imports it.',
            },
            // The server's rooms (modules/) stand on its infrastructure, never the reverse (auth/'s guards, above
            // both, read the rooms' credentials); the reply flow
            // (inference/) stands on the rooms below it, and its transports (nodes/ for provider nodes, openai/ for
            // the OpenAI-compatible API) stand on it.
            {
              target: [
                './backend/src/common',
                './backend/src/config',
                './backend/src/database',
                './backend/src/jobs',
                './backend/src/redis',
                './backend/src/contract',
                './backend/src/observability',
                './backend/src/mail',
              ],
              from: './backend/src/modules',
              message: 'Infrastructure imports no room of modules/: move what both need down into it.',
            },
            {
              target: LOWER_ROOMS.map((room) => `./backend/src/modules/${room}`),
              from: ['./backend/src/modules/inference', './backend/src/modules/nodes', './backend/src/modules/openai'],
              message: 'A lower room never reaches up into the reply flow (inference/) or its transports (nodes/, openai/).',
            },
            {
              target: './backend/src/modules/inference',
              from: ['./backend/src/modules/nodes', './backend/src/modules/openai'],
              message: 'The reply flow knows nothing of its transports: nodes/ and openai/ call it, never the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'frontend/src/**/*.{ts,tsx}',
      'frontend/e2e/**/*.ts',
      'frontend/build/**/*.{ts,js}',
      'frontend/scripts/media/scene.js',
      'ui/src/**/*.{ts,tsx}',
      'node-agent/panel/src/**/*.{ts,tsx}',
    ],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['frontend/src/**/*.{ts,tsx}', 'ui/src/**/*.{ts,tsx}', 'node-agent/panel/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    // No ring in the import graph of any package: a ring means files that cannot change, load or be tested apart.
    // (import-x leaves out type-only imports, which vanish at run time.)
    files: [
      'backend/src/**/*.ts',
      'node-agent/src/**/*.ts',
      'node-agent/panel/src/**/*.{ts,tsx}',
      'engine/src/**/*.ts',
      'frontend/src/**/*.{ts,tsx}',
      'ui/src/**/*.{ts,tsx}',
    ],
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'], conditionNames: ['glob-source', 'types', 'node', 'require', 'default'] }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
);
