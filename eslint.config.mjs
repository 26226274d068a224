// ESLint (flat config) with typescript-eslint's recommended rules; `npm test` runs it and a
// finding fails the run. Formatting is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'coverage/', 'test/bench/results/', 'clients/typescript/src/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      // Flags `let x = null; try { x = parse() } catch {}`, a pattern this code uses on purpose.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Tests read untyped JSON bodies, and one test loads modules fresh with require().
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.cjs', '**/*.js'],
    ignores: ['api/console/public/**'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The web console: an ES module that runs in the browser.
    files: ['api/console/public/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'sessionStorage',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'AbortController',
          'TextDecoderStream',
          'console',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
);
