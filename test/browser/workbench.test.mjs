// The workbench page (out/workbench.js) in real Chromium, on the page the extension serves
// (same CSP) with a stand-in host (test/browser/panelPage.mjs) whose answers are the real
// index's: a folder of a task file, JSONL rows and a Parquet file written by the exporter, read
// by the workbench's worker thread (out/workbenchWorker.js). Sort, query, selection, column
// resizing and the label column, as a user sees them. Screenshots go to test-results/workbench-*.png.
//
//   node scripts/build.mjs && node --test test/browser/workbench.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import {
  answerPage,
  deliver,
  deliverOpened,
  openWorkbenchData,
  PAGE_SUITE,
  REPO,
  RESULTS,
  usePages,
} from './panelPage.mjs';

const PARQUET_ROWS = 400;

let core;
let client;
let opened;
let dir;

const TASKS = `vtask: 1
tasks:
  - id: add
    prompt: What is 17 + 25?
    verify:
      math: { answer: "42" }
    cases:
      - { response: "42", expect: pass }
      - { response: "41", expect: pass }
  - id: capital
    prompt: Name the capital of France.
    verify:
      match: { answer: Paris }
`;

describe('workbench page in Chromium', PAGE_SUITE, () => {
  const pages = usePages({ text: 'dataset text' });
  before(async () => {
    core = await loadBundled('test/browser/workbenchMessages.ts');
    ({ dir, client, opened } = await openWorkbenchData(core, 'vtask-workbench-page-', async (data) => {
      fs.writeFileSync(path.join(data, 'a.vtask'), TASKS);
      fs.writeFileSync(
        path.join(data, 'qa.jsonl'),
        `${JSON.stringify({ question: 'How many legs has a spider?', answer: '8', id: 'spider' })}\n`,
      );
      await core.writeDataset(path.join(data, 'train.parquet'), PARQUET_ROWS);
    }));
  });

  after(async () => {
    await client?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the page, says the dataset is read, runs the body, then checks nothing went wrong. */
  const withPage = (body) =>
    pages.with({ pageName: 'workbench', viewport: { width: 1400, height: 800 } }, async (page) => {
      page.answered = 0;
      page.progressSeen = [];
      await deliverOpened(page, opened);
      await pump(page);
      await body(page);
    });

  /** The host's answer to one message of the page, from the real worker (undefined: none). */
  async function answer(page, m) {
    let reply;
    if (m.type === 'view') {
      const r = await client.request({ op: 'view', query: m.query, ...(m.sort ? { sort: m.sort } : {}) });
      reply =
        'error' in r
          ? { type: 'queryError', seq: m.seq, error: r.error, at: r.at }
          : { type: 'view', seq: m.seq, size: r.size };
    } else if (m.type === 'window') {
      reply = {
        type: 'rows',
        seq: m.seq,
        start: m.start,
        rows: (await client.request({ op: 'window', start: m.start, end: m.end })).map(core.rowMessage),
      };
    } else if (m.type === 'selectRange')
      reply = { type: 'select', rows: await client.request({ op: 'rows', start: m.start, end: m.end }) };
    else if (m.type === 'label') {
      // The host asks the user for the label; here the user answers `checked`.
      const done = await client.request({
        op: 'label',
        rows: m.rows,
        label: m.clear ? undefined : (m.label ?? 'checked'),
      });
      reply = { type: 'labelled', changed: done.changed };
    } else if (m.type === 'run' && !m.confirmed) {
      // The estimate as the host makes it: the rows' earlier runs, each task's samples, a price.
      const rows = await client.request({ op: 'rowsByNumber', rows: m.rows });
      const planned = rows.map((row) => ({
        row,
        samples: m.samples ?? 4,
        model: 'recorded',
        price: { prompt: 1, completion: 2 },
      }));
      reply = {
        type: 'confirmRun',
        rows: m.rows,
        ...(m.samples ? { samples: m.samples } : {}),
        text: core.estimateText(core.estimateRun(opened.models, planned)),
      };
    } else if (m.type === 'audit') {
      // The audit as the host runs it: progress, each row's findings into the index, then the outcome.
      // The selection packed in the worker, as the host asks for it, then read as the bulk worker reads it.
      const s = core.unpackSelection(await client.request({ op: 'selection', rows: m.rows }));
      const audits = await core.auditSelection(
        s,
        { root: dir, trusted: false, onProgress: (done, total) => page.progressSeen.push([done, total]) },
        (found) => void client.request({ op: 'findings', counts: found.map((a) => [a.n, a.audit.findings.length]) }),
      );
      for (const [done, total] of page.progressSeen)
        await deliver(page, { type: 'bulk', action: 'audit', done, total });
      page.audits = audits;
      reply = {
        type: 'bulkDone',
        action: 'audit',
        level: 'info',
        text: `audit of ${audits.length} tasks: done`,
      };
    }
    return reply;
  }

  /** Answers what the page asked, as the extension's host does, until it asks for nothing more. */
  const pump = (page) => answerPage(page, core, answer);

  const column = (page, key) =>
    page.$$eval(`.wb-rows .wb-row .cell[data-key="${key}"]`, (els) => els.map((e) => e.textContent));
  const sortedRows = (page) =>
    page.$$eval('.wb-rows .wb-row', (els) => els.map((e) => Number(e.dataset.at)).sort((a, b) => a - b));
  /** A column's cells in view order. */
  async function inOrder(page, key) {
    const cells = await page.$$eval(
      `.wb-rows .wb-row`,
      (els, k) =>
        els.map((e) => [Number(e.dataset.at), e.querySelector(`.cell[data-key="${k}"]`)?.textContent ?? null]),
      key,
    );
    return cells.sort((a, b) => a[0] - b[0]).map((c) => c[1]);
  }
  const typeQuery = async (page, q) => {
    await page.fill('.query', q);
    await page.press('.query', 'Enter');
    await pump(page);
  };

  test('every task in one table; a header click sorts, again sorts the other way', async () => {
    await withPage(async (page) => {
      assert.equal(await page.textContent('h1'), 'data');
      assert.equal(await page.textContent('header .file'), `${PARQUET_ROWS + 3} tasks in 3 files`);
      assert.equal(await page.textContent('.count'), `${PARQUET_ROWS + 3} matching`);
      const heads = await page.$$eval('.wb-head .cell .label', (els) => els.map((e) => e.textContent));
      assert.deepEqual(heads, [
        'Task id',
        'File',
        'Kind',
        'Prompt',
        'Cases',
        'recorded',
        'Signal',
        'Samples',
        'Tokens',
        'Cost',
        'Findings',
        'Label',
      ]);
      const first = await inOrder(page, 'id');
      assert.deepEqual(first.slice(0, 2), ['add', 'capital']);
      assert.deepEqual((await inOrder(page, 'cases')).slice(0, 2), ['2 · 1 fail', '']);
      assert.deepEqual((await inOrder(page, 'file')).slice(0, 4), [
        'data/a.vtask:3',
        'data/a.vtask:10',
        'data/qa.jsonl:1',
        'data/train.parquet · row 0',
      ]);
      // A hostile prompt is text.
      assert.ok((await column(page, 'prompt')).some((t) => t.includes('<img src=x')));

      await page.click('.wb-head .cell[data-key="id"]');
      await pump(page);
      assert.equal(await page.getAttribute('.wb-head .cell[data-key="id"]', 'aria-sort'), 'ascending');
      const up = await inOrder(page, 'id');
      assert.deepEqual(up.slice(0, 3), ['add', 'big/000000', 'big/000001']);
      await page.click('.wb-head .cell[data-key="id"]');
      await pump(page);
      assert.equal(await page.getAttribute('.wb-head .cell[data-key="id"]', 'aria-sort'), 'descending');
      assert.deepEqual((await inOrder(page, 'id')).slice(0, 3), [
        'spider',
        'capital',
        core.rowTaskId(PARQUET_ROWS - 1),
      ]);
      // By the recorded pass rate: rows with none go last, whichever way.
      await page.click('.wb-head .cell[data-key="rate:recorded"]');
      await pump(page);
      assert.deepEqual((await inOrder(page, 'rate:recorded')).slice(0, 2), ['50% learnable', '50% learnable']);
      assert.ok(await sortedRows(page));
    });
  });

  test('the query box filters, and a query that cannot be read says why and where', async () => {
    await withPage(async (page) => {
      await typeQuery(page, 'kind:math');
      assert.equal(await page.textContent('.count'), `${PARQUET_ROWS / 4 + 2} matching`);
      assert.ok((await column(page, 'kind')).every((k) => k === 'math'));
      await typeQuery(page, 'model:recorded band:learnable sea');
      assert.equal(await page.textContent('.count'), `${PARQUET_ROWS / 4} matching`);
      assert.ok((await column(page, 'prompt')).every((p) => p.startsWith('Describe the sea')));
      await typeQuery(page, 'failing>0');
      assert.deepEqual(await column(page, 'id'), ['add']);
      await typeQuery(page, 'rate<<1');
      assert.equal(await page.textContent('.query-error'), 'Column 6: `rate<` needs a number after it, not `<1`');
      assert.equal(await page.getAttribute('.query', 'aria-invalid'), 'true');
      // The rows of the last good query stay.
      assert.deepEqual(await column(page, 'id'), ['add']);
      await typeQuery(page, 'spider');
      assert.equal(await page.textContent('.query-error'), '');
      assert.deepEqual(await column(page, 'id'), ['spider']);
      // A message the page cannot read is said, and the table stays as it was.
      await deliver(page, { type: 'view', rows: 'all of them' });
      assert.match(await page.textContent('.notice'), /The workbench received an update it could not read/);
      assert.deepEqual(await column(page, 'id'), ['spider']);
    });
  });

  test('click, ctrl-click, shift-click and select all matching', async () => {
    await withPage(async (page) => {
      const selected = () =>
        page.$$eval('.wb-rows .wb-row.selected', (els) => els.map((e) => Number(e.dataset.at)).sort((a, b) => a - b));
      const row = (at) => `.wb-rows .wb-row[data-at="${at}"] .cell[data-key="id"]`;
      await page.click(row(1));
      assert.deepEqual(await selected(), [1]);
      await page.click(row(3), { modifiers: ['Control'] });
      assert.deepEqual(await selected(), [1, 3]);
      assert.equal(await page.textContent('.selection'), '2 selected');
      await page.click(row(3), { modifiers: ['Control'] });
      assert.deepEqual(await selected(), [1]);
      // A shift-click selects from the last row clicked (a ctrl-click too) to this one.
      await page.click(row(6), { modifiers: ['Shift'] });
      assert.deepEqual(await selected(), [3, 4, 5, 6]);
      await page.click(row(1), { modifiers: ['Shift', 'Control'] });
      assert.deepEqual(await selected(), [1, 2, 3, 4, 5, 6]);
      assert.equal(await page.getAttribute('.wb-rows .wb-row[data-at="4"]', 'aria-selected'), 'true');
      await typeQuery(page, 'kind:match');
      await page.click('.select-all');
      await pump(page);
      // The 6 rows chosen before, and every match task (two in ten of the Parquet rows, and `capital`).
      const matching = PARQUET_ROWS / 2 + 1;
      const before = [1, 2, 3, 4, 5, 6];
      const all = core.RowSet.decode(await client.request({ op: 'rows', start: 0, end: matching }));
      assert.equal(all.size, matching);
      await client.request({ op: 'view', query: '' });
      const earlier = (await client.request({ op: 'window', start: 0, end: 7 })).map((r) => r.n);
      const union = new Set([...all, ...before.map((i) => earlier[i])]);
      assert.equal(await page.textContent('.selection'), `${union.size.toLocaleString('en-US')} selected`);
      await page.click('.clear');
      assert.equal(await page.textContent('.selection'), '');
    });
  });

  test('select all matching, then deselect one: the selection the page sends holds the rest, and the audit acts on them', async () => {
    await withPage(async (page) => {
      await page.click('.select-all');
      await pump(page);
      const total = opened.rows;
      assert.equal(await page.textContent('.selection'), `${total} selected`);
      const capital = '.cell[data-key="id"]:text-is("capital")';
      await page.click(`.wb-rows .wb-row ${capital}`, { modifiers: ['Control'] });
      assert.equal(await page.textContent('.selection'), `${total - 1} selected`);
      assert.equal(await page.getAttribute(`.wb-rows .wb-row:has(${capital})`, 'aria-selected'), 'false');
      await page.click('.audit-selected');
      const sent = (await page.evaluate(() => window.__posted)).at(-1);
      assert.equal(sent.type, 'audit');
      // Runs of rows, not a list of them: every row but one is two runs.
      const rows = core.RowSet.decode(sent.rows);
      assert.ok(sent.rows.length < 20, sent.rows);
      const capitalRow = (await client.request({ op: 'window', start: 0, end: total })).find(
        (r) => r.id === 'capital',
      ).n;
      assert.equal(rows.size, total - 1);
      assert.ok(!rows.has(capitalRow), 'the row taken out is not sent');
      await pump(page);
      // Every task still selected is audited: the task file's, and the JSONL and Parquet rows'.
      const tasks = (await client.request({ op: 'window', start: 0, end: total }))
        .filter((r) => r.id !== 'capital' && !r.error && r.kind !== null)
        .map((r) => `${r.file}:${r.id}`);
      assert.ok(tasks.some((t) => t.endsWith('.jsonl:spider')) && tasks.some((t) => t.includes('.parquet:')));
      assert.deepEqual(page.audits.map((a) => `${a.file}:${a.audit.task}`).sort(), tasks.sort());
      assert.deepEqual(
        [page.progressSeen[0], page.progressSeen.at(-1)],
        [
          [0, tasks.length],
          [tasks.length, tasks.length],
        ],
      );
      assert.match(await page.textContent('.notice'), new RegExp(`audit of ${tasks.length} tasks: done`));
    });
  });

  test('a column is resized by dragging its header edge; labels show and filter', async () => {
    await withPage(async (page) => {
      const width = () => page.$eval('.wb-head .cell[data-key="prompt"]', (c) => c.getBoundingClientRect().width);
      const w0 = await width();
      const grip = await page.$('.wb-head .cell[data-key="prompt"] .resize');
      const box = await grip.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 120, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      const w1 = await width();
      assert.ok(Math.abs(w1 - w0 - 120) < 6, `the prompt column grew by the drag: ${w0} → ${w1}`);
      const cellWidth = await page.$eval(
        '.wb-rows .wb-row .cell[data-key="prompt"]',
        (c) => c.getBoundingClientRect().width,
      );
      assert.ok(Math.abs(cellWidth - w1) < 1, 'the rows follow their header');
      // Sorting is not triggered by the drag.
      assert.equal(await page.getAttribute('.wb-head .cell[data-key="prompt"]', 'aria-sort'), 'none');

      // Labels as the host sets them (the worker's index): shown, and filtered by.
      await client.request({ op: 'view', query: 'kind:match' });
      const rows = await client.request({ op: 'rows', start: 0, end: 2 });
      await client.request({ op: 'label', rows, label: 'bad_gold' });
      await typeQuery(page, 'label:bad_gold');
      assert.equal(await page.textContent('.count'), '2 matching');
      assert.deepEqual(await column(page, 'label'), ['bad_gold', 'bad_gold']);
      await typeQuery(page, 'kind:match label:!bad_gold');
      assert.equal(await page.textContent('.count'), `${PARQUET_ROWS / 2 + 1 - 2} matching`);
      await client.request({ op: 'label', rows, label: undefined });

      // Label… on a selection: the label is written (here, the task file's meta.review) and shown.
      await typeQuery(page, '');
      assert.ok(await page.$eval('.label-set', (b) => b.disabled), 'nothing selected: nothing to label');
      await page.click('.wb-rows .wb-row[data-at="0"] .cell[data-key="id"]');
      await page.click('.wb-rows .wb-row[data-at="1"] .cell[data-key="id"]', { modifiers: ['Control'] });
      await page.click('.label-set');
      await pump(page);
      assert.deepEqual((await inOrder(page, 'label')).slice(0, 3), ['checked', 'checked', '']);
      assert.match(
        fs.readFileSync(path.join(dir, 'data/a.vtask'), 'utf8'),
        /match: \{ answer: Paris \}\n    meta: \{ review: checked \}\n/,
      );
      await page.screenshot({ path: path.join(RESULTS, 'workbench-table.png') });
      await page.click('.label-clear');
      await pump(page);
      assert.deepEqual((await inOrder(page, 'label')).slice(0, 2), ['', '']);
      assert.equal(fs.readFileSync(path.join(dir, 'data/a.vtask'), 'utf8'), TASKS);
    });
  });

  test('the toolbar acts on the selection: a run is confirmed with its estimate, an audit shows findings and progress, the panel steps', async () => {
    await withPage(async (page) => {
      const actions = ['.run-selected', '.audit-selected', '.export-selected', '.panel-selected'];
      for (const a of actions) assert.ok(await page.$eval(a, (b) => b.disabled), `${a}: nothing selected, disabled`);
      await page.click('.wb-rows .wb-row[data-at="0"] .cell[data-key="id"]');
      await page.click('.wb-rows .wb-row[data-at="1"] .cell[data-key="id"]', { modifiers: ['Control'] });
      for (const a of actions) assert.equal(await page.$eval(a, (b) => b.disabled), false, `${a}: enabled`);
      const posted = async () => (await page.evaluate(() => window.__posted)).at(-1);

      // Run…: the host's estimate in a dialog; another sample count asks for it again; Run confirms.
      await page.click('.run-selected');
      await pump(page);
      assert.equal(
        await page.textContent('.run-confirm .estimate'),
        'Run 2 tasks: 8 samples. Tokens and cost: no earlier run of these tasks reported tokens to estimate them from.',
      );
      await page.fill('.run-confirm .samples', '10');
      await page.waitForFunction(() => window.__posted.at(-1)?.samples === 10);
      await pump(page);
      assert.match(await page.textContent('.run-confirm .estimate'), /^Run 2 tasks: 20 samples\./);
      assert.equal(await page.inputValue('.run-confirm .samples'), '10');
      await page.screenshot({ path: path.join(RESULTS, 'workbench-estimate.png') });
      await page.click('.run-confirmed');
      const rows = (await posted()).rows;
      assert.deepEqual(await posted(), { type: 'run', rows, samples: 10, confirmed: true });
      assert.equal(await page.textContent('.run-confirm'), '', 'the dialog closed');
      page.answered++;

      // Audit: progress, then each row's findings in the table and the outcome as a notice (the
      // third row, not selected, keeps what it had).
      const third = (await inOrder(page, 'findings'))[2];
      await page.click('.audit-selected');
      await pump(page);
      assert.deepEqual(page.progressSeen, [
        [0, 2],
        [2, 2],
      ]);
      const counts = page.audits.map((a) => String(a.audit.findings.length));
      assert.deepEqual((await inOrder(page, 'findings')).slice(0, 3), [...counts, third]);
      assert.match(await page.textContent('.notice'), /audit of 2 tasks: done/);
      assert.equal(await page.textContent('.bulk-progress'), '', 'the progress is gone');

      // A bulk action under way: its progress, and Cancel asks the host to stop it.
      await deliver(page, { type: 'bulk', action: 'export', done: 1, total: 2 });
      assert.match(await page.textContent('.bulk-progress'), /Exporting: 1 of 2 tasks/);
      await page.screenshot({ path: path.join(RESULTS, 'workbench-bulk.png') });
      await page.click('.bulk-cancel');
      assert.deepEqual(await posted(), { type: 'cancel' });
      await page.click('.export-selected');
      assert.deepEqual(await posted(), { type: 'export', rows });

      // Open in panel: the first task; next and previous through the others.
      await page.click('.panel-selected');
      assert.deepEqual(await posted(), { type: 'openPanel', rows });
      await deliver(page, { type: 'stepping', at: 0, count: 2, id: 'add' });
      assert.match(await page.textContent('.stepping'), /In the task panel: add \(1 of 2\)/);
      assert.ok(await page.$eval('.step-previous', (b) => b.disabled), 'no task before the first');
      await page.click('.step-next');
      assert.deepEqual(await posted(), { type: 'step', by: 1 });
      page.answered = (await page.evaluate(() => window.__posted)).length;
    });
  });
});
