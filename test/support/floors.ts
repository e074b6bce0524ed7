// The floors of src, lowest first: test/core/architecture.test.ts enforces them on every import,
// and test/core/architectureDoc.test.ts checks that docs/architecture.md lists the same ones.

/** A file may import from its own floor or any floor below, never from one above. */
export const FLOORS: readonly (readonly string[])[] = [
  ['core/base', 'types'],
  ['core/schema', 'core/util', 'core/stats.ts', 'core/version.ts'],
  ['core/sandbox', 'core/sampling'],
  ['core/verifiers', 'core/agent'],
  ['core/taskfile'],
  [
    'core/run',
    'core/panel',
    'core/edit',
    'core/language',
    'core/datasets',
    'core/serve',
    'core/audit',
    'core/overview',
    'core/workbench',
  ],
  ['core/index.ts'],
  ['vscode', 'cli', 'webview'],
];
