// ESLint over the TypeScript and JavaScript sources: the recommended rules of ESLint and typescript-eslint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node's globals, for the plain JavaScript scripts (TypeScript checks the names in .ts files itself). */
const node = Object.fromEntries(
  [
    'console',
    'process',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'fetch',
    'AbortController',
    'TextDecoder',
    'TextEncoder',
  ].map((g) => [g, 'readonly']),
);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', '.test-artifacts/', '.satlution-demo/', 'test/fixtures/', 'examples/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: node },
    rules: {
      // An underscore marks a name kept on purpose: a destructured field left out of a copy, an argument a signature needs.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  // The visual checks hand functions to the browser (page.evaluate): they run there, with its globals.
  {
    files: ['test/visual/*.mjs'],
    languageOptions: { globals: Object.fromEntries(['document', 'window', 'getComputedStyle', 'ShadowRoot'].map((g) => [g, 'readonly'])) },
  },
  // TypeScript resolves every name in .ts files (the browser's in media/src, Node's elsewhere); ESLint's own check would only repeat it without the types.
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
);
