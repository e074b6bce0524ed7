// Runs the integration tests (test/integration/*.test.ts) inside a real VS Code: code-server's
// Node extension host, with the workbench opened in headless Chromium. The tests call the real
// `vscode` API against the extension loaded from this repo (extensionDevelopmentPath).
//
//   node test/harness/run-integration.mjs [--untrusted] [--grep PATTERN]
//
// Contract with the test entry, out/test/integration/index.js (bundled from
// test/integration/index.ts by `npm run build`):
//   - it exports `run(): Promise<void>`, which runs mocha over the compiled *.test.js files beside
//     it, and resolves when every test passed and rejects otherwise;
//   - before settling it writes one line, `${passes} passed, ${failures} failed`, to the file
//     named by the environment variable VTASK_TEST_RESULT; this runner prints that line last;
//   - it passes VTASK_TEST_GREP (if set) to mocha's `grep`;
//   - VTASK_TEST_WORKSPACE_TRUST is `trusted` (the default run, started with
//     --disable-workspace-trust) or `untrusted` (--untrusted: trust enabled and never granted,
//     so the workspace opens in Restricted Mode); tests about either mode read it.
// The workspace folder is a fresh temp copy of test/fixtures/workspace/.
//
// Exit code 0 when the entry resolved, 1 otherwise (a failed test, a crash, the time limit).
// The last line is always `N passed, N failed`.
//
// Environment: VTASK_TEST_GREP, VTASK_INTEGRATION_TIMEOUT_MS (default 300000: the longest the
// tests may go without a line of output; the whole run has 8 times that, so a loaded machine
// that runs every test slowly still finishes, and a stalled one still ends),
// VTASK_VERBOSE=1 (also print the browser console and the noise), VTASK_KEEP_TMP=1 (keep the
// temp folder with the server log and user data).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  REPO,
  runMain,
  requireBuilt,
  makeTempDir,
  copyWorkspace,
  startCodeServer,
  launchChromium,
  workbenchUrl,
  remoteUri,
  formatLogArgs,
  isNoise,
  screenshotPath,
  tail,
  SUMMARY_RE,
  RESULTS_DIR,
} from './vscode.mjs';

const TESTS_ENTRY = 'out/test/integration/index.js';
const FIXTURE = path.join(REPO, 'test/fixtures/workspace');

await runMain(async () => {
  const { values: opts } = parseArgs({
    options: { untrusted: { type: 'boolean', default: false }, grep: { type: 'string' } },
  });
  const grep = opts.grep ?? process.env.VTASK_TEST_GREP ?? '';
  const timeoutMs = Number(process.env.VTASK_INTEGRATION_TIMEOUT_MS || 300_000);
  let lastActivity = Date.now();
  const verbose = process.env.VTASK_VERBOSE === '1';
  const t0 = Date.now();
  const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

  requireBuilt('out/extension.js', TESTS_ENTRY);
  const tmp = makeTempDir('vtask-integration-');
  const workspace = copyWorkspace(FIXTURE, tmp);
  const resultFile = path.join(tmp, 'result.txt');
  const trust = opts.untrusted ? 'untrusted' : 'trusted';

  // Chromium starts while the server does: both take seconds.
  const browser = launchChromium(path.join(tmp, 'chromium'));
  browser.catch(() => {}); // awaited below; an early failure must not be an unhandled rejection
  const server = await startCodeServer({
    dataDir: path.join(tmp, 'server'),
    trust: opts.untrusted,
    // Without the smoke-test driver the workbench ignores the test payload, and it is also what
    // calls window.codeAutomationLog/codeAutomationExit below.
    extraArgs: ['--vscode-option', 'enable-smoke-test-driver'],
    env: { VTASK_TEST_RESULT: resultFile, VTASK_TEST_GREP: grep, VTASK_TEST_WORKSPACE_TRUST: trust },
  });
  console.log(
    `[integration] code-server ${server.url} up after ${elapsed()} (workspace trust: ${trust}${grep ? `, grep: ${grep}` : ''})`,
  );

  const { page } = await browser;
  let exitCode;
  const finished = new Promise((resolve) => {
    void page.exposeFunction('codeAutomationLog', async (_type, args) => {
      lastActivity = Date.now();
      for (const line of formatLogArgs(args).split('\n')) {
        // A test asks for a picture of the workbench as it is: `[vtask-screenshot] NAME`.
        const shot = /\[vtask-screenshot\] ([\w-]+)/.exec(line);
        if (shot) await page.screenshot({ path: screenshotPath(`integration-${shot[1]}`) }).catch(() => {});
        else if (verbose || !isNoise(line)) console.log(`  ${line}`);
      }
    });
    void page.exposeFunction('codeAutomationExit', (code) => {
      exitCode = code;
      resolve('exit');
    });
  });

  const payload = [
    ['extensionDevelopmentPath', remoteUri(server, REPO)],
    ['extensionTestsPath', remoteUri(server, path.join(REPO, TESTS_ENTRY))],
    ['skipWelcome', 'true'],
  ];
  // The first load compiles the workbench: slow on a busy machine, so the bound is generous.
  await page.goto(workbenchUrl(server, workspace, payload), { timeout: 180_000 });
  console.log(`[integration] workbench page loaded after ${elapsed()}`);
  let timer;
  lastActivity = Date.now();
  const stalled = () => Date.now() - lastActivity > timeoutMs || Date.now() - t0 > 8 * timeoutMs;
  const outcome = await Promise.race([
    finished,
    new Promise((r) => {
      timer = setInterval(() => {
        if (stalled()) r('timeout');
      }, 1000);
    }),
  ]);
  clearInterval(timer);

  const result = fs.existsSync(resultFile) ? fs.readFileSync(resultFile, 'utf8').trim() : '';
  const ok = outcome === 'exit' && exitCode === 0 && SUMMARY_RE.test(result);
  if (!ok) {
    const shot = screenshotPath('integration-failure');
    await page.screenshot({ path: shot }).catch(() => {});
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.copyFileSync(server.logFile, path.join(RESULTS_DIR, 'integration-code-server.log'));
    if (outcome === 'timeout')
      console.log(
        `[integration] TIMEOUT: no test output for ${timeoutMs} ms, or the whole run past ${8 * timeoutMs} ms (VTASK_INTEGRATION_TIMEOUT_MS)`,
      );
    else console.log(`[integration] extension host exited with code ${exitCode}`);
    if (!result)
      console.log(
        `[integration] the test entry wrote no result; last lines of the server log:\n${tail(server.logFile, 20)}`,
      );
    console.log(
      `[integration] screenshot ${path.relative(REPO, shot)}, server log test-results/integration-code-server.log`,
    );
  }
  console.log(`[integration] done in ${elapsed()}`);

  // The closing line: the entry's own counts; a run that failed without counting is one failure.
  const m = SUMMARY_RE.exec(result);
  if (m && (ok || Number(m[2]) > 0)) console.log(`${m[1]} passed, ${m[2]} failed`);
  else console.log(`${m ? m[1] : 0} passed, ${m ? Number(m[2]) + 1 : 1} failed`);
  return ok ? 0 : 1;
});
