import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', 'node_modules/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  {
    // The web page's script runs in the browser.
    files: ['ui/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['document', 'window', 'location', 'fetch', 'EventSource', 'URLSearchParams', 'Node', 'localStorage'].map((name) => [name, 'readonly']),
      ),
    },
  },
);
