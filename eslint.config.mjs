// Type-aware lint: floating promises are errors (fire-and-forget is written `void p`).
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const NO_EDITOR = { name: 'vscode', message: 'Only src/vscode may import vscode.' };
const NO_NODE = 'The panel page runs in a browser: no Node built-ins.';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', '.vscode-test/**', 'media/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it', 'suite', 'before', 'after'], package: 'node:test' }] }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  {
    // The CLI is a front end beside the extension: it never reaches for the editor.
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_EDITOR] }] },
  },
  {
    // The core is shared by the CLI, the extension and the webview: it imports none of them.
    // The order of its own floors is checked by test/core/architecture.test.ts.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [NO_EDITOR],
        patterns: [{ group: ['**/webview/*', '**/cli/*', '**/vscode/*'], message: 'The core imports no front end; move what both need to src/core/base.' }],
      }],
    },
  },
  {
    // The panel's page runs in a browser: no editor API, no Node.
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [NO_EDITOR, ...builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message: NO_NODE }))],
        patterns: [{ group: ['node:*'], message: NO_NODE }],
      }],
    },
  },
);
