// Benchmarks the dataset dashboard at 100,000 tasks in 1,000 files run by two models: the
// extension's comparison of the two (computed once per statistics, then paged), and the page
// drawing the statistics in Chromium (the message handled to a frame drawn). The last line is
// one JSON object of figures.
//   node scripts/build.mjs && node scripts/bench-dashboard.mjs
import { loadBundled } from './bundle.mjs';
import { chromiumPath, deliver, launchBrowser, openPanel, startPanelServer } from '../test/browser/panelPage.mjs';

const core = await loadBundled('test/browser/dashboardMessages.ts');
const { results, ...stats } = core.makeStats({ files: 1000, tasksPerFile: 100 });
const figures = {};
let t0 = performance.now();
const pages = new core.ComparisonPages(results);
const first = pages.page('model-a', 'model-b', undefined, 0);
figures.dashboard_compare_100k_ms = Math.round(performance.now() - t0);
t0 = performance.now();
pages.page('model-a', 'model-b', [0, 0], 3);
figures.dashboard_compare_page_ms = +(performance.now() - t0).toFixed(1);
console.log(`comparison of 2 models over 100,000 tasks: ${figures.dashboard_compare_100k_ms} ms, then ${figures.dashboard_compare_page_ms} ms a page`);

if (chromiumPath()) {
  const server = await startPanelServer();
  const browser = await launchBrowser();
  try {
    const page = await openPanel(browser, server, { pageName: 'dashboard' });
    await page.evaluate((s) => { window.__stats = s; }, { type: 'stats', stats, folder: 'bench' });
    const drawn = await page.evaluate(() => { const t = performance.now(); return window.__deliver(window.__stats).then(() => performance.now() - t); });
    const compared = await page.evaluate((c) => { const t = performance.now(); return window.__deliver(c).then(() => performance.now() - t); }, { type: 'comparison', comparison: first });
    figures.dashboard_draw_100k_ms = Math.round(drawn);
    figures.dashboard_draw_comparison_ms = Math.round(compared);
    console.log(`dashboard page, 100,000 tasks in 1,000 files: drawn in ${figures.dashboard_draw_100k_ms} ms, the comparison in ${figures.dashboard_draw_comparison_ms} ms`);
  } finally {
    await browser.close();
    await server.close();
  }
} else console.log('dashboard page: skipped (Chromium not found)');
console.log(JSON.stringify(figures));
