// Entry of the integration suite, loaded by VS Code's extension host (extensionTestsPath).
// Contract with the runners (test/harness/run-integration.mjs and run-electron.mjs):
// run() resolves when every test passed and rejects otherwise, and before settling writes
// `${passes} passed, ${failures} failed` to the file named by VTASK_TEST_RESULT.
// VTASK_TEST_GREP, when set, selects tests by title (mocha's grep).
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
// The test files share the package's zod (it stays external in test bundles): configured as the
// extension configures its own copy, so a schema a test builds does not probe `navigator` either.
import '../../src/vscode/zodSetup';

export function run(): Promise<void> {
  const grep = process.env.VTASK_TEST_GREP;
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec', ...(grep ? { grep } : {}) });
  // Every compiled test file beside this one (npm run build bundles test/integration/*.test.ts here).
  for (const name of fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort()) {
    mocha.addFile(path.join(__dirname, name));
  }
  return new Promise((resolve, reject) => {
    const finish = (passes: number, failures: number, error?: unknown): void => {
      const summary = `${passes} passed, ${failures} failed`;
      if (process.env.VTASK_TEST_RESULT) fs.writeFileSync(process.env.VTASK_TEST_RESULT, `${summary}\n`);
      if (error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    };
    try {
      const runner = mocha.run((failures) => finish(runner.stats?.passes ?? 0, runner.stats?.failures ?? failures));
    } catch (error) {
      // A test file that throws while loading fails the run before any test starts.
      finish(0, 1, error);
    }
  });
}
