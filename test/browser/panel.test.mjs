// The task panel (out/webview.js) in real Chromium, on a static page with the panel's CSP and
// a stand-in for VS Code's webview API (test/browser/panelPage.mjs). The messages it gets are
// made by the core at test time (test/browser/panelMessages.ts): a fixture task file parsed,
// scripted answers (hostile ones included) verified by the real verifiers, a verifier edit
// re-verified, the view built by panelTaskView. What the panel posts back is checked against
// the protocol's own schema. Screenshots go to test-results/panel-*.png.
//
//   node scripts/build.mjs && node --test test/browser/      (or: npm test -- browser)
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { deliver, PAGE_SUITE, REPO, RESULTS, THEMES, usePages } from './panelPage.mjs';

const ROW_HEIGHT = 52; // src/webview/sampleList.ts: rows have one height, so the list is virtualised

/** Which samples each filter keeps (src/webview/filter.ts): errors are not wrong answers. */
const KEEPS = {
  all: () => true,
  pass: (s) => s.pass,
  fail: (s) => !s.pass && !s.error,
  flipped: (s) => s.flip !== undefined,
  errors: (s) => s.error !== undefined,
};

let core;
let fx;

describe('task panel in Chromium', PAGE_SUITE, () => {
  const pages = usePages();
  before(async () => {
    core = await loadBundled('test/browser/panelMessages.ts');
    fx = await core.panelFixture(REPO);
  });
  const withPanel = pages.with;

  const shot = (page, name) => page.screenshot({ path: path.join(RESULTS, `panel-${name}.png`), fullPage: true });
  /** The sample indices of the rows in the page, in order. */
  const rows = (page) => page.$$eval('.sample-list .sample', (els) => els.map((e) => Number(e.dataset.index)));
  const posted = (page) => page.evaluate(() => window.__posted);
  /** What the panel posted since `from`, each checked against the protocol's schema. */
  async function postedSince(page, from) {
    const all = await posted(page);
    const fresh = all.slice(from);
    for (const m of fresh)
      assert.ok(
        core.fromPanel.safeParse(m).success,
        `the panel posted a message the host accepts: ${JSON.stringify(m)}`,
      );
    return fresh;
  }
  const frame = (page) => page.evaluate(() => window.__frame());
  /** Scrolls the list so the sample at `position` is in view, and waits for the rows to be drawn. */
  async function scrollTo(page, position) {
    await page.$eval(
      '.sample-list',
      (vp, y) => {
        vp.scrollTop = y;
      },
      position * ROW_HEIGHT,
    );
    await frame(page);
    await frame(page);
  }
  async function selectSample(page, index) {
    const position = fx.sea.task.samples.findIndex((s) => s.index === index);
    await scrollTo(page, Math.max(0, position - 1));
    await page.click(`.sample[data-index="${index}"]`);
  }
  /** True when the row of sample `index` is drawn and wholly inside the list's viewport. */
  const inView = (page, index) =>
    page.$eval(`.sample[data-index="${index}"]`, (row) => {
      const r = row.getBoundingClientRect();
      const v = row.closest('.sample-list').getBoundingClientRect();
      return r.top >= v.top - 1 && r.bottom <= v.bottom + 1;
    });
  const expected = (samples, filter) => samples.filter(KEEPS[filter]).map((s) => s.index);
  /** The rows drawn are the first of `indices`, and the list is as tall as all of them. */
  async function assertShows(page, indices, what) {
    const drawn = await rows(page);
    assert.deepEqual(drawn, indices.slice(0, drawn.length), `${what}: rows in order`);
    assert.ok(drawn.length >= Math.min(indices.length, 6), `${what}: the visible rows are drawn (${drawn.length})`);
    const height = await page.$eval('.sample-list .spacer', (e) => e.style.height);
    assert.equal(height, `${indices.length * ROW_HEIGHT}px`, `${what}: the list holds ${indices.length} rows`);
  }

  test('renders the task: prompt, verifier form, cases, run summary and charts', async () => {
    const task = fx.sea.task;
    await withPanel({}, async (page) => {
      assert.deepEqual(await posted(page), [{ type: 'ready' }]);
      await deliver(page, fx.sea);
      assert.equal(await page.textContent('h1'), 'panel/sea');
      assert.equal(await page.textContent('header .file'), 'test/fixtures/panel/panel.vtask');
      assert.deepEqual(
        await page.$$eval('.message .content', (els) => els.map((e) => e.textContent)),
        task.messages.map((m) => m.content),
      );

      // The form: one row per form row, each scalar an input holding its value.
      assert.deepEqual(
        await page.$$eval('.form .row', (els) => els.map((e) => e.className)),
        task.form.map((r) => `row row-${r.type}`),
      );
      assert.deepEqual(await page.$$eval('.form .heading', (els) => els.map((e) => e.textContent)), [
        'constraints',
        'length_constraints:number_words',
        'punctuation:no_comma',
      ]);
      const field = (name) => task.form.find((r) => r.type === 'field' && r.label === name);
      const words = await page.$(`[data-path="${cssString(JSON.stringify(field('num_words').path))}"]`);
      assert.deepEqual(await words.evaluate((e) => [e.tagName, e.type, e.value]), ['INPUT', 'number', '25']);
      const relation = await page.$(`[data-path="${cssString(JSON.stringify(field('relation').path))}"]`);
      assert.equal(await relation.evaluate((e) => e.tagName), 'SELECT');
      assert.equal(await relation.inputValue(), 'less than');
      assert.deepEqual(await relation.evaluate((e) => [...e.options].map((o) => o.value)), field('relation').options);
      assert.equal(
        await page.textContent('.form label[for="f-' + cssString(JSON.stringify(field('num_words').path)) + '"]'),
        'num_words',
      );
      const add = task.form.find((r) => r.type === 'add');
      assert.equal(await page.getAttribute('.form .add input', 'placeholder'), 'Add constraint');
      assert.equal(await page.$$eval('.form .add datalist option', (els) => els.length), add.options.length);
      assert.equal(await page.$$eval('.form .row-heading button[aria-label^="Remove"]', (els) => els.length), 2);

      // The cases, with their verdicts.
      assert.match(await page.textContent('.section:nth-of-type(3) h2'), /^Cases \(3\)$/);
      const cases = await page.$$eval('ol.cases li', (els) =>
        els.map((e) => ({
          cls: e.className,
          verdict: e.querySelector('.verdict').textContent,
          response: e.querySelector('.response').textContent,
        })),
      );
      assert.deepEqual(
        cases,
        task.cases.map((c) => ({
          cls: 'case ok',
          verdict: `expected ${c.expected}, got ${c.actual}${c.name ? ` · ${c.name}` : ''}`,
          response: c.response,
        })),
      );

      // The run: pass rate, interval, band, flips.
      const st = task.run.stats;
      const summary = await page.textContent('.run-summary');
      assert.ok(summary.includes(`${st.passed}/${st.samples} pass · pass@1 ${st.passRate.toFixed(2)}`), summary);
      assert.ok(summary.includes(`mean score ${st.meanScore.toFixed(2)}`), summary);
      assert.ok(summary.includes(`${fx.flips.gained} fail → pass, ${fx.flips.lost} pass → fail`), summary);
      assert.ok(fx.flips.lost > 0, 'the verifier edit flipped samples');
      assert.equal(await page.textContent(`.run-summary .band.${st.band}`), st.band.replace('_', ' '));
      // The audit, not run yet, sits between the cases and the samples, folded.
      assert.equal(await page.textContent('.section:nth-of-type(4) h2'), 'Audit');
      assert.equal(await page.$eval('.section:nth-of-type(4)', (d) => d.open), false);
      assert.equal(await page.textContent('.section:nth-of-type(5) h2'), `Samples (${st.passed}/${st.samples} pass)`);

      // The charts: a bar per non-empty (bin, verdict), a dot per k.
      const bins = new Set(task.samples.map((s) => `${Math.min(9, Math.floor(s.score * 10))}${s.pass}`));
      assert.equal(await page.$$eval('svg.histogram rect.bar', (els) => els.length), bins.size);
      assert.match(await page.getAttribute('svg.histogram', 'aria-label'), /^Score histogram: 0–0\.1: \d+/);
      assert.equal(await page.$$eval('svg.passk circle.dot', (els) => els.length), st.passAtK.length);
      const curve = await page.getAttribute('svg.passk polyline.curve', 'points');
      assert.equal(curve.split(' ').length, st.passAtK.length);
      assert.ok(
        curve.split(' ').every((p) => /^[\d.]+,[\d.]+$/.test(p)),
        curve,
      );

      await shot(page, 'light');
    });
  });

  test('model output shows as text: markup, scripts, control characters, 200 KB, unicode', async () => {
    const samples = fx.sea.task.samples;
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      for (const [name, index] of Object.entries(fx.hostile)) {
        await selectSample(page, index);
        const sample = samples.find((s) => s.index === index);
        const shown = await page.evaluate((i) => {
          const pre = document.querySelector('.detail pre.answer');
          const sent = window.__lastMessage.task.samples.find((s) => s.index === i).text;
          return {
            same: pre.textContent === sent,
            length: pre.textContent.length,
            children: pre.children.length,
            head: document.querySelector('.detail strong').textContent,
          };
        }, index);
        assert.ok(shown.same, `${name}: the answer is shown as its text`);
        assert.equal(shown.length, sample.text.length, `${name}: nothing lost on the way`);
        assert.equal(shown.children, 0, `${name}: no element inside the answer`);
        assert.match(shown.head, new RegExp(`^Sample #${index + 1}: `));
        const preview = await page.textContent(`.sample[data-index="${index}"] .preview`);
        if (name === 'empty') assert.equal(preview, '(empty answer)');
        else assert.ok(preview.length > 0 && preview.length <= 301, `${name}: a one-line preview`);
      }
      // Nothing from the samples became an element, nothing ran.
      const dom = await page.evaluate(() => ({
        scripts: document.scripts.length,
        embeds: document.querySelectorAll(
          'img, iframe, object, embed, video, audio, link[rel=import], a[href^="javascript"]',
        ).length,
        handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name)))
          .length,
        svgs: [...document.querySelectorAll('svg')].map((s) => s.getAttribute('class')),
      }));
      assert.deepEqual(dom, { scripts: 2, embeds: 0, handlers: 0, svgs: ['chart histogram', 'chart passk'] });

      // The 200 KB answer: the panel got 20,000 characters of it and says so.
      await selectSample(page, fx.hostile.big);
      assert.equal(samples[fx.hostile.big].clipped, true);
      assert.equal(
        await page.$eval('.detail pre.answer', (e) => e.textContent.length),
        samples[fx.hostile.big].text.length,
      );
      assert.match(await page.textContent('.detail'), /longer than shown here; the verifier read all of it/);
      // Reasoning is text too, in its own fold.
      await selectSample(page, fx.hostile.reasoning);
      assert.equal(await page.textContent('.detail details.reasoning pre'), samples[fx.hostile.reasoning].reasoning);
      assert.equal(await page.$$eval('.detail details.reasoning pre *', (els) => els.length), 0);
      assert.equal(await page.textContent(`.sample[data-index="${fx.hostile.truncated}"] .tag`), 'cut at max_tokens');

      // Host messages carrying such text (an error from a verifier, what the host is doing).
      const hostile = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';
      await deliver(page, { type: 'notice', level: 'error', text: hostile });
      assert.equal(await page.textContent('.notice'), ` ${hostile}`);
      await deliver(page, { type: 'busy', what: hostile, cancellable: false });
      assert.equal(await page.textContent('.status'), ` ${hostile}`);
      assert.equal(await page.evaluate(() => document.querySelectorAll('img, script:not([nonce])').length), 0);
      await shot(page, 'hostile');
    });
  });

  test('filters show their counts and the samples they keep', async () => {
    await withPanel({}, async (page) => {
      for (const message of [fx.sea, fx.judged]) {
        const samples = message.task.samples;
        await deliver(page, message);
        const counts = await page.$$eval('button.filter', (els) =>
          Object.fromEntries(els.map((e) => [e.dataset.filter, e.querySelector('.count').textContent])),
        );
        assert.deepEqual(
          counts,
          Object.fromEntries(Object.keys(KEEPS).map((f) => [f, ` ${expected(samples, f).length}`])),
          `${message.task.id}: counts`,
        );
        for (const f of Object.keys(KEEPS)) {
          await page.click(`button.filter[data-filter="${f}"]`);
          const want = expected(samples, f);
          if (want.length) await assertShows(page, want, `${message.task.id} ${f}`);
          else assert.equal(await page.textContent('.sample-list'), 'No sample matches.');
          assert.deepEqual(
            await page.$$eval('button.filter[aria-checked="true"]', (els) => els.map((e) => e.dataset.filter)),
            [f],
          );
        }
        await page.click('button.filter[data-filter="all"]');
      }
      // The judged task has all three verdicts; errors are shown as such.
      assert.ok(
        expected(fx.judged.task.samples, 'errors').length > 0 && expected(fx.judged.task.samples, 'fail').length > 0,
      );
      assert.ok(expected(fx.sea.task.samples, 'flipped').length > 0);
      await page.click('button.filter[data-filter="errors"]');
      assert.deepEqual(
        await page.$$eval('.sample', (els) => els.map((e) => [e.className, !!e.querySelector('.codicon-warning')])),
        expected(fx.judged.task.samples, 'errors').map(() => ['sample error', true]),
      );
      await shot(page, 'errors');
    });
  });

  test('search narrows the list; sorting by score orders it', async () => {
    const samples = fx.sea.task.samples;
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      for (const needle of ['grey', 'WORDS', '<script>', 'nothing like this']) {
        await page.fill('input.search', needle);
        await frame(page);
        const n = needle.toLowerCase();
        const want = samples
          .filter((s) => [s.text, s.reasoning ?? '', s.reason].some((t) => t.toLowerCase().includes(n)))
          .map((s) => s.index);
        if (want.length) await assertShows(page, want, `search ${needle}`);
        else assert.equal(await page.textContent('.sample-list'), 'No sample matches.');
        assert.ok(want.length < samples.length);
      }
      await page.fill('input.search', '');
      await assertShows(
        page,
        samples.map((s) => s.index),
        'search cleared',
      );

      const byScore = (dir) =>
        [...samples].sort((a, b) => dir * (a.score - b.score) || a.index - b.index).map((s) => s.index);
      await page.selectOption('select.sort', 'score-asc');
      await assertShows(page, byScore(1), 'lowest score first');
      await page.selectOption('select.sort', 'score-desc');
      await assertShows(page, byScore(-1), 'highest score first');
      await page.selectOption('select.sort', 'length-desc');
      await assertShows(
        page,
        [...samples].sort((a, b) => b.text.length - a.text.length || a.index - b.index).map((s) => s.index),
        'longest first',
      );
      // Filter and sort together.
      await page.click('button.filter[data-filter="fail"]');
      await page.selectOption('select.sort', 'score-asc');
      await assertShows(
        page,
        [...samples]
          .filter(KEEPS.fail)
          .sort((a, b) => a.score - b.score || a.index - b.index)
          .map((s) => s.index),
        'fail, lowest first',
      );
    });
  });

  test('1,000 samples: only the rows in view exist; the last is reachable', async () => {
    const samples = fx.large.task.samples;
    assert.equal(samples.length, 1000);
    await withPanel({ theme: 'dark' }, async (page) => {
      await deliver(page, fx.large);
      const drawn = await rows(page);
      assert.ok(drawn.length > 5 && drawn.length <= 40, `${drawn.length} rows in the page`);
      assert.equal(await page.$$eval('.sample', (els) => els.length), drawn.length);
      await assertShows(
        page,
        samples.map((s) => s.index),
        '1,000',
      );
      assert.equal(await page.textContent('button.filter[data-filter="all"] .count'), ' 1000');

      await page.$eval('.sample-list', (vp) => {
        vp.scrollTop = vp.scrollHeight;
      });
      await frame(page);
      await frame(page);
      const end = await rows(page);
      assert.equal(end[end.length - 1], 999, 'the last row is drawn');
      assert.ok(end.length <= 40, `${end.length} rows in the page at the end`);
      assert.ok(await inView(page, 999), 'the last sample is in view');
      assert.equal(await page.textContent('.sample[data-index="999"] .num'), '#1000');

      // The state (the task with all its samples) is serialised once changes settle, not per
      // scroll event: with long answers each write costs as much as the render.
      const writes = await page.evaluate(async () => {
        const list = document.querySelector('.sample-list');
        const at = window.__stateWrites;
        for (let i = 1; i <= 10; i++) {
          const handled = new Promise((r) => list.addEventListener('scroll', r, { once: true }));
          list.scrollTop = i * 1000;
          await handled;
          await window.__frame();
        }
        return { during: window.__stateWrites - at, at, top: list.scrollTop };
      });
      // The write once scrolling settles: waited for (bounded), not slept on.
      await page.waitForFunction((top) => window.__savedState()?.list?.scrollTop === top, writes.top, {
        timeout: 5000,
      });
      writes.after = await page.evaluate((at) => window.__stateWrites - at, writes.at);
      writes.scrollTop = (await page.evaluate(() => window.__savedState())).list.scrollTop;
      assert.ok(writes.during <= 3, `${writes.during} state writes during 10 scroll events`);
      assert.ok(writes.after >= 1 && writes.after <= 4, `${writes.after} state writes in all`);
      assert.equal(writes.scrollTop, writes.top, 'the saved state has the last scroll position');
      await shot(page, '1000-dark');
    });
  });

  test("a link from the workbench's samples view selects its sample and scrolls to it, whatever the filter", async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.large);
      const failing = fx.large.task.samples.filter((x) => !x.pass && !x.error)[0].index;
      const passing = fx.large.task.samples.filter((x) => x.pass).at(-1).index;
      await page.click('.filter[data-filter="fail"]');
      await deliver(page, { type: 'selectSample', task: fx.large.task.id, index: passing });
      // The passing sample is not among the failures: the list shows all again, that sample selected.
      assert.equal(await page.getAttribute('.filter[data-filter="all"]', 'aria-checked'), 'true');
      assert.deepEqual(
        await page.$$eval('.sample[aria-selected="true"]', (els) => els.map((e) => Number(e.dataset.index))),
        [passing],
      );
      assert.ok(await inView(page, passing), 'the sample is scrolled into view');
      assert.match(await page.textContent('.detail strong'), new RegExp(`^Sample #${passing + 1}: pass`));
      // Another task's link changes nothing here.
      await deliver(page, { type: 'selectSample', task: 'another', index: failing });
      assert.match(await page.textContent('.detail strong'), new RegExp(`^Sample #${passing + 1}: pass`));
    });
  });

  test('keyboard: the list takes focus, arrows select and the detail follows', async () => {
    const samples = fx.large.task.samples;
    await withPanel({}, async (page) => {
      await deliver(page, fx.large);
      await page.focus('.sample-list');
      const selected = () =>
        page.$$eval('.sample[aria-selected="true"]', (els) => els.map((e) => Number(e.dataset.index)));
      await page.keyboard.press('ArrowDown');
      assert.deepEqual(await selected(), [0]);
      assert.match(await page.textContent('.detail strong'), /^Sample #1: pass · score 1\.000$/);
      // The answer the verifier read is marked in the text.
      const s0 = samples[0];
      assert.equal(await page.textContent('.detail pre.answer mark'), s0.text.slice(s0.answer[0], s0.answer[1]));
      assert.equal(await page.textContent('.detail pre.answer'), s0.text);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.deepEqual(await selected(), [2]);
      assert.match(
        await page.textContent('.detail strong'),
        new RegExp(`^Sample #3: ${samples[2].pass ? 'pass' : 'fail'}`),
      );
      await page.keyboard.press('ArrowUp');
      assert.deepEqual(await selected(), [1]);
      await page.keyboard.press('End');
      assert.deepEqual(await selected(), [999]);
      assert.ok(await inView(page, 999), 'End scrolls the last sample into view');
      assert.match(await page.textContent('.detail strong'), /^Sample #1000: /);
      await page.keyboard.press('PageUp');
      const [up] = await selected();
      assert.ok(up < 999 && up > 980, `PageUp moves a page (${up})`);
      await page.keyboard.press('Home');
      assert.deepEqual(await selected(), [0]);
      assert.ok(await inView(page, 0), 'Home scrolls the first sample into view');
      assert.equal(
        await page.evaluate(() => document.activeElement?.className),
        'sample-list',
        'focus stays on the list',
      );
      // The filters are one tab stop; arrows move the choice and the focus with it.
      await page.focus('button.filter[data-filter="all"]');
      assert.deepEqual(await page.$$eval('button.filter', (els) => els.map((e) => e.tabIndex)), [0, -1, -1, -1, -1]);
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.filter), 'pass');
      assert.equal(await page.getAttribute('button.filter[data-filter="pass"]', 'aria-checked'), 'true');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      assert.equal(
        await page.evaluate(() => document.activeElement?.dataset.filter),
        'errors',
        'the arrows wrap around',
      );
    });
  });

  test('keyboard focus stays where it was when the host sends the task again', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      const selected = () =>
        page.$$eval('.sample[aria-selected="true"]', (els) => els.map((e) => Number(e.dataset.index)));
      await page.focus('.sample-list');
      await page.keyboard.press('ArrowDown');
      // The host re-sends the task after each change (an edit, cases run, sampling done).
      await deliver(page, fx.sea);
      await page.keyboard.press('ArrowDown');
      assert.deepEqual(await selected(), [1], 'the list kept the focus');

      await page.focus('input.search');
      await page.keyboard.type('gr');
      await deliver(page, fx.sea);
      await page.keyboard.type('ey');
      assert.equal(await page.inputValue('input.search'), 'grey', 'typing goes on in the search box');

      const words = task(fx.sea).form.find((r) => r.label === 'num_words');
      await page.focus(`[data-path="${cssString(JSON.stringify(words.path))}"]`);
      await deliver(page, fx.sea);
      assert.equal(
        await page.evaluate(() => document.activeElement.dataset.path),
        JSON.stringify(words.path),
        'a form field kept the focus',
      );

      // What is typed but not yet committed survives, and commits as typed.
      const at = `[data-path="${cssString(JSON.stringify(words.path))}"]`;
      await page.fill(at, '33');
      await deliver(page, fx.sea);
      assert.equal(await page.inputValue(at), '33', 'the uncommitted value is kept');
      const from = (await posted(page)).length;
      await page.press(at, 'Enter');
      assert.deepEqual((await posted(page)).slice(from), [
        { type: 'edit', task: 'panel/sea', path: words.path, old: 25, value: 33 },
      ]);

      // A field not typed into since it committed shows the file's new value (the YAML edited meanwhile).
      await deliver(page, fx.seaEditedAgain);
      assert.equal(await page.inputValue(at), '40');
      const mark = (await posted(page)).length;
      await page.press(at, 'Tab');
      assert.deepEqual((await posted(page)).slice(mark), [], 'leaving the field commits nothing');
    });
  });

  test('form edits post `edit`, `addItem` and `removeItem` messages the host accepts', async () => {
    const task = fx.sea.task;
    const field = (name) => task.form.find((r) => r.type === 'field' && r.label === name);
    const at = (name) => `[data-path="${cssString(JSON.stringify(field(name).path))}"]`;
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      let from = (await posted(page)).length;
      await page.fill(at('num_words'), '30');
      await page.press(at('num_words'), 'Enter');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'edit', task: 'panel/sea', path: field('num_words').path, old: 25, value: 30 },
      ]);

      // Leaving the field commits too; the same value again commits nothing.
      await page.fill(at('num_words'), '40');
      from = (await posted(page)).length;
      await page.press(at('num_words'), 'Tab');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'edit', task: 'panel/sea', path: field('num_words').path, old: 25, value: 40 },
      ]);
      await page.fill(at('num_words'), '25');
      from = (await posted(page)).length;
      await page.press(at('num_words'), 'Enter');
      assert.deepEqual(await postedSince(page, from), []);

      from = (await posted(page)).length;
      await page.selectOption(at('relation'), 'at least');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'edit', task: 'panel/sea', path: field('relation').path, old: 'less than', value: 'at least' },
      ]);

      // Adding a constraint by its id; an unknown id is refused in the page.
      const add = task.form.find((r) => r.type === 'add');
      from = (await posted(page)).length;
      await page.fill('.form .add input', 'no_such:instruction');
      await page.press('.form .add input', 'Enter');
      assert.deepEqual(await postedSince(page, from), []);
      assert.equal(await page.$eval('.form .add input', (e) => e.validationMessage), 'unknown: no_such:instruction');
      await page.fill('.form .add input', 'change_case:english_lowercase');
      await page.click('.form .add button');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'addItem', task: 'panel/sea', path: add.path, item: 'change_case:english_lowercase' },
      ]);

      from = (await posted(page)).length;
      await page.click('.form button[aria-label="Remove punctuation:no_comma"]');
      assert.deepEqual(await postedSince(page, from), [
        {
          type: 'removeItem',
          task: 'panel/sea',
          path: task.form.find((r) => r.label === 'punctuation:no_comma').path,
          shown: 'punctuation:no_comma',
        },
      ]);
    });
  });

  test('buttons post addCase, runCases, revealCase, sample and cancel', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      await selectSample(page, 2);
      let from = (await posted(page)).length;
      await page.click('.detail button:has-text("expect pass")');
      await page.click('.detail button:has-text("expect fail")');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'addCase', task: 'panel/sea', sample: 2, expect: 'pass' },
        { type: 'addCase', task: 'panel/sea', sample: 2, expect: 'fail' },
      ]);
      from = (await posted(page)).length;
      await page.click('button:has-text("Run cases")');
      await page.click('ol.cases li:nth-child(2)');
      await page.focus('ol.cases li:nth-child(3)');
      await page.keyboard.press('Enter');
      await page.click('button:has-text("Resample")');
      await page.click('button:has-text("More samples")');
      await deliver(page, { type: 'busy', what: 'Sampling panel/sea…', cancellable: true });
      await page.click('.status button:has-text("Cancel")');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'runCases' },
        { type: 'revealCase', index: 1 },
        { type: 'revealCase', index: 2 },
        { type: 'sample', task: 'panel/sea', mode: 'resample' },
        { type: 'sample', task: 'panel/sea', mode: 'more' },
        { type: 'cancel' },
      ]);
      await deliver(page, { type: 'busy', what: null, cancellable: false });
      assert.equal(await page.textContent('.status'), '');
    });
  });

  test('audit: findings by severity with their probe shown as text, suspects, and buttons that post what the host accepts', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.audited);
      const title = await page.textContent('details.section:has(.audit-findings) summary');
      assert.match(title, /^Audit \(\d+ findings, 1 suspect\)/);
      const severities = await page.$$eval('.audit-findings .severity', (els) => els.map((e) => e.textContent));
      assert.ok(severities.includes('critical') && severities.includes('high'), severities.join(','));
      const echo = await page.$eval('.finding:has-text("echo-prompt") .response', (e) => ({
        text: e.textContent,
        images: e.querySelectorAll('img').length,
      }));
      assert.match(echo.text, /^<img src=x onerror="window.__xss=1"> Describe the sea\.$/);
      assert.equal(echo.images, 0, 'the probe is shown as text');
      assert.match(await page.textContent('.audit-suspects'), /passed, but names 2 different answers: 72, 71/);
      const from = (await posted(page)).length;
      await page.click('.finding:has-text("empty:") button');
      await page.click('.audit-suspects button');
      await page.click('button:has-text("Audit again")');
      assert.deepEqual(await postedSince(page, from), [
        { type: 'addProbeCase', task: 'panel/sea', probe: 'empty' },
        { type: 'addCase', task: 'panel/sea', sample: fx.audited.task.audit.suspects[0].sample, expect: 'fail' },
        { type: 'audit', task: 'panel/sea' },
      ]);
      await shot(page, 'audit');
    });
  });

  test('a read-only task (a dataset row): the form shows its values but cannot change them, samples cannot become cases', async () => {
    const readOnly = 'A row of a dataset (JSONL): the form shows its verifier read-only.';
    await withPanel({}, async (page) => {
      await deliver(page, { ...fx.sea, task: { ...fx.sea.task, readOnly } });
      assert.equal(await page.textContent('.notice.read-only'), readOnly);
      const inputs = await page.$$eval('.form input, .form select, .form textarea', (els) =>
        els.map((e) => e.disabled),
      );
      assert.ok(inputs.length >= 2, `${inputs.length} inputs`);
      assert.ok(inputs.every(Boolean), 'every input is disabled');
      assert.equal(await page.$$eval('.form button', (els) => els.length), 0, 'no add or remove buttons');
      assert.equal(await page.$('button:has-text("Run cases")'), null, 'no cases section');
      await selectSample(page, 2);
      await page.locator('.detail .reason').first().waitFor();
      assert.equal(await page.$('.detail button:has-text("expect pass")'), null);
      const from = (await posted(page)).length;
      await page.click('button:has-text("Resample")');
      assert.deepEqual(await postedSince(page, from), [{ type: 'sample', task: 'panel/sea', mode: 'resample' }]);
    });
  });

  test('streamed samples are added to the list', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      const before = fx.sea.task.samples.length;
      await deliver(page, { type: 'busy', what: 'Sampling panel/sea…', cancellable: true });
      await deliver(page, fx.streamed);
      assert.equal(
        await page.textContent('button.filter[data-filter="all"] .count'),
        ` ${before + fx.streamed.samples.length}`,
      );
      // Progress goes beside what the host is doing; Cancel stays.
      assert.match(
        await page.textContent('.status'),
        new RegExp(`Sampling panel/sea… ${fx.streamed.done}/${fx.streamed.total}`),
      );
      assert.equal(await page.locator('.status button', { hasText: 'Cancel' }).count(), 1);
      const passing = fx.sea.task.samples.concat(fx.streamed.samples).filter((x) => x.pass).length;
      assert.equal(
        await page.textContent('.section:has(.sample-list) > summary h2'),
        `Samples (${passing}/${before + fx.streamed.samples.length} pass)`,
      );
      await page.$eval('.sample-list', (vp) => {
        vp.scrollTop = vp.scrollHeight;
      });
      await frame(page);
      await frame(page);
      const drawn = await rows(page);
      assert.deepEqual(
        drawn.slice(-2),
        fx.streamed.samples.map((s) => s.index),
      );
      // Samples of another task are not this task's.
      await deliver(page, { ...fx.streamed, task: 'panel/other', samples: [{ ...fx.streamed.samples[0], index: 99 }] });
      assert.equal(
        await page.textContent('button.filter[data-filter="all"] .count'),
        ` ${before + fx.streamed.samples.length}`,
      );
    });
  });

  test('malformed messages change nothing but say the panel may be out of date', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      const snapshot = () => page.evaluate(() => document.getElementById('root').innerHTML);
      const was = await snapshot();
      const bad = [
        { type: 'task', task: { id: 5 } },
        { type: 'task', task: { ...fx.sea.task, samples: [{ index: 'x' }] } },
        { type: 'task', task: { ...fx.sea.task, id: '<b>x</b>', form: [{ type: 'script', path: [] }] } },
        { type: 'samples', task: 'panel/sea', samples: [{ index: 1 }], done: 1, total: 1 },
        { type: 'notice', level: 'fatal', text: 'x' },
        { type: 'empty' },
        { type: 'nope' },
        null,
        'task',
        42,
        [fx.sea],
      ];
      for (const m of bad) {
        assert.equal(core.toPanel.safeParse(m).success, false, `${JSON.stringify(m).slice(0, 60)} is malformed`);
        await deliver(page, m);
      }
      assert.ok((await snapshot()) === was, 'the page did not change');
      // Nothing from the messages is shown; only the panel's own warning.
      assert.equal(
        (await page.textContent('.notice')).trim(),
        'The panel received an update it could not read; it may be out of date. Reopen it to refresh.',
      );
      // A message from the host after them is still handled.
      await deliver(page, { type: 'empty', reason: 'Put the cursor in a task.' });
      assert.equal(await page.textContent('#root'), 'Put the cursor in a task.');
    });
  });

  test('hidden and shown again (a reload with the saved state): same task, filter, sort, selection', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      await page.click('button.filter[data-filter="fail"]');
      await page.selectOption('select.sort', 'score-asc');
      await page.fill('input.search', 'words');
      const fail = fx.sea.task.samples.filter((s) => KEEPS.fail(s) && s.reason.includes('words'));
      await page.click(`.sample[data-index="${fail[0].index}"]`);
      await page.click('.section:nth-of-type(1) > summary'); // fold the prompt
      await page.waitForFunction(() => window.__savedState()?.list?.filter === 'fail');
      const state = await page.evaluate(() => window.__savedState());
      assert.equal(state.task.id, 'panel/sea');
      assert.equal(state.list.filter, 'fail');

      // Changed just before the panel is hidden: saved as the page goes away.
      await page.click(`.sample[data-index="${fail[1].index}"]`);
      await page.reload();
      await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
      assert.equal(await page.textContent('h1'), 'panel/sea');
      assert.deepEqual(await page.$$eval('button.filter.active', (els) => els.map((e) => e.dataset.filter)), ['fail']);
      assert.equal(await page.inputValue('select.sort'), 'score-asc');
      assert.equal(await page.inputValue('input.search'), 'words');
      assert.deepEqual(
        await rows(page),
        [...fail].sort((a, b) => a.score - b.score || a.index - b.index).map((s) => s.index),
      );
      assert.match(await page.textContent('.detail strong'), new RegExp(`^Sample #${fail[1].index + 1}: fail`));
      assert.equal(
        await page.$eval('.section:nth-of-type(1)', (d) => d.open),
        false,
        'the folded section stays folded',
      );

      // The same task again from the host keeps the list as it was; another task starts afresh.
      await deliver(page, fx.sea);
      assert.deepEqual(await page.$$eval('button.filter.active', (els) => els.map((e) => e.dataset.filter)), ['fail']);
      await deliver(page, fx.judged);
      assert.equal(await page.inputValue('input.search'), '');
      assert.equal(await page.textContent('.detail'), '');

      // After `empty`, a reload shows no task.
      await deliver(page, { type: 'empty', reason: 'No task here.' });
      await page.reload();
      await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
      assert.equal(await page.$('h1'), null);
    });
  });

  test('before the first sample of a Resample: "Sampling…", not "0/0 pass · too hard"', async () => {
    await withPanel({}, async (page) => {
      const empty = {
        ...fx.sea.task.run,
        stats: { ...fx.sea.task.run.stats, samples: 0, passed: 0, passRate: 0, band: 'too_hard' },
      };
      await deliver(page, { type: 'task', task: { ...fx.sea.task, run: empty, samples: [] } });
      assert.equal(await page.$('.run-summary'), null);
      assert.equal(await page.textContent('.sampling'), 'Sampling… the pass rate shows as samples arrive.');
      await deliver(page, fx.streamed);
      const passing = fx.streamed.samples.filter((x) => x.pass).length;
      assert.equal(
        await page.textContent('.sampling'),
        `Sampling… ${passing}/${fx.streamed.samples.length} pass so far.`,
      );
    });
  });

  test('charts show their axis values', async () => {
    await withPanel({}, async (page) => {
      await deliver(page, fx.sea);
      const ticks = (sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));
      assert.deepEqual(await ticks('svg.histogram text.tick-x'), ['0', '0.5', '1']);
      const bins = new Map();
      for (const x of fx.sea.task.samples)
        bins.set(Math.min(9, Math.floor(x.score * 10)), (bins.get(Math.min(9, Math.floor(x.score * 10))) ?? 0) + 1);
      assert.deepEqual(await ticks('svg.histogram text.tick-y'), ['0', String(Math.max(...bins.values()))]);
      assert.deepEqual(await ticks('svg.passk text.tick-y'), ['0', '0.5', '1']);
      assert.deepEqual(
        await ticks('svg.passk text.tick-x'),
        fx.sea.task.run.stats.passAtK.map(([k]) => String(k)),
      );
    });
  });

  test('light theme: green verdict text and the learnable badge are readable (contrast ≥ 4.5)', async () => {
    await withPanel({ theme: 'light' }, async (page) => {
      await deliver(page, {
        type: 'task',
        task: { ...fx.sea.task, run: { ...fx.sea.task.run, stats: { ...fx.sea.task.run.stats, band: 'learnable' } } },
      });
      for (const sel of ['.band.learnable', '.case.ok .verdict']) {
        // Through a canvas: computed colours may come as color(srgb …) rather than rgb().
        const [fg, bg] = await page.$eval(sel, (e) =>
          [getComputedStyle(e).color, getComputedStyle(document.body).backgroundColor].map((c) => {
            const g = document.createElement('canvas').getContext('2d');
            g.fillStyle = c;
            g.fillRect(0, 0, 1, 1);
            return `rgb(${[...g.getImageData(0, 0, 1, 1).data.slice(0, 3)].join(', ')})`;
          }),
        );
        const ratio = contrast(fg, bg);
        assert.ok(ratio >= 4.5, `${sel}: ${fg} on ${bg} has contrast ${ratio.toFixed(2)}`);
      }
    });
  });

  test('themes: light, dark and high contrast', async () => {
    for (const theme of Object.keys(THEMES)) {
      await withPanel({ theme }, async (page) => {
        await deliver(page, fx.sea);
        await selectSample(page, 2);
        await page.$eval('.sample-list', (vp) => {
          vp.scrollTop = 0;
        });
        await frame(page);
        const colors = await page.evaluate(() => ({
          body: getComputedStyle(document.body).backgroundColor,
          text: getComputedStyle(document.body).color,
          font: getComputedStyle(document.querySelector('.codicon')).fontFamily,
        }));
        assert.equal(
          colors.body,
          hexToRgb(THEMES[theme].colors['editor-background']),
          `${theme}: the theme's background`,
        );
        assert.equal(colors.text, hexToRgb(THEMES[theme].colors.foreground), `${theme}: the theme's text colour`);
        assert.equal(colors.font, 'codicon');
        // The icon font loaded (from the page's own origin, as the CSP allows).
        assert.equal(
          await page.evaluate(async () => {
            await document.fonts.ready;
            return document.fonts.check('16px codicon');
          }),
          true,
        );
        await shot(page, theme);
      });
    }
  });
});

const task = (message) => message.task;

/** A string for a CSS attribute selector in double quotes. */
function cssString(s) {
  return s.replace(/["\\]/g, '\\$&');
}

function hexToRgb(hex) {
  const n = hex.slice(1, 7);
  return `rgb(${[0, 2, 4].map((i) => parseInt(n.slice(i, i + 2), 16)).join(', ')})`;
}

/** WCAG contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c
      .match(/\d+/g)
      .slice(0, 3)
      .map((v) => {
        const x = Number(v) / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
