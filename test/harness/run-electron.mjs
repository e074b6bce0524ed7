// The integration suite in desktop VS Code (Electron) through @vscode/test-electron, for machines
// that can download VS Code (a developer's laptop, a hosted CI with internet). NOT run in this
// project's CI, which reaches only the npm registry: there test/harness/run-integration.mjs runs
// the same suite in code-server instead. Both runners follow the same contract with
// out/test/integration/index.js (see run-integration.mjs).
//
//   npm run build && node test/harness/run-electron.mjs [--untrusted] [--grep PATTERN]
//
// Environment: VTASK_VSCODE_VERSION (default `stable`; e.g. `1.139.0`, the oldest the manifest
// supports, or `insiders`), VTASK_TEST_GREP. VS Code is cached in .vscode-test/ (git-ignored).
// On Linux without a display, run it under `xvfb-run -a`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runTests } from '@vscode/test-electron';
import { REPO, runMain, requireBuilt, makeTempDir, copyWorkspace, SUMMARY_RE } from './vscode.mjs';

const TESTS_ENTRY = 'out/test/integration/index.js';

await runMain(async () => {
  const { values: opts } = parseArgs({
    options: { untrusted: { type: 'boolean', default: false }, grep: { type: 'string' } },
  });
  requireBuilt('out/extension.js', TESTS_ENTRY);
  const tmp = makeTempDir('vtask-electron-');
  const workspace = copyWorkspace(path.join(REPO, 'test/fixtures/workspace'), tmp);
  const resultFile = path.join(tmp, 'result.txt');

  let exitCode;
  try {
    exitCode = await runTests({
      version: process.env.VTASK_VSCODE_VERSION || 'stable',
      extensionDevelopmentPath: REPO,
      extensionTestsPath: path.join(REPO, TESTS_ENTRY),
      launchArgs: [
        workspace,
        '--disable-extensions', // other installed extensions stay out of the way
        '--user-data-dir',
        path.join(tmp, 'user-data'),
        '--extensions-dir',
        path.join(tmp, 'extensions'),
        ...(opts.untrusted ? [] : ['--disable-workspace-trust']),
      ],
      extensionTestsEnv: {
        VTASK_TEST_RESULT: resultFile,
        VTASK_TEST_GREP: opts.grep ?? process.env.VTASK_TEST_GREP ?? '',
        VTASK_TEST_WORKSPACE_TRUST: opts.untrusted ? 'untrusted' : 'trusted',
      },
    });
  } catch (e) {
    // runTests rejects when VS Code exits non-zero (a failed test) or cannot be downloaded.
    console.error(`[electron] ${e?.message ?? e}`);
    exitCode = 1;
  }
  const result = fs.existsSync(resultFile) ? fs.readFileSync(resultFile, 'utf8').trim() : '';
  const m = SUMMARY_RE.exec(result);
  const ok = exitCode === 0 && !!m;
  if (m && (ok || Number(m[2]) > 0)) console.log(`${m[1]} passed, ${m[2]} failed`);
  else console.log(`${m ? m[1] : 0} passed, ${m ? Number(m[2]) + 1 : 1} failed`);
  return ok ? 0 : 1;
});
