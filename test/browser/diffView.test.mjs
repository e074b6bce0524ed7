// The Compare Runs page (out/diffView.js) in real Chromium, on the page the extension serves
// (same CSP) with a stand-in host (test/browser/panelPage.mjs). The comparison is made by the
// core's own `diffRuns` from runs whose flips follow from the fixture below. The screenshot goes
// to test-results/diff-view.png.
//
//   node scripts/build.mjs && node --test test/browser/diffView.test.mjs
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { deliver, PAGE_SUITE, REPO, RESULTS, usePages } from './panelPage.mjs';

let core;

/**
 * 60 math tasks and 3 code tasks in two files, 4 samples each, verified at HEAD~1 and now: the
 * verifier edit flips sample 0 of every 4th math task from pass to fail (its band from too easy
 * to learnable), and the code tasks' sample 3 from fail to undecided (no band change).
 */
function fixture() {
  const tasks = [];
  const a = new Map();
  const b = new Map();
  for (let i = 0; i < 63; i++) {
    const code = i >= 60;
    const file = code ? 'data/code.vtask' : 'data/math.vtask';
    const task = i === 1 ? core.HOSTILE_ID : code ? `code/${i}` : `math/${i}`;
    tasks.push({ file, task, kind: code ? 'code' : 'math' });
    const flips = !code && i % 4 === 0;
    a.set(
      core.diffKey(file, task),
      code
        ? { band: 'learnable', pass_rate: 0.5, outcomes: ['pass', 'pass', 'fail', 'fail'] }
        : { band: 'too_easy', pass_rate: 1, outcomes: ['pass', 'pass', 'pass', 'pass'] },
    );
    b.set(
      core.diffKey(file, task),
      code
        ? { band: 'learnable', pass_rate: 0.5, outcomes: ['pass', 'pass', 'fail', 'undecided'] }
        : flips
          ? { band: 'learnable', pass_rate: 0.75, outcomes: ['fail', 'pass', 'pass', 'pass'] }
          : { band: 'too_easy', pass_rate: 1, outcomes: ['pass', 'pass', 'pass', 'pass'] },
    );
  }
  return core.diffRuns(tasks, a, b, { a: 'HEAD~1', b: 'working tree' });
}

describe('Compare Runs page in Chromium', PAGE_SUITE, () => {
  const pages = usePages({
    text: 'task id',
    check: async (page) => {
      for (const m of await page.evaluate(() => window.__posted))
        assert.ok(
          core.fromDiff.safeParse(m).success,
          `the page posted a message the host accepts: ${JSON.stringify(m)}`,
        );
    },
  });
  before(async () => {
    core = await loadBundled('test/browser/diffMessages.ts');
  });

  const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));

  test('the two sides, counts per kind, the band and sample flips a page at a time; a flip opens its task', async () => {
    await pages.with({ pageName: 'diff', viewport: { width: 1000, height: 900 } }, async (page) => {
      const diff = fixture();
      const msg = { type: 'diff', diff, samples: true };
      assert.ok(core.toDiff.safeParse(msg).success, 'the fixture is a message the page accepts');
      await deliver(page, { type: 'busy', text: 'Comparing HEAD~1 with working tree…' });
      assert.equal(await page.textContent('.busy'), 'Comparing HEAD~1 with working tree…');
      await deliver(page, msg);
      assert.equal(await page.textContent('.busy'), '', 'the busy line goes once the comparison is shown');
      assert.deepEqual(await texts(page, '.sides .side'), ['HEAD~1', 'working tree']);
      assert.equal(await page.textContent('.summary-line'), '63 tasks compared · 18 tasks flipped');
      // Per kind: tasks, band flips, sample flips.
      assert.deepEqual(
        await page.$$eval('.kind-row', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))),
        [
          ['code', '3', '0', '3'],
          ['math', '60', '15', '15'],
        ],
      );
      assert.equal(await page.textContent('.band-flips summary h2'), 'Tasks whose band flipped (15)');
      const firstBand = await page.textContent('.band-flips-list li:first-child');
      assert.equal(firstBand, 'math/0 data/math.vtask · math too easy → learnable (100% → 75%)');
      assert.equal(await page.textContent('.sample-flips summary h2'), 'Samples whose verdict flipped (18)');
      // 18 sample flips: one page of 50 holds them all; the code tasks' come last.
      assert.deepEqual((await texts(page, '.sample-flips-list li')).slice(-1), [
        'code/62 data/code.vtask · code · sample 4 fail → undecided',
      ]);
      await page.screenshot({ path: path.join(RESULTS, 'diff-view.png'), fullPage: true });
      // A task's link asks the host to open it.
      await page.click('.band-flips-list li:nth-child(2) .task-link');
      assert.deepEqual(await page.evaluate(() => window.__posted.at(-1)), {
        type: 'open',
        file: 'data/math.vtask',
        task: 'math/4',
      });
      await page.click('button.again');
      assert.deepEqual(await page.evaluate(() => window.__posted.at(-1)), { type: 'again' });
    });
  });

  test('many flips are paged; runs of the log have no sample verdicts, and the page says so; a hostile id stays text', async () => {
    await pages.with({ pageName: 'diff' }, async (page) => {
      const tasks = Array.from({ length: 120 }, (_, i) => ({
        file: 'big.vtask',
        task: i === 1 ? core.HOSTILE_ID : `t${i}`,
        kind: 'math',
      }));
      const runs = (band) =>
        new Map(tasks.map((t) => [core.diffKey(t.file, t.task), { band, pass_rate: band === 'too_hard' ? 0 : 1 }]));
      const diff = core.diffRuns(tasks, runs('too_easy'), runs('too_hard'), { a: 'model:a', b: 'model:b' });
      await deliver(page, { type: 'diff', diff, samples: false });
      assert.equal(await page.textContent('.band-flips .pager .range'), '1–50 of 120');
      assert.equal(await page.$$eval('.band-flips-list li', (l) => l.length), 50, 'one page of elements, not 120');
      await page.click('.band-flips .pager .next');
      assert.equal(await page.textContent('.band-flips .pager .range'), '51–100 of 120');
      assert.equal(await page.$$eval('.sample-flips', (l) => l.length), 0);
      assert.match(await page.textContent('.no-samples'), /Runs of the log keep bands, not verdicts/);
      await page.click('.band-flips .pager .prev');
      assert.equal(await page.textContent('.band-flips-list li:nth-child(2) .task-link'), core.HOSTILE_ID);
      assert.equal(await page.evaluate(() => window.__xss), undefined, 'no task id ran as script');
      // Files a side has no version of are listed under that side, with why.
      await deliver(page, {
        type: 'diff',
        diff: { ...diff, unread: [{ side: 'a', file: 'new.vtask', reason: 'not at HEAD~1' }] },
        samples: false,
      });
      assert.equal(await page.textContent('.unread-a summary h2'), 'Files A (model:a) has no version of (1)');
      assert.deepEqual(await texts(page, '.unread-a-list li'), ['new.vtask: not at HEAD~1']);
      // A comparison that cannot be read is said, not drawn.
      await deliver(page, { type: 'diff', diff: { ...diff, flips: -1 }, samples: false });
      assert.match(await page.textContent('.notice'), /could not read/);
      await deliver(page, {
        type: 'notice',
        level: 'warning',
        text: 'git revision nope: data/x.vtask cannot be read there',
      });
      assert.match(await page.textContent('.notice'), /git revision nope/);
    });
  });
});
