// The `vtask stats --html` report in real Chromium: written by the built CLI from task files with
// hostile text, opened from disk. It renders its charts and tables, asks for nothing over the
// network (or anywhere else), runs no script (a `<script>` in a prompt shows as text), and
// follows the light and dark colour schemes. Screenshots go to test-results/stats-*.png.
//
//   node scripts/build.mjs && node --test test/browser/statsReport.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { chromiumPath, launchBrowser, REPO } from './panelPage.mjs';

const RESULTS = path.join(REPO, 'test-results');
const HOSTILE =
  '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> Natalia sold forty eight clips in April and then half as many clips in May this year';

let browser;
let dir;
let report;

describe(
  'stats report in Chromium',
  { skip: chromiumPath() ? false : 'Chromium not found (set VTASK_CHROMIUM)' },
  () => {
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-report-'));
      fs.writeFileSync(path.join(dir, 'package.json'), '{}');
      const task = (id) =>
        `  - id: "${id}"\n    prompt: ${JSON.stringify(HOSTILE)}\n    verify: { match: { answer: "72" } }\n    cases:\n      - { response: "72", expect: pass }\n`;
      fs.writeFileSync(path.join(dir, 'a.vtask'), `vtask: 1\ntasks:\n${task('<b>one</b>')}${task('two')}`);
      fs.writeFileSync(path.join(dir, 'bench.jsonl'), JSON.stringify({ prompt: HOSTILE }) + '\n');
      // Two models' runs of both tasks, recorded as `vtask run` records them: charts to draw.
      const { appendRunRecords } = await loadBundled('src/core/overview/runlog/runLog.ts');
      const { taskRunKey } = await loadBundled('src/core/run/resultKeys.ts');
      const { parseTaskFile } = await loadBundled('src/core/taskfile/parse.ts');
      const parsed = parseTaskFile(fs.readFileSync(path.join(dir, 'a.vtask'), 'utf8'));
      const rec = (entry, model, passed) => ({
        file: 'a.vtask',
        task: entry.id,
        model,
        key: taskRunKey(parsed, entry),
        at: '2026-01-01T00:00:00.000Z',
        samples: 4,
        passed,
        pass_rate: passed / 4,
        band: passed === 4 ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable',
        signal_share: 0.5,
      });
      appendRunRecords(
        path.join(dir, '.vtask-cache'),
        parsed.tasks.flatMap((e, i) => [rec(e, 'model-a', 4 - i), rec(e, '<i>model-b</i>', i)]),
      );
      report = path.join(dir, 'report.html');
      const r = spawnSync(
        process.execPath,
        [path.join(REPO, 'out/cli.js'), 'stats', 'a.vtask', '--html', 'report.html', '--contamination', 'bench.jsonl'],
        { cwd: dir, encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(r.status, 0, r.stderr);
      browser = await launchBrowser();
      fs.mkdirSync(RESULTS, { recursive: true });
    });
    after(async () => {
      await browser?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const scheme of ['light', 'dark']) {
      test(`renders in the ${scheme} scheme, requests nothing and shows hostile text as text`, async () => {
        const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1100, height: 900 } });
        const page = await context.newPage();
        const requests = [];
        const problems = [];
        page.on('request', (req) => requests.push(req.url()));
        page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()));
        page.on('pageerror', (e) => problems.push(String(e)));
        try {
          await page.goto(pathToFileURL(report).href);
          assert.deepEqual(requests, [pathToFileURL(report).href], 'the page itself, nothing else');
          assert.deepEqual(problems, []);
          assert.equal(await page.evaluate(() => window.__xss), undefined, 'no dataset text ran');
          assert.equal(await page.locator('script, img').count(), 0);
          // The task ids and the overlap are shown as written.
          assert.equal(await page.getByText('<b>one</b>', { exact: true }).first().isVisible(), true);
          assert.ok((await page.locator('body').innerText()).includes('<script>window.__xss = 1</script>'));
          // The duplicate pair and the two overlaps are rows of their tables.
          assert.equal(await page.locator('h2:has-text("Near-duplicate prompts") + table tbody tr').count(), 1);
          assert.equal(await page.locator('h2:has-text("Benchmark overlap") + table tbody tr').count(), 2);
          // Per model a band bar and a histogram; one scatter for the pair.
          assert.equal(await page.locator('svg[aria-label^="bands:"]').count(), 2);
          assert.equal(await page.locator('svg[aria-label="pass-rate histogram"] rect.bar').count(), 20);
          assert.equal(await page.locator('svg[aria-label="<i>model-b</i> against model-a"] circle.dot').count(), 2);
          assert.equal(await page.locator('i:has-text("model-b")').count(), 0, 'a model name is text');
          const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          assert.equal(bg, scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
          await page.screenshot({ path: path.join(RESULTS, `stats-${scheme}.png`), fullPage: true });
        } finally {
          await context.close();
        }
      });
    }
  },
);
