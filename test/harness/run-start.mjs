// The test of `npm start` as a new user meets it: scripts/start.mjs runs as its own process
// (the browser path, on a fresh profile), and the URL it prints is opened in Chromium. Then, as
// a person would: examples/arithmetic.vtask opens from the Explorer in the vtask language mode,
// the walkthrough is offered and opens, a `▶ Run verifier` lens is over a task, and a click
// samples the built-in model and leaves a pass-rate decoration. Screenshots:
// test-results/start-NN-*.png. The last line is `N passed, N failed`.
//
// Environment: VTASK_E2E_TIMEOUT_MS (default 60000: the wait of one step).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  REPO,
  RESULTS_DIR,
  runMain,
  onCleanup,
  makeTempDir,
  launchChromium,
  requireBuilt,
  screenshotPath,
} from './vscode.mjs';
import { editor, until, decorationTexts, openFromExplorer } from './workbench.mjs';

const FILE = 'arithmetic.vtask';
// Packaging, installing the .vsix and starting code-server on a busy machine.
const START_TIMEOUT_MS = 180_000;

/** Runs `node scripts/start.mjs ...`; resolves with the workbench URL it prints. */
function startVtask(profile) {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'scripts/start.mjs'), '--web', '--no-build', '--profile', profile],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1' } },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode) return;
    child.kill('SIGINT'); // start.mjs stops its code-server on the way out
    const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(t);
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start printed no URL within ${START_TIMEOUT_MS} ms:\n${out}`)),
      START_TIMEOUT_MS,
    );
    const onData = (d) => {
      out += d;
      process.stdout.write(String(d).replace(/^(?=.)/gm, '[start] '));
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing a URL:\n${out}`));
    });
  });
}

/** @type {{ name: string, run: (ctx: { page: import('playwright-core').Page, timeout: number }) => Promise<void> }[]} */
const STEPS = [
  {
    name: `${FILE} opens from the Explorer in the vtask language mode`,
    async run(ctx) {
      await ctx.page.locator('.monaco-workbench').waitFor({ timeout: ctx.timeout });
      await openFromExplorer(ctx, FILE);
      const mode = ctx.page.locator('[id="status.editor.mode"]');
      await until(
        ctx.page,
        'the status bar to show the language mode "vtask"',
        async () => (await mode.innerText()).trim() === 'vtask',
        ctx.timeout,
      );
    },
  },
  {
    name: 'the getting-started walkthrough is offered on the first start, and opens',
    async run(ctx) {
      // The file was opened first: a notification offers the walkthrough rather than covering the file.
      const prompt = ctx.page.locator('.notification-toast', { hasText: 'Get started with vtask' });
      await prompt.getByRole('button', { name: 'Open Walkthrough' }).click({ timeout: ctx.timeout });
      // A step of the walkthrough, which only the walkthrough itself shows (not the Welcome page's list).
      await ctx.page
        .getByText('Run the verifier on a model')
        .first()
        .waitFor({ state: 'visible', timeout: ctx.timeout });
    },
  },
  {
    name: 'a ▶ Run verifier lens is over the first task',
    async run(ctx) {
      const { page, timeout } = ctx;
      // Back to the file, which the walkthrough took the place of.
      await openFromExplorer(ctx, FILE);
      await editor(page).locator('.codelens-decoration a', { hasText: '▶ Run verifier' }).first().waitFor({ timeout });
    },
  },
  {
    name: 'Run verifier samples the built-in model and decorates the task with its pass rate',
    async run({ page, timeout }) {
      await editor(page).locator('.codelens-decoration a', { hasText: '▶ Run verifier' }).first().click({ timeout });
      const seen = await until(
        page,
        'a pass-rate decoration',
        async () => {
          const texts = await decorationTexts(page);
          return texts.some((t) => /\d+\/\d+\s+pass/.test(t)) ? texts : null;
        },
        timeout,
      );
      console.log(
        `    decorations: ${seen
          .filter((t) => /pass/.test(t))
          .join(' | ')
          .slice(0, 200)}`,
      );
      // The gutter icon of the verdict (pass, fail or mixed).
      await page
        .locator('.monaco-editor .glyph-margin-widgets .cgmr, .monaco-editor .margin-view-overlays .cgmr')
        .first()
        .waitFor({ timeout });
    },
  },
];

await runMain(async () => {
  requireBuilt('out/extension.js');
  const timeout = Number(process.env.VTASK_E2E_TIMEOUT_MS || 60_000);
  const tmp = makeTempDir('vtask-start-');
  const browser = launchChromium(path.join(tmp, 'chromium'));
  browser.catch(() => {});
  const url = await startVtask(path.join(tmp, 'profile'));
  const { page } = await browser;
  await page.goto(url, { timeout: START_TIMEOUT_MS });

  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  for (const f of fs.readdirSync(RESULTS_DIR)) if (/^start-/.test(f)) fs.rmSync(path.join(RESULTS_DIR, f));
  let passed = 0;
  let failed = 0;
  for (const [i, step] of STEPS.entries()) {
    const slug = `start-${String(i + 1).padStart(2, '0')}-${step.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 50)}`;
    const s0 = Date.now();
    try {
      await step.run({ page, timeout });
      passed++;
      console.log(`  ✔ ${step.name} (${Date.now() - s0} ms)`);
    } catch (e) {
      failed++;
      console.log(
        `  ✘ ${step.name} (${Date.now() - s0} ms)\n    ${String(e?.message ?? e)
          .split('\n')
          .join('\n    ')}`,
      );
    }
    await page.screenshot({ path: screenshotPath(slug) }).catch(() => {});
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed || !passed ? 1 : 0;
});
