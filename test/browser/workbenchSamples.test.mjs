// The workbench's samples view (out/workbench.js) in real Chromium, with a stand-in host whose
// answers are the real worker's (out/workbenchWorker.js) over samples `vtask run` took from the
// project's OpenAI-compatible server: the Samples tab, the states with their counts, reason
// groups with counts that open and close, a group's rows, the query followed, and Add as cases
// on a group and on ticked samples. Screenshot: test-results/workbench-samples.png.
//
//   node scripts/build.mjs && node --test test/browser/workbenchSamples.test.mjs
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

let core;
let model;
let client;
let opened;
let dir;

const TASKS = (url) => `vtask: 1
models:
  local: { base_url: "${url}", model: test-model }
tasks:
  - id: clips
    prompt: How many clips?
    samples: 4
    verify: { math: { answer: "72" } }
  - id: pens
    prompt: How many pens?
    samples: 3
    verify: { math: { answer: "3" } }
  - id: capital
    prompt: Name the capital of France.
    samples: 2
    verify: { match: { answer: Paris, tag: answer } }
`;

describe('workbench samples view in Chromium', PAGE_SUITE, () => {
  const pages = usePages({ text: 'answer text' });
  before(async () => {
    core = await loadBundled('test/browser/workbenchSamplesMessages.ts');
    model = new core.OpenAIServer({
      answer: (ctx) =>
        ctx.prompt.includes('clips')
          ? 'So \\boxed{72}.'
          : ctx.prompt.includes('pens')
            ? 'Two, I think: \\boxed{2}. <img src=x onerror="window.__xss=1">'
            : 'It is Paris.',
    });
    await model.listen();
    ({ dir, client, opened } = await openWorkbenchData(core, 'vtask-workbench-samples-', async (data) => {
      fs.writeFileSync(path.join(data, 'a.vtask'), TASKS(model.url));
      const run = await core.runCliProcess(['run', path.join(data, 'a.vtask'), '--model', 'local'], {}, 60_000);
      assert.ok(run.code === 0 || run.code === 1, run.stderr);
    }));
  });

  after(async () => {
    await client?.close();
    await model?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the page, says the dataset is read, runs the body, then checks nothing went wrong. */
  const withPage = (body) =>
    pages.with({ pageName: 'workbench', viewport: { width: 1200, height: 800 } }, async (page) => {
      page.answered = 0;
      page.addCases = [];
      await deliverOpened(page, opened);
      await pump(page);
      await body(page);
    });

  /** The host's answer to one message of the page, from the real worker (undefined: none). */
  async function answer(page, m) {
    switch (m.type) {
      case 'view': {
        const r = await client.request({ op: 'view', query: m.query, ...(m.sort ? { sort: m.sort } : {}) });
        return 'error' in r
          ? { type: 'queryError', seq: m.seq, error: r.error, at: r.at }
          : { type: 'view', seq: m.seq, size: r.size };
      }
      case 'window':
        return {
          type: 'rows',
          seq: m.seq,
          start: m.start,
          rows: (await client.request({ op: 'window', start: m.start, end: m.end })).map(core.rowMessage),
        };
      case 'samples': {
        // The editor's settings name no model: the file's `local` profile is each task's.
        const r = await client.request({
          op: 'samples',
          state: m.state,
          ...(m.rows ? { rows: m.rows } : {}),
          ...(m.fresh ? { fresh: true } : {}),
          models: { userModels: {}, workspaceModels: {}, model: 'local' },
          trusted: true,
        });
        return { type: 'samples', seq: m.seq, ...r, groups: [...r.groups], notes: [...r.notes] };
      }
      case 'sampleWindow':
        return {
          type: 'sampleItems',
          seq: m.seq,
          group: m.group,
          start: m.start,
          items: await client.request({
            op: 'sampleWindow',
            collection: m.collection,
            group: m.group,
            start: m.start,
            end: m.end,
          }),
        };
      case 'addCases': {
        // The host asks the user which verdict the cases expect; here the user answers `fail`.
        page.addCases.push(m);
        const picked = await client.request({
          op: 'sampleCases',
          collection: m.collection,
          ...(m.group !== undefined ? { group: m.group } : {}),
          ...(m.ids ? { ids: m.ids } : {}),
        });
        const file = path.join(dir, 'data/a.vtask');
        const r = core.addCasesToText(
          fs.readFileSync(file, 'utf8'),
          picked.cases.map((c) => ({ task: c.task, response: c.response, expect: 'fail' })),
        );
        fs.writeFileSync(file, r.text);
        await deliver(page, { type: 'notice', level: 'info', text: `Added ${r.added} cases expecting fail.` });
        return { type: 'casesAdded', added: r.added };
      }
    }
    return undefined;
  }

  /** Answers what the page asked, as the extension's host does, until it asks for nothing more. */
  const pump = (page) => answerPage(page, core, answer);

  const groups = (page) =>
    page.$$eval('.sample-group', (els) =>
      els.map((g) => [g.dataset.group, g.querySelector('.group-count')?.textContent ?? '']),
    );
  const stateCounts = (page) =>
    page.$$eval('.sample-states .filter', (els) => els.map((b) => b.textContent.trim().replace(/\s+/, ' ')));
  const rows = (page, group) =>
    page.$$eval(`.sample-group[data-group="${group}"] .sample-row`, (els) =>
      els.map((r) => [
        r.querySelector('.open-task')?.textContent,
        r.querySelector('.open-panel')?.textContent,
        r.querySelector('.reason')?.textContent,
      ]),
    );
  const openGroup = async (page, group) => {
    await page.click(`.sample-group[data-group="${group}"] .group-toggle`);
    await pump(page);
  };

  test('the Samples tab: states with counts, reason groups with counts that open, close and follow the query', async () => {
    await withPage(async (page) => {
      await page.click('.tabs .tab[data-tab="samples"]');
      await pump(page);
      assert.equal(await page.getAttribute('.tabs .tab[data-tab="samples"]', 'aria-selected'), 'true');
      assert.ok(await page.$eval('.workbench-table', (t) => t.hidden), 'the table is hidden');
      assert.deepEqual(await stateCounts(page), ['All 9', 'Failed 5', 'Flipped 0', 'Undecided 0', 'Errored 0']);
      assert.deepEqual(await groups(page), [
        ['passed', '4'],
        ['wrong answer', '3'],
        ['no answer tag', '2'],
      ]);
      // Groups start closed; one opens to its samples, with links to the task and the panel.
      assert.equal(await page.$$eval('.sample-row', (r) => r.length), 0);
      await openGroup(page, 'wrong answer');
      assert.equal(
        await page.getAttribute('.sample-group[data-group="wrong answer"] .group-toggle', 'aria-expanded'),
        'true',
      );
      assert.deepEqual(await rows(page, 'wrong answer'), [
        ['pens', '#1', 'extracted 2 from \\boxed{2}, expected 3'],
        ['pens', '#2', 'extracted 2 from \\boxed{2}, expected 3'],
        ['pens', '#3', 'extracted 2 from \\boxed{2}, expected 3'],
      ]);
      // An answer is text, even one that looks like HTML.
      assert.match(await page.textContent('.sample-group[data-group="wrong answer"] .preview'), /<img src=x/);
      assert.equal(await page.textContent('.sample-group[data-group="wrong answer"] .range'), '1–3 of 3');
      // The links ask the host to open the task, and the task panel.
      await page.click('.sample-group[data-group="wrong answer"] .sample-row .open-task');
      await page.click('.sample-group[data-group="wrong answer"] .sample-row .open-panel');
      const asked = (await page.evaluate(() => window.__posted)).filter((m) => m.type === 'openSample');
      assert.deepEqual(
        asked.map((m) => m.where),
        ['task', 'panel'],
      );
      await openGroup(page, 'wrong answer');
      assert.equal(await page.$$eval('.sample-row', (r) => r.length), 0, 'the group closed');

      // A state filters the groups; the counts of every state stay.
      await page.click('.sample-states .filter[data-state="failed"]');
      await pump(page);
      assert.deepEqual(await groups(page), [
        ['wrong answer', '3'],
        ['no answer tag', '2'],
      ]);
      assert.equal(await page.getAttribute('.sample-states .filter[data-state="failed"]', 'aria-checked'), 'true');
      await page.click('.sample-states .filter[data-state="errored"]');
      await pump(page);
      assert.equal(await page.textContent('.sample-groups .empty'), 'No sample is errored among 9.');

      // The view follows the query: only the tasks it shows.
      await page.click('.sample-states .filter[data-state="all"]');
      await page.fill('.query', 'capital');
      await page.press('.query', 'Enter');
      await pump(page);
      assert.deepEqual(await groups(page), [['no answer tag', '2']]);
      await openGroup(page, 'no answer tag');
      await page.screenshot({ path: path.join(RESULTS, 'workbench-samples.png') });
    });
  });

  test('Add as cases on a group, and on ticked samples: the page asks the host, the cases are in the file', async () => {
    await withPage(async (page) => {
      await page.click('.tabs .tab[data-tab="samples"]');
      await pump(page);
      await page.click('.sample-group[data-group="no answer tag"] .add-group');
      await pump(page);
      assert.equal(page.addCases.length, 1);
      assert.equal(page.addCases[0].group, 'no answer tag');
      assert.equal(page.addCases[0].expect, undefined, 'the host asks the user which verdict');
      assert.match(await page.textContent('.notice'), /Added 2 cases expecting fail\./);
      const text = fs.readFileSync(path.join(dir, 'data/a.vtask'), 'utf8');
      assert.ok(
        text.endsWith(
          '    cases:\n      - response: It is Paris.\n        expect: fail\n      - response: It is Paris.\n        expect: fail\n',
        ),
        text,
      );

      // Ticked samples: the button is off until one is ticked.
      assert.ok(await page.$eval('.add-ticked', (b) => b.disabled));
      await openGroup(page, 'passed');
      const ticks = await page.$$('.sample-group[data-group="passed"] .tick');
      await ticks[0].check();
      await ticks[2].check();
      assert.equal(await page.textContent('.ticked'), '2 ticked');
      await page.click('.add-ticked');
      await pump(page);
      assert.equal(page.addCases[1].ids.length, 2);
      assert.equal(await page.textContent('.ticked'), '', 'the ticks are cleared once added');
      const clips = fs.readFileSync(path.join(dir, 'data/a.vtask'), 'utf8');
      assert.equal(clips.split('So \\boxed{72}.').length - 1, 2, 'two samples of clips are cases now');
    });
  });
});
