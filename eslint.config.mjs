// ESLint over backend, frontend, scripts and bench (`make lint`; `make test` fails on any finding).
// Formatting is Prettier's job, so no stylistic rules here.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    // imports neither. Package imports resolve to their TypeScript source (the "glob-source" condition) so these
    // zones see through them.
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
          ],
        },
      ],
    },
  },
  {
    files: ['frontend/src/**/*.{ts,tsx}', 'frontend/e2e/**/*.ts', 'frontend/build/**/*.{ts,js}', 'frontend/scripts/media/scene.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['frontend/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
);
