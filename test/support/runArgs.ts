/** `vtask run FILE` against a test server's model with a sample cache of its own: how the run tests begin their arguments. */
export const runArgs = (file: string, baseUrl: string, cacheDir: string): string[] => [
  'run',
  file,
  '--base-url',
  baseUrl,
  '--model',
  'test-model',
  '--cache-dir',
  cacheDir,
];
