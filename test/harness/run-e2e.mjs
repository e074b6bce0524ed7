// End-to-end test as a person sees it: the packaged .vsix installed into a real VS Code
// (code-server), the workbench opened in headless Chromium, files opened from the Explorer.
//
//   node test/harness/run-e2e.mjs [--grep PATTERN]
//
// It packages the extension the way it ships (`npm run package`: esbuild bundles
// the dependencies, and .vscodeignore is an allowlist), installs the .vsix into a fresh profile,
// opens a temp copy of test/fixtures/workspace/ plus the broken file below, and runs the STEPS
// in order. Each step is a test: it passes, or fails with its error and a screenshot
// (test-results/e2e-NN-*.png, git-ignored); later steps still run. To add a step (click a code
// lens, open the panel...), append to STEPS. The last line is `N passed, N failed`.
//
// Environment: VTASK_E2E_TIMEOUT_MS (default 60000: the wait of one step), VTASK_TEST_GREP (run
// only the steps whose name matches; setup always runs), VTASK_VERBOSE=1, VTASK_KEEP_TMP=1.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  REPO,
  SetupError,
  runMain,
  onCleanup,
  requireBuilt,
  makeTempDir,
  copyWorkspace,
  installVsix,
  packageVsix,
  startCodeServer,
  launchChromium,
  workbenchUrl,
  screenshotPath,
  tail,
  RESULTS_DIR,
} from './vscode.mjs';
import { editor, until, decorationTexts, openFromExplorer } from './workbench.mjs';
import { loadBundled } from '../../scripts/bundle.mjs';

/** The name of this run's screenshots and log: `e2e`, or what VTASK_E2E_PREFIX says (`e2e-floor`). */
const PREFIX = process.env.VTASK_E2E_PREFIX || 'e2e';

const FIXTURE = path.join(REPO, 'test/fixtures/workspace');
const SAMPLE = 'sample.vtask';
const BROKEN = 'broken.vtask';
// A task with a misspelt key: the spec makes unknown keys errors, with a "did you mean".
const BROKEN_TEXT = `vtask: 1
tasks:
  - id: broken/0001
    promt: "What is 2 + 2?"
    verify:
      math: { answer: "4" }
`;

// What the .vsix must hold, and what it must not (sources, tests, node_modules, maps).
const PACKAGE_MUST_HOLD = [
  'package.json',
  'out/extension.js',
  'out/extensionMain.js',
  'LICENSE',
  'marketplace/README.md',
  'CHANGELOG.md',
  'media/icon.png',
];
const PACKAGE_MUST_NOT_MATCH = [
  /^out\/(cli|core)\.js$/,
  /^src\//,
  /^test\//,
  /^node_modules\//,
  /^out\/test\//,
  /\.map$/,
  /^\.ci\//,
  /^scripts\//,
  /\.ts$/,
];

// Dataset rows in GSM8K's layout (question, worked answer, `#### gold`), short enough that a
// row and its decoration fit the editor's width; the last row has no answer.
// JSONL of another kind (no dataset format): it activates the extension's first stage alone.
const OTHER_ROWS = 'events.jsonl';
const OTHER_ROWS_TEXT = '{"event":"start","at":1}\n{"event":"stop","at":2}\n';
const WALKTHROUGH_PROMPT = 'Get started with vtask';
const ROWS = 'gsm8k.jsonl';
const ROWS_TEXT =
  [
    { question: 'What is 6 * 7?', answer: '6 * 7 = 42\n#### 42' },
    { question: 'What is 5 + 4?', answer: '#### 9' },
    { question: 'Name a colour.' },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n';

/** @typedef {{ page: import('playwright-core').Page, workspace: string, packaged: string[], timeout: number, dataDir: string }} Ctx */

/** The text of the extension's log (its `vtask` output channel) as written to the profile's logs. */
function extensionLog(dataDir) {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'vtask.log' && dir.endsWith('vtask.vtask')) found.push(p);
    }
  };
  if (fs.existsSync(dataDir)) walk(dataDir);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/** The notification that offers the walkthrough. */
const walkthroughPrompt = (page) => page.locator('.notification-toast', { hasText: WALKTHROUGH_PROMPT });

// The agent example as it ships, with its environment: it names the built-in calculator model.
const AGENT = 'agent-calculator.vtask';

// A dataset of 100,000 rows, written by the exporter, for the table view.
const DATASET = 'train.parquet';
const DATASET_ROWS = 100_000;

/** The frame of the webview page that holds `selector` (several webviews may be open). */
async function webviewWith(page, selector) {
  for (const f of page.frames())
    if (
      await f
        .locator(selector)
        .count()
        .catch(() => 0)
    )
      return f;
  return undefined;
}

/** The task panel's page: code-server puts a webview in an iframe that holds the page's own iframe. */
const panelFrame = (page) => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');

// A step's `needs` names an earlier step whose failure makes this one fail at once (with the
// reason) instead of waiting out its own timeout.
/** @type {{ name: string, needs?: string, run: (ctx: Ctx) => Promise<void> }[]} */
const STEPS = [
  {
    name: 'the .vsix holds the bundles and no sources, tests or node_modules',
    async run({ packaged }) {
      // Every bundle that scripts/build.mjs writes at the top of out/ for the extension (it loads
      // workers from there); the CLI and the core bundle are for npm and embedders, not the .vsix.
      const notShipped = new Set(['out/cli.js', 'out/core.js']);
      const bundles = fs
        .readdirSync(path.join(REPO, 'out'))
        .filter((f) => f.endsWith('.js'))
        .map((f) => `out/${f}`)
        .filter((f) => !notShipped.has(f));
      const missing = [...PACKAGE_MUST_HOLD, ...bundles].filter((f) => !packaged.includes(f));
      const extra = packaged.filter((f) => PACKAGE_MUST_NOT_MATCH.some((re) => re.test(f)));
      if (missing.length || extra.length) {
        throw new Error(`package contents: missing [${missing.join(', ')}], unwanted [${extra.join(', ')}]`);
      }
    },
  },
  {
    name: 'the workbench loads with the workspace in the Explorer',
    async run({ page, timeout }) {
      await page.locator('.monaco-workbench').waitFor({ timeout });
      await page
        .locator('.explorer-folders-view .monaco-list-row .label-name', { hasText: SAMPLE })
        .first()
        .waitFor({ timeout });
    },
  },
  {
    name: `${OTHER_ROWS} (JSONL in no dataset format) starts only the first stage, which offers the walkthrough once`,
    async run(ctx) {
      await openFromExplorer(ctx, OTHER_ROWS);
      // The file was opened first: the walkthrough is offered beside it, not opened over it.
      await walkthroughPrompt(ctx.page).waitFor({ timeout: ctx.timeout });
      const log = await until(
        ctx.page,
        'the first stage in the extension log',
        () => /first stage active/.test(extensionLog(ctx.dataDir)) && extensionLog(ctx.dataDir),
        ctx.timeout,
      );
      if (/loading the rest of vtask|vtask \S+ activated/.test(log))
        throw new Error(`the second stage loaded for ${OTHER_ROWS}:\n${log}`);
      await walkthroughPrompt(ctx.page)
        .getByRole('button', { name: 'Open Walkthrough' })
        .click({ timeout: ctx.timeout });
      await ctx.page
        .getByText('Run the verifier on a model')
        .first()
        .waitFor({ state: 'visible', timeout: ctx.timeout });
    },
  },
  {
    name: `${SAMPLE} opens from the Explorer in the vtask language mode`,
    async run(ctx) {
      await openFromExplorer(ctx, SAMPLE);
      await editor(ctx.page).locator('.view-line', { hasText: 'sample/add' }).first().waitFor({ timeout: ctx.timeout });
      const mode = ctx.page.locator('[id="status.editor.mode"]');
      await until(
        ctx.page,
        'the status bar to show the language mode "vtask"',
        async () => (await mode.innerText()).trim() === 'vtask',
        ctx.timeout,
      );
      // A task file is what loads every feature (the second stage).
      await until(
        ctx.page,
        'the second stage in the extension log',
        () =>
          /loading the rest of vtask: \S*sample\.vtask was opened[\s\S]*vtask \S+ activated/.test(
            extensionLog(ctx.dataDir),
          ),
        ctx.timeout,
      );
    },
  },
  {
    name: 'the grammar colours keys and values differently',
    async run({ page, timeout }) {
      // `vtask: 1`: the key and the number get different token classes (mtkN) from the grammar.
      const line = editor(page).locator('.view-line', { hasText: 'vtask: 1' }).first();
      const classes = await until(
        page,
        'tokens on line 1',
        async () => {
          const spans = await line
            .locator('span > span')
            .evaluateAll((els) =>
              els.filter((e) => e.textContent.trim()).map((e) => `${e.textContent.trim()} ${e.className}`),
            );
          const kinds = new Set(spans.map((s) => s.split(' ')[1]));
          return kinds.size >= 2 ? spans : null;
        },
        timeout,
      ).catch(async (e) => {
        const spans = await line
          .locator('span > span')
          .evaluateAll((els) => els.map((x) => `${x.textContent}:${x.className}`));
        throw new Error(`${e.message}; line 1 is rendered as ${JSON.stringify(spans)}`);
      });
      console.log(`    tokens: ${classes.join(' | ')}`);
    },
  },
  {
    name: `${BROKEN} shows an error squiggle`,
    async run(ctx) {
      await openFromExplorer(ctx, BROKEN);
      const squiggle = editor(ctx.page).locator('.squiggly-error').first();
      try {
        await squiggle.waitFor({ timeout: ctx.timeout / 3 });
      } catch {
        // On a first start the walkthrough can open late and take the preview tab's place: the
        // squiggle must show once the file is in front again.
        await openFromExplorer(ctx, BROKEN);
        await squiggle.waitFor({ timeout: ctx.timeout });
      }
    },
  },
  {
    name: 'hovering the squiggle shows the diagnostic',
    needs: `${BROKEN} shows an error squiggle`,
    async run({ page, timeout }) {
      const squiggle = editor(page).locator('.squiggly-error').first();
      const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)').filter({ hasText: /\S/ }).first();
      let text = '';
      // Lenses drawn after the squiggle can move the lines under it (older VS Code draws them
      // later): measure again and hover again, a few times, before calling the hover wrong.
      for (let attempt = 0; attempt < 3 && !/promt|prompt/i.test(text); attempt++) {
        const box = await squiggle.boundingBox({ timeout });
        if (!box) throw new Error('the squiggle has no box');
        // The squiggle is drawn under the text: move the mouse there rather than hover the element,
        // straight from empty space below the text, so that no other word is hovered on the way.
        await page.mouse.move(box.x + box.width / 2, box.y + 300);
        await page
          .locator('.monaco-editor .monaco-hover:not(.hidden)')
          .first()
          .waitFor({ state: 'hidden', timeout })
          .catch(() => {});
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await hover.waitFor({ state: 'visible', timeout });
        text = (await hover.innerText()).replace(/\s+/g, ' ').trim();
        console.log(`    hover: ${text.slice(0, 200)}`);
      }
      if (!/promt|prompt/i.test(text)) throw new Error(`the hover does not name the misspelt key "promt": ${text}`);
    },
  },
  {
    name: 'clicking ▶ Run verifier samples the model and decorates the task',
    async run(ctx) {
      await openFromExplorer(ctx, 'editing.vtask');
      const lens = editor(ctx.page).locator('.codelens-decoration a', { hasText: '▶ Run verifier' }).first();
      await lens.waitFor({ timeout: ctx.timeout });
      await lens.click();
      // The inline summary after the task id: the model server answers right half the time.
      // Decoration text is drawn by CSS (::after content), not DOM text: read the computed styles.
      const want = /4\/8\s+pass\s+·\s+pass@1\s+0\.50\s+·\s+learnable/;
      const t0 = Date.now();
      let seen = [];
      while (Date.now() - t0 < ctx.timeout) {
        seen = await decorationTexts(ctx.page);
        if (seen.some((c) => want.test(c))) break;
        await ctx.page.waitForTimeout(250);
      }
      if (!seen.some((c) => want.test(c)))
        throw new Error(`no pass-rate summary among the decorations: ${JSON.stringify(seen)}`);
      const lenses = (await editor(ctx.page).locator('.codelens-decoration').allTextContents()).flatMap((t) =>
        t.split('|').map((x) => x.trim()),
      );
      if (!lenses.some((t) => t.startsWith('Run cases'))) throw new Error(`no cases lens among ${lenses.join(' | ')}`);
    },
  },
  {
    name: 'the task panel opens beside the editor with the samples of a run',
    async run(ctx) {
      await openFromExplorer(ctx, 'panel.vtask');
      const ed = editor(ctx.page);
      await ed.locator('.codelens-decoration a', { hasText: '▶ Run verifier' }).first().click({ timeout: ctx.timeout });
      await ed
        .locator('.codelens-decoration a', { hasText: /^Open panel$/ })
        .first()
        .waitFor({ timeout: ctx.timeout });
      // The inline summary shows once the run is in.
      await until(
        ctx.page,
        'the run to finish',
        async () => (await decorationTexts(ctx.page)).some((t) => /4\/8 pass/.test(t)),
        ctx.timeout,
      );
      await ed
        .locator('.codelens-decoration a', { hasText: /^Open panel$/ })
        .first()
        .click();
      const frame = panelFrame(ctx.page);
      await frame.locator('h1', { hasText: 'panel/short-sea' }).waitFor({ timeout: ctx.timeout });
      await frame.locator('.sample').first().waitFor({ timeout: ctx.timeout });
      const summary = await frame.locator('.run-summary').innerText();
      if (!/4\/8 pass/.test(summary)) throw new Error(`the panel's summary is ${summary}`);
    },
  },
  {
    name: 'changing a constraint in the form edits the file and flips verdicts',
    needs: 'the task panel opens beside the editor with the samples of a run',
    async run(ctx) {
      const frame = panelFrame(ctx.page);
      const input = frame.getByLabel('num_words', { exact: true });
      await input.fill('8');
      await input.press('Tab');
      // The panel has the focus, so the text editor is in the group beside the active one.
      await ctx.page
        .locator('.monaco-editor .view-line', { hasText: 'num_words: 8 }' })
        .first()
        .waitFor({ timeout: ctx.timeout });
      await frame.locator('.flips', { hasText: '2 fail → pass, 0 pass → fail' }).waitFor({ timeout: ctx.timeout });
      await frame.locator('button.filter[data-filter="flipped"]').click();
      await until(
        ctx.page,
        'two flipped samples in the list',
        async () => (await frame.locator('.sample').count()) === 2,
        ctx.timeout,
      );
    },
  },
  {
    name: 'a sample is added to the task as a case',
    needs: 'changing a constraint in the form edits the file and flips verdicts',
    async run(ctx) {
      const frame = panelFrame(ctx.page);
      await frame.locator('.sample').first().click();
      await frame
        .locator('.detail pre.answer', { hasText: 'The sea is wide and grey today.' })
        .waitFor({ timeout: ctx.timeout });
      await frame.locator('.detail button', { hasText: 'expect pass' }).click();
      await ctx.page
        .locator('.monaco-editor .view-line', { hasText: '- response: The sea is wide and grey today.' })
        .first()
        .waitFor({ timeout: ctx.timeout });
      await until(
        ctx.page,
        'the new case in the panel, run and passing',
        async () => (await frame.locator('.case.ok').count()) === 2,
        ctx.timeout,
      );
    },
  },
  {
    name: 'parquet table: a dataset opens as a table of 100,000 rows, a row runs',
    async run(ctx) {
      // On a first start the walkthrough opens once the extension is active: let it open first,
      // or it replaces the table's preview tab (run alone, no earlier step has opened a file).
      await until(
        ctx.page,
        'an editor tab',
        async () => (await ctx.page.locator('.tabs-container .tab').count()) > 0,
        ctx.timeout,
      );
      await openFromExplorer(ctx, DATASET, { text: false });
      const frame = await until(
        ctx.page,
        'the dataset table view',
        () => webviewWith(ctx.page, '.dataset-table'),
        ctx.timeout,
      );
      await frame.locator('header .file', { hasText: '100,000 rows · verl' }).waitFor({ timeout: ctx.timeout });
      await frame.locator('#row-0 .cell', { hasText: 'big/000000' }).waitFor({ timeout: ctx.timeout });
      // The keyboard reaches the last row; only the rows in view are in the page.
      await frame.locator('.dataset-rows').focus();
      await ctx.page.keyboard.press('End');
      await frame
        .locator(`#row-${DATASET_ROWS - 1} .cell`, { hasText: 'big/099999' })
        .waitFor({ timeout: ctx.timeout });
      const drawn = await frame.locator('.dataset-rows .dataset-row').count();
      if (drawn > 80) throw new Error(`${drawn} rows in the page: the table is not virtualised`);
      await ctx.page.keyboard.press('Home');
      // ▶ Run verifier on the sea row (its answers are short and have no commas: all pass).
      await frame.locator('#row-1 button.run').click({ timeout: ctx.timeout });
      await frame.locator('#row-1 .result', { hasText: '100%' }).waitFor({ timeout: ctx.timeout });
      const title = await frame.locator('#row-1 .result').getAttribute('title');
      if (!/of 8 samples just now/.test(title ?? ''))
        throw new Error(`the row's pass rate is not from the run: ${title}`);
    },
  },
  {
    name: `${SAMPLE} (valid) has no error squiggles`,
    needs: `${BROKEN} shows an error squiggle`, // only telling once errors demonstrably show
    async run(ctx) {
      await openFromExplorer(ctx, SAMPLE);
      await editor(ctx.page).locator('.view-line', { hasText: 'sample/add' }).first().waitFor({ timeout: ctx.timeout });
      const n = await editor(ctx.page).locator('.squiggly-error').count();
      if (n !== 0) throw new Error(`${n} error squiggle(s) on a valid file`);
    },
  },
  {
    name: 'a JSONL row has the lens, and after a run its pass rate comes before the row',
    async run(ctx) {
      const { page, timeout } = ctx;
      await openFromExplorer(ctx, ROWS);
      const ed = editor(page);
      await ed.locator('.view-line', { hasText: 'What is 6 * 7?' }).first().waitFor({ timeout });
      // The steps before leave two editor groups: one column gives the row and its decoration
      // the width to show side by side.
      await ed.locator('.view-line').first().click();
      await page.keyboard.press('F1');
      const palette = page.locator('.quick-input-widget .quick-input-box input').first();
      await palette.waitFor({ timeout });
      await palette.fill('>View: Single Column Editor Layout');
      await page
        .locator('.quick-input-widget .monaco-list-row', { hasText: 'Single Column Editor Layout' })
        .first()
        .waitFor({ timeout });
      await palette.press('Enter');
      await until(
        page,
        'one editor group',
        async () => (await page.locator('.editor-group-container').count()) === 1,
        timeout,
      );
      // One ▶ Run verifier per row that is a task; the row without an answer is underlined instead.
      const runs = ed.locator('.codelens-decoration a', { hasText: '▶ Run verifier' });
      await until(
        page,
        'a ▶ Run verifier lens over each of the two rows',
        async () => (await runs.count()) === 2,
        timeout,
      );
      await ed
        .locator('.codelens-decoration a', { hasText: /^Open panel$/ })
        .first()
        .waitFor({ timeout });
      await ed.locator('.squiggly-error').first().waitFor({ timeout });
      await runs.first().click();
      const want = /4\/8\s+pass\s+·\s+pass@1\s+0\.50\s+·\s+learnable/;
      // Decoration text is drawn by CSS (::before content): read it from the row's own line.
      const row = ed.locator('.view-line', { hasText: 'What is 6 * 7?' }).first();
      const before = () =>
        row
          .locator('span')
          .evaluateAll((els) =>
            els.map((x) => getComputedStyle(x, '::before').content).filter((c) => c && c !== 'none' && c !== 'normal'),
          );
      const seen = await until(
        page,
        'the pass-rate summary before the first row',
        async () => {
          const texts = await before();
          return texts.some((t) => want.test(t)) && texts;
        },
        timeout,
      ).catch(async (e) => {
        throw new Error(
          `${e.message}; before the row: ${JSON.stringify(await before())}; all decorations: ${JSON.stringify(await decorationTexts(page))}`,
        );
      });
      console.log(`    before the row: ${seen.join(' | ')}`);
    },
  },
  {
    name: 'an agent task runs from its lens with the built-in calculator model, and the panel shows its trajectories',
    async run(ctx) {
      const { page, timeout } = ctx;
      await openFromExplorer(ctx, AGENT);
      const ed = editor(page);
      await ed.locator('.view-line', { hasText: 'calc/add-38-47' }).first().waitFor({ timeout });
      // The file names the built-in calculator model: no server, whatever the settings say.
      await ed.locator('.codelens-decoration a', { hasText: '▶ Run verifier' }).first().click({ timeout });
      const want = /14\/16\s+pass\s+·\s+pass@1\s+0\.88\s+·\s+learnable/;
      await until(
        page,
        'the pass-rate summary of the agent task',
        async () => (await decorationTexts(page)).some((t) => want.test(t)),
        timeout * 2,
      ).catch(async (e) => {
        throw new Error(`${e.message}; decorations: ${JSON.stringify(await decorationTexts(page))}`);
      });
      await ed
        .locator('.codelens-decoration a', { hasText: /^Open panel$/ })
        .first()
        .click({ timeout });
      const frame = panelFrame(page);
      await frame.locator('h1', { hasText: 'calc/add-38-47' }).waitFor({ timeout });
      await frame.locator('.run-summary', { hasText: '14/16 pass' }).waitFor({ timeout });
      // The samples are below the form and the cases: scroll to them, as a person would (the
      // list draws the rows in view).
      await frame.locator('.run-summary').scrollIntoViewIfNeeded({ timeout });
      await frame.locator('.sample-list').scrollIntoViewIfNeeded({ timeout });
      // The panel keeps its filter from task to task (an earlier step left it on Flipped).
      await frame.locator('button.filter[data-filter="all"]').click({ timeout });
      // A passing trajectory: the add call with the model's operands and the environment's result.
      await frame.locator('.sample.pass').first().click({ timeout });
      const call = frame.locator('.detail .tool-call').first();
      await call.waitFor({ timeout });
      // Turns are drawn when in view (content-visibility): scroll the call in, as a person would, then read it.
      await call.scrollIntoViewIfNeeded({ timeout });
      const text = await until(
        page,
        'the call drawn',
        async () => (await call.innerText()).replace(/\s+/g, ' ').trim() || null,
        timeout,
      );
      if (!/add \{"a":38,"b":47\} 85/.test(text)) throw new Error(`the passing sample's call reads ${text}`);
      await frame
        .locator('.detail .stop', { hasText: 'The model answered after 2 turns and 1 tool call' })
        .waitFor({ timeout });
      // A failing one: answered from memory, and the reason says the calculator was never called.
      await frame.locator('button.filter[data-filter="fail"]').click();
      await frame.locator('.sample.fail').first().click({ timeout });
      await frame.locator('.detail .reason', { hasText: 'add was never called' }).waitFor({ timeout });
      await frame.locator('.detail .stop').scrollIntoViewIfNeeded({ timeout });
      const calls = await frame.locator('.detail .tool-call').count();
      if (calls !== 0) throw new Error(`the failing sample shows ${calls} tool calls; it made none`);
      // Left on a passing trajectory, in view, for the screenshot.
      await frame.locator('button.filter[data-filter="all"]').click();
      await frame.locator('.sample.pass').first().click({ timeout });
      const shown = frame.locator('.detail .tool-call').first();
      await shown.scrollIntoViewIfNeeded({ timeout });
      await until(page, 'the call drawn', async () => (await shown.innerText()).trim() || null, timeout);
      await page.waitForTimeout(200);
    },
  },
  {
    name: 'after a reload the walkthrough is not offered again',
    async run(ctx) {
      await ctx.page.reload({ timeout: 180_000 });
      await ctx.page.locator('.monaco-workbench').waitFor({ timeout: ctx.timeout });
      await openFromExplorer(ctx, SAMPLE);
      // The lens says the extension is active again; its first stage decides within a second.
      await editor(ctx.page)
        .locator('.codelens-decoration a', { hasText: '▶ Run verifier' })
        .first()
        .waitFor({ timeout: ctx.timeout });
      await ctx.page.waitForTimeout(3000);
      if (await walkthroughPrompt(ctx.page).count()) throw new Error('the walkthrough was offered a second time');
    },
  },
];

await runMain(async () => {
  const { values: opts } = parseArgs({ options: { grep: { type: 'string' } } });
  const grep = opts.grep ?? process.env.VTASK_TEST_GREP ?? '';
  const timeout = Number(process.env.VTASK_E2E_TIMEOUT_MS || 60_000);
  const t0 = Date.now();
  const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

  requireBuilt('out/extension.js');
  const tmp = makeTempDir('vtask-e2e-');
  // Chromium starts while the extension is packaged and installed: both take seconds.
  const browser = launchChromium(path.join(tmp, 'chromium'));
  browser.catch(() => {}); // awaited below; an early failure must not be an unhandled rejection

  // Package exactly what ships.
  const vsix = path.join(tmp, 'vtask.vsix');
  const vsce = path.join(REPO, 'node_modules/.bin/vsce');
  const vsceRun = (args) => {
    const r = spawnSync(vsce, args, {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    if (r.status !== 0)
      throw new SetupError(
        `vsce ${args[0]} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
      );
    return r;
  };
  for (const line of packageVsix(vsix)) console.log(`[e2e] vsce: ${line.trim()}`);
  const packaged = vsceRun(['ls', '--no-dependencies', '--readme-path', 'marketplace/README.md'])
    .stdout.split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  console.log(
    `[e2e] packaged ${path.basename(vsix)} (${(fs.statSync(vsix).size / 1024).toFixed(0)} KiB, ${packaged.length} files) after ${elapsed()}`,
  );

  const dataDir = path.join(tmp, 'server');
  installVsix(dataDir, vsix);
  const workspace = copyWorkspace(FIXTURE, tmp);
  fs.copyFileSync(path.join(REPO, 'examples', AGENT), path.join(workspace, AGENT));
  fs.copyFileSync(path.join(REPO, 'examples/envs/calculator.mjs'), path.join(workspace, 'envs/calculator.mjs'));
  // Environments run in the sandbox as `nobody` when the tests run as root: the workspace's
  // temporary parent must be readable by it.
  fs.chmodSync(tmp, 0o755);
  fs.writeFileSync(path.join(workspace, BROKEN), BROKEN_TEXT);
  fs.writeFileSync(path.join(workspace, ROWS), ROWS_TEXT);
  fs.writeFileSync(path.join(workspace, OTHER_ROWS), OTHER_ROWS_TEXT);
  const { writeDataset } = await loadBundled('test/support/datasetFixture.ts');
  await writeDataset(path.join(workspace, DATASET), DATASET_ROWS);
  // A model for Run verifier: the project's OpenAI-compatible test server, right half the time.
  const { OpenAIServer } = createRequire(import.meta.url)(path.join(REPO, 'out/test/support/openaiServer.js'));
  // The task panel's sea task gets answers of 4, 7, 8 and 2 words: two in four under 6 words.
  const sea = [
    'The sea is calm.',
    'The sea is wide and grey today.',
    'The sea is calm and very grey now.',
    'Calm sea.',
  ];
  const model = new OpenAIServer({
    answer: (c) =>
      /sea/.test(c.prompt) ? sea[c.index % sea.length] : c.index % 2 === 0 ? 'so \\boxed{42}' : '\\boxed{41}',
  });
  await model.listen();
  onCleanup(() => model.close());
  const server = await startCodeServer({
    dataDir,
    settings: {
      'vtask.models': { test: { base_url: model.url, model: 'test-model' } },
      'vtask.model': 'test',
      'vtask.cacheDir': path.join(tmp, 'cache'),
    },
  });
  const { page } = await browser;
  console.log(`[e2e] code-server ${server.url} up with the .vsix installed after ${elapsed()}`);
  // Generous: the first load of the workbench on a busy machine.
  await page.goto(workbenchUrl(server, workspace), { timeout: 180_000 });

  /** @type {Ctx} */
  const ctx = { page, workspace, packaged, timeout, dataDir };
  let passed = 0;
  let failed = 0;
  const failedSteps = new Set();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  // Screenshots are named after the run (`e2e`, or `e2e-floor` on the oldest supported VS Code).
  for (const f of fs.readdirSync(RESULTS_DIR))
    if (f.startsWith(`${PREFIX}-`) && /^\d\d-|^code-server/.test(f.slice(PREFIX.length + 1)))
      fs.rmSync(path.join(RESULTS_DIR, f));
  for (const [i, step] of STEPS.entries()) {
    if (grep && !new RegExp(grep).test(step.name)) continue;
    const slug = `${PREFIX}-${String(i + 1).padStart(2, '0')}-${step.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 50)}`;
    const s0 = Date.now();
    try {
      if (step.needs && failedSteps.has(step.needs)) throw new Error(`not run: it needs "${step.needs}", which failed`);
      await step.run(ctx);
      passed++;
      console.log(`  ✔ ${step.name} (${Date.now() - s0} ms)`);
    } catch (e) {
      failed++;
      failedSteps.add(step.name);
      const message = String(e?.message ?? e)
        .replace(/\x1b\[[0-9;]*m/g, '')
        .trim();
      console.log(`  ✘ ${step.name} (${Date.now() - s0} ms)\n    ${message.split('\n').join('\n    ')}`);
    }
    await page.screenshot({ path: screenshotPath(slug) }).catch(() => {});
  }
  if (failed) {
    fs.copyFileSync(server.logFile, path.join(RESULTS_DIR, `${PREFIX}-code-server.log`));
    console.log(
      `[e2e] screenshots and the server log are in test-results/; last server lines:\n${tail(server.logFile, 10)}`,
    );
  }
  console.log(`[e2e] done in ${elapsed()}`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed || !passed ? 1 : 0;
});
