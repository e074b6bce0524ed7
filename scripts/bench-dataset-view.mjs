// The dataset table view's speed on 100,000 rows. (a) The core (src/core/datasets/datasetView.ts)
// over a verl Parquet file written by the exporter: opening it (footer and first row), the first
// window, windows at random places (each a block not read before) and windows of a scroll
// through blocks already read. (b) The page in Chromium (the browser tests' static page, the
// core answering its window requests in this process): from a scroll to a random place to its
// rows drawn, reads included. The last line is one JSON object of figures.
//   node scripts/bench-dataset-view.mjs [--rows N] [--runs N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled } from './bundle.mjs';
import {
  chromiumPath,
  deliver,
  launchBrowser,
  openPanel,
  requirePanelBuilt,
  startPanelServer,
} from '../test/browser/panelPage.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('--rows', 100_000);
const RUNS = arg('--runs', 30);
const ROW_HEIGHT = 30; // src/webview/datasetTable.ts
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const fig = (x) => +x.toFixed(1);
const summary = (xs) => ({
  median_ms: fig(quantile(xs, 0.5)),
  p95_ms: fig(quantile(xs, 0.95)),
  max_ms: fig(Math.max(...xs)),
});
// A fixed sequence of places, so two runs measure the same reads.
let seed = 7;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

const core = await loadBundled('test/browser/datasetMessages.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-dataset-'));
const file = path.join(dir, 'train.parquet');
let t = performance.now();
await core.writeDataset(file, ROWS);
const figures = {
  bench: 'dataset-view',
  rows: ROWS,
  file_mb: +(fs.statSync(file).size / 1e6).toFixed(1),
  write_ms: Math.round(performance.now() - t),
  node: process.version,
};

// (a) The core.
t = performance.now();
const table = await core.DatasetTable.open(file);
figures.open_ms = fig(performance.now() - t);
t = performance.now();
await table.window(0, 100);
figures.first_window_ms = fig(performance.now() - t);
const cold = [];
for (let i = 0; i < RUNS; i++) {
  const at = Math.floor(random() * (ROWS - 100));
  t = performance.now();
  await table.window(at, at + 100);
  cold.push(performance.now() - t);
}
figures.random_window = summary(cold);
const warm = [];
for (let at = 50_000; at < 51_000; at += 50) {
  t = performance.now();
  await table.window(at, at + 50);
  warm.push(performance.now() - t);
}
figures.scroll_window = summary(warm);
console.log(
  `dataset view, ${ROWS.toLocaleString('en-US')} rows (${figures.file_mb} MB verl Parquet): open ${figures.open_ms} ms, first window ${figures.first_window_ms} ms; a window at a random place: median ${figures.random_window.median_ms} ms, p95 ${figures.random_window.p95_ms} ms; scrolling through read blocks: median ${figures.scroll_window.median_ms} ms`,
);

// (b) The page in Chromium.
if (chromiumPath()) {
  requirePanelBuilt();
  const server = await startPanelServer();
  const browser = await launchBrowser();
  try {
    const page = await openPanel(browser, server, { pageName: 'dataset' });
    let answered = 0;
    const pump = async () => {
      for (;;) {
        const all = await page.evaluate(() => window.__posted);
        const windows = all.slice(answered).filter((m) => m.type === 'window');
        answered = all.length;
        if (!windows.length) return;
        for (const w of windows) await deliver(page, { type: 'rows', rows: await table.window(w.start, w.end) });
      }
    };
    t = performance.now();
    await deliver(page, {
      type: 'dataset',
      file: 'train.parquet',
      info: { rows: table.info.rows, format: table.info.format, columns: [...table.info.columns] },
    });
    await pump();
    figures.page_open_ms = fig(performance.now() - t);
    const jumps = [];
    for (let i = 0; i < RUNS; i++) {
      const y = Math.floor(random() * ROWS) * ROW_HEIGHT;
      t = performance.now();
      await page.$eval(
        '.dataset-rows',
        (vp, top) => {
          vp.scrollTop = top;
        },
        y,
      );
      await page.evaluate(() => window.__frame());
      await pump();
      const n = Math.floor(Math.min(y, (ROWS - 1) * ROW_HEIGHT) / ROW_HEIGHT);
      const drawn = await page.$eval(
        '.dataset-rows',
        (vp, at) => !!vp.querySelector(`#row-${at} .cell:nth-child(2)`)?.textContent?.startsWith('big/'),
        n,
      );
      jumps.push(performance.now() - t);
      if (!drawn) throw new Error(`row ${n} was not drawn after the scroll`);
    }
    figures.page_jump = summary(jumps);
    figures.page_rows_in_dom = await page.$$eval('.dataset-rows .dataset-row', (els) => els.length);
    console.log(
      `dataset view page in Chromium: first rows drawn ${figures.page_open_ms} ms after the file opened; a jump to a random row, read and drawn: median ${figures.page_jump.median_ms} ms, p95 ${figures.page_jump.p95_ms} ms; ${figures.page_rows_in_dom} rows in the page`,
    );
    await page.context().close();
  } finally {
    await browser.close();
    await server.close();
  }
} else console.log('dataset view page: skipped (Chromium not found; set VTASK_CHROMIUM)');
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));
