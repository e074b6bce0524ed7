// The dataset table view (out/datasetView.js) in real Chromium, on the page the extension
// serves (same CSP) with a stand-in host (test/browser/panelPage.mjs). The host's answers are
// the core's: a real 100,000-row Parquet file written by the exporter, read in the windows the
// page asks for. Screenshots go to test-results/dataset-*.png.
//
//   node scripts/build.mjs && node --test test/browser/dataset.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { deliver, PAGE_SUITE, REPO, RESULTS, THEMES, usePages } from './panelPage.mjs';

const ROWS = 100_000;
const ROW_HEIGHT = 30; // src/webview/datasetTable.ts

let core;
let table;

describe('dataset table view in Chromium', PAGE_SUITE, () => {
  const pages = usePages({ text: 'dataset text' });
  before(async () => {
    core = await loadBundled('test/browser/datasetMessages.ts');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-dataset-page-')), 'train.parquet');
    await core.writeDataset(file, ROWS);
    table = await core.DatasetTable.open(file);
  });

  /** Opens the view, runs the body, then checks that nothing went wrong in the page. */
  const withView = (options, body) =>
    pages.with({ pageName: 'dataset', ...options }, async (page) => {
      page.answered = 0;
      await body(page);
    });

  /** Sends what the host sends when the page says it is ready. */
  const open = (page) =>
    deliver(page, {
      type: 'dataset',
      file: 'data/train.parquet',
      info: { ...table.info, columns: [...table.info.columns], fileColumns: undefined },
    });
  const frame = (page) => page.evaluate(() => window.__frame());

  /**
   * Answers the page's window requests with the core's rows, as the host does, until it asks
   * for no more; returns the requests answered. Each request is checked against the protocol.
   */
  async function pump(page, rowsFor = (w) => table.window(w.start, w.end)) {
    const answered = [];
    for (;;) {
      const all = await page.evaluate(() => window.__posted);
      const fresh = all.slice(page.answered);
      page.answered = all.length;
      const windows = fresh.filter((m) => m.type === 'window');
      for (const m of fresh)
        assert.ok(
          core.fromDataset.safeParse(m).success,
          `the page posted a message the host accepts: ${JSON.stringify(m)}`,
        );
      if (!windows.length) return answered;
      for (const w of windows) {
        const rows = await rowsFor(w);
        const msg = { type: 'rows', rows };
        assert.ok(core.toDataset.safeParse(msg).success);
        await deliver(page, msg);
        answered.push(w);
      }
      await frame(page);
    }
  }
  /** The row numbers drawn, in order. */
  const drawn = (page) => page.$$eval('.dataset-rows .dataset-row', (els) => els.map((e) => Number(e.dataset.n)));
  async function scrollTo(page, y) {
    await page.$eval(
      '.dataset-rows',
      (vp, top) => {
        vp.scrollTop = top;
      },
      y,
    );
    await frame(page);
    await frame(page);
    return pump(page);
  }
  const cells = (page, n) => page.$$eval(`#row-${n} .cell`, (els) => els.map((e) => e.textContent));

  test('100,000 rows: only the rows in view exist, windows are read on demand, the last row is reachable', async () => {
    await withView({}, async (page) => {
      assert.deepEqual(await page.evaluate(() => window.__posted), [{ type: 'ready' }]);
      await open(page);
      assert.equal(await page.textContent('h1'), 'train.parquet');
      assert.equal(await page.textContent('header .file'), '100,000 rows · verl · read-only');
      assert.deepEqual(await page.$$eval('.dataset-head .cell', (els) => els.map((e) => e.textContent)), [
        '#',
        'Task id',
        'Prompt',
        'Verifier',
        'Pass rate',
        'Actions',
      ]);
      const first = await pump(page);
      // One block of rows covers the first screen; nothing else is asked for.
      assert.deepEqual(first, [{ type: 'window', start: 0, end: 100 }]);
      const rows = await drawn(page);
      const visible = await page.$eval('.dataset-rows', (vp) => Math.ceil(vp.clientHeight / 30));
      assert.ok(
        rows.length <= visible + 16 && rows.length >= visible,
        `only the rows in view (and a few around them) exist: ${rows.length} for ${visible} visible`,
      );
      assert.equal(
        await page.$eval('.dataset-rows', (vp) => vp.scrollHeight),
        ROWS * ROW_HEIGHT,
        'the list is as tall as all the rows',
      );
      assert.deepEqual((await cells(page, 0)).slice(0, 4), [
        '0',
        core.rowTaskId(0),
        'Natalia sold clips to 48 of her friends in April, and then half as many in May. How many clips did she sell altogether? (#0)',
        'math · {"answer":"72"}',
      ]);
      // Row 1 carries the pass rate its export recorded.
      assert.equal((await cells(page, 1))[4], '50% learnable');

      // Text only: the hostile prompt is a cell's text, and no element came of it.
      assert.equal((await cells(page, 2))[2], `${core.HOSTILE_PROMPT} (#2)`);
      assert.equal(await page.$$eval('.dataset-rows img, .dataset-rows script', (els) => els.length), 0);
      // Long text stays on one line: the cell clips it.
      const clipped = await page.$eval('#row-0 .cell:nth-child(3)', (c) => [
        c.scrollWidth > c.clientWidth,
        getComputedStyle(c).textOverflow,
        c.getBoundingClientRect().height,
      ]);
      assert.deepEqual(clipped.slice(0, 2), [true, 'ellipsis'], 'the long prompt is cut with an ellipsis');
      assert.ok(clipped[2] < 20, `one line high (${clipped[2]} px)`);

      // The middle, then the very end: a window each, and the rows there.
      const middle = await scrollTo(page, 50_000 * ROW_HEIGHT);
      assert.ok(middle.length >= 1 && middle.length <= 2, JSON.stringify(middle));
      assert.ok((await drawn(page)).includes(50_000));
      const end = await scrollTo(page, ROWS * ROW_HEIGHT);
      assert.ok(
        end.every((w) => w.end <= ROWS && w.end - w.start <= 100),
        JSON.stringify(end),
      );
      assert.equal((await drawn(page)).at(-1), ROWS - 1);
      assert.deepEqual((await cells(page, ROWS - 1)).slice(0, 2), [String(ROWS - 1), core.rowTaskId(ROWS - 1)]);
      const last = await page.$eval(`#row-${ROWS - 1}`, (row) => {
        const r = row.getBoundingClientRect();
        const v = row.closest('.dataset-rows').getBoundingClientRect();
        return r.bottom <= v.bottom + 1 && r.top >= v.top;
      });
      assert.ok(last, 'the last row is wholly in view');
      assert.ok((await drawn(page)).length <= 60, 'still only the rows in view');
      const asked = (await page.evaluate(() => window.__posted))
        .filter((m) => m.type === 'window')
        .reduce((a, m) => a + m.end - m.start, 0);
      assert.ok(asked <= 600, `the page asked for ${asked} of ${ROWS} rows`);
    });
  });

  test('keyboard: arrows, End, Enter and R; Tab reaches the row buttons; a run shows its pass rate', async () => {
    await withView({}, async (page) => {
      await open(page);
      await pump(page);
      await page.focus('.dataset-rows');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.getAttribute('.dataset-rows', 'aria-activedescendant'), 'row-1');
      assert.ok(await page.$eval('#row-1', (e) => e.classList.contains('selected')));
      await page.keyboard.press('Enter');
      await page.keyboard.press('r');
      const since = page.answered;
      await page.keyboard.press('End');
      await frame(page);
      await pump(page);
      assert.equal(await page.getAttribute('.dataset-rows', 'aria-activedescendant'), `row-${ROWS - 1}`);
      const posted = await page.evaluate(() => window.__posted);
      assert.deepEqual(
        posted.filter((m) => m.type === 'open' || m.type === 'run'),
        [
          { type: 'open', n: 1 },
          { type: 'run', n: 1 },
        ],
      );
      assert.ok(
        posted.slice(since).some((m) => m.type === 'window' && m.end === ROWS),
        'End asked for the last rows',
      );

      // The buttons are buttons: Tab from the list reaches one, Enter presses it.
      await page.keyboard.press('Home');
      await frame(page);
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => [document.activeElement.tagName, document.activeElement.dataset.key]);
      assert.deepEqual(focused, ['BUTTON', 'run:0']);
      await page.keyboard.press('Enter');
      assert.deepEqual((await page.evaluate(() => window.__posted)).at(-1), { type: 'run', n: 0 });

      await deliver(page, { type: 'run', n: 0, running: true });
      assert.match((await cells(page, 0))[4], /sampling…/);
      assert.ok(await page.$eval('#row-0 button.run', (b) => b.disabled));
      await deliver(page, {
        type: 'run',
        n: 0,
        running: false,
        result: { passRate: 0.75, band: 'learnable', samples: 8, source: 'run' },
      });
      assert.equal((await cells(page, 0))[4], '75% learnable');
      await deliver(page, { type: 'run', n: 3, running: false, error: 'nothing listens at http://127.0.0.1:9/v1' });
      assert.equal((await cells(page, 3))[4], ' error');
      assert.equal(await page.getAttribute('#row-3 .result', 'title'), 'nothing listens at http://127.0.0.1:9/v1');

      for (const theme of Object.keys(THEMES)) {
        if (theme !== 'light') continue;
        await page.screenshot({ path: path.join(RESULTS, `dataset-${theme}.png`) });
      }
    });
    for (const theme of Object.keys(THEMES).filter((t) => t !== 'light')) {
      await withView({ theme }, async (page) => {
        await open(page);
        await pump(page);
        await page.click('#row-1 .cell:nth-child(2)');
        const colors = await page.evaluate(() => ({
          body: getComputedStyle(document.body).backgroundColor,
          text: getComputedStyle(document.querySelector('#row-0')).color,
        }));
        assert.notEqual(colors.body, colors.text, `${theme}: text and background differ`);
        await page.screenshot({ path: path.join(RESULTS, `dataset-${theme}.png`) });
      });
    }
  });

  test('beside a task file (a narrow editor) the prompt and verifier stay readable', async () => {
    await withView({ viewport: { width: 520, height: 700 } }, async (page) => {
      await open(page);
      await pump(page);
      const widths = await page.$eval('#row-0', (r) =>
        [...r.querySelectorAll('.cell')].map((c) => c.getBoundingClientRect().width),
      );
      assert.ok(
        widths[2] >= 100 && widths[3] >= 75,
        `prompt and verifier widths: ${widths.map(Math.round).join(', ')}`,
      );
      const run = await page.$eval('#row-0 button.run', (b) => [
        b.getAttribute('aria-label'),
        b.getBoundingClientRect().width,
      ]);
      assert.equal(run[0], 'Run verifier');
      assert.ok(run[1] < 40, `Run verifier shows as its icon (${run[1]} px)`);
      const inside = await page.$eval(
        '#row-0',
        (r) => r.querySelector('button.open').getBoundingClientRect().right <= r.getBoundingClientRect().right,
      );
      assert.ok(inside, 'Open in panel is inside the row');
      await page.screenshot({ path: path.join(RESULTS, 'dataset-narrow.png') });
    });
  });

  test('3,000,000 rows: a list past what browsers lay out still reaches every row, rows never overlap', async () => {
    const N = 3_000_000;
    const synthetic = (w) =>
      Array.from({ length: w.end - w.start }, (_, i) => ({
        n: w.start + i,
        cells: [`id/${w.start + i}`, 'prompt', 'math · {}'],
      }));
    await withView({}, async (page) => {
      await deliver(page, {
        type: 'dataset',
        file: 'huge.parquet',
        info: { rows: N, format: 'verl', columns: ['Task id', 'Prompt', 'Verifier'] },
      });
      await pump(page, synthetic);
      const height = await page.$eval('.dataset-rows', (vp) => vp.scrollHeight);
      assert.ok(height <= 15_000_000, `the list is ${height} px tall`);
      /** The rows drawn, with their tops, in order: consecutive and one row height apart. */
      const layout = () =>
        page.$$eval('.dataset-rows .dataset-row', (els) =>
          els.map((e) => [Number(e.dataset.n), e.getBoundingClientRect().top]),
        );
      const check = (rows, what) => {
        for (let i = 1; i < rows.length; i++) {
          assert.equal(rows[i][0], rows[i - 1][0] + 1, `${what}: consecutive rows`);
          assert.ok(
            Math.abs(rows[i][1] - rows[i - 1][1] - ROW_HEIGHT) < 0.5,
            `${what}: rows ${rows[i - 1][0]} and ${rows[i][0]} are one row apart`,
          );
        }
      };
      await page.$eval('.dataset-rows', (vp) => {
        vp.scrollTop = vp.scrollHeight / 2;
      });
      await frame(page);
      await pump(page, synthetic);
      const middle = await layout();
      check(middle, 'the middle');
      assert.ok(
        middle.some(([n]) => Math.abs(n - N / 2) < 1000),
        `the middle shows rows near ${N / 2}: ${middle[0]?.[0]}`,
      );
      assert.equal((await cells(page, middle[10][0]))[1], `id/${middle[10][0]}`);
      await page.focus('.dataset-rows');
      await page.keyboard.press('End');
      await frame(page);
      await pump(page, synthetic);
      const end = await layout();
      check(end, 'the end');
      assert.equal(end.at(-1)[0], N - 1);
      const inView = await page.$eval(`#row-${N - 1}`, (row) => {
        const r = row.getBoundingClientRect();
        const v = row.closest('.dataset-rows').getBoundingClientRect();
        return r.bottom <= v.bottom + 1 && r.top >= v.top;
      });
      assert.ok(inView, 'the last row is wholly in view');
      await page.keyboard.press('Home');
      await frame(page);
      await pump(page, synthetic);
      assert.equal((await layout())[0][0], 0);
    });
  });

  test('a file of unknown columns shows its own columns under a banner, with nothing to run', async () => {
    await withView({}, async (page) => {
      const info = {
        rows: 2,
        columns: ['city', 'people'],
        banner:
          'Not a dataset vtask knows: its columns (city, people) are none of open-instruct, verl, TRL, OpenAI RFT, IFEval or question/answer rows.',
      };
      await deliver(page, { type: 'dataset', file: 'cities.parquet', info });
      assert.match(await page.textContent('.banner'), /Not a dataset vtask knows/);
      assert.equal(await page.$('header .convert'), null, 'no Convert');
      assert.deepEqual(await page.$$eval('.dataset-head .cell', (els) => els.map((e) => e.textContent)), [
        '#',
        'city',
        'people',
      ]);
      assert.deepEqual(await page.evaluate(() => window.__posted.at(-1)), { type: 'window', start: 0, end: 2 });
      await deliver(page, {
        type: 'rows',
        rows: [
          { n: 0, cells: ['Paris', '2100000'] },
          { n: 1, cells: ['<b>Oslo</b>', '700000'] },
        ],
      });
      assert.deepEqual(await cells(page, 1), ['1', '<b>Oslo</b>', '700000']);
      assert.equal(await page.$$eval('.dataset-rows button', (els) => els.length), 0);
      await page.screenshot({ path: path.join(RESULTS, 'dataset-unknown.png') });
    });
  });

  test('a file that cannot be read shows the error, not a blank page', async () => {
    await withView({}, async (page) => {
      await deliver(page, {
        type: 'error',
        file: 'broken.parquet',
        text: 'broken.parquet cannot be shown: not a Parquet file: it does not start and end with PAR1',
      });
      assert.equal(await page.textContent('h1'), 'broken.parquet');
      assert.match(await page.textContent('.open-error'), /not a Parquet file: it does not start and end with PAR1/);
      assert.equal(await page.$('.dataset-table'), null);
      // A message the page cannot read is said, not ignored.
      await deliver(page, { type: 'rows', rows: 'all of them' });
      assert.match(await page.textContent('.notice'), /could not read/);
    });
  });
});
