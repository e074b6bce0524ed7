// Agent samples in the task panel, in real Chromium (as test/browser/panel.test.mjs): the
// messages come from the core (test/browser/trajectoryMessages.ts); a sample's trajectory shows
// as turns with each tool call's arguments and result, errors highlighted, the stop reason and
// the final state folded; the filters and flips work as for single answers; a 200-turn
// trajectory stays quick; tool results holding markup stay text. Screenshots go to
// test-results/panel-agent-*.png.
//
//   node scripts/build.mjs && node --test test/browser/panelTrajectory.test.mjs
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { deliver, PAGE_SUITE, REPO, RESULTS, usePages } from './panelPage.mjs';

let core;
let fx;

describe('agent samples in the task panel', PAGE_SUITE, () => {
  const pages = usePages({ text: 'model or tool text' });
  before(async () => {
    core = await loadBundled('test/browser/trajectoryMessages.ts');
    fx = await core.agentFixture(REPO);
  });

  const withPanel = (body, options = {}) =>
    pages.with(options, async (page) => {
      await deliver(page, fx.agent);
      await body(page);
    });

  const select = (page, name) => page.click(`.sample[data-index="${fx.index[name]}"]`);
  const sample = (name) => fx.agent.task.samples.find((s) => s.index === fx.index[name]);

  test("a trajectory shows as turns: the model's text, each call with its arguments and result, the stop and the final state", async () => {
    await withPanel(async (page) => {
      await select(page, 'solved');
      const turns = await page.$$eval('.detail .trajectory .turn', (els) =>
        els.map((t) => ({
          head: t.querySelector('.turn-head').textContent,
          text: t.querySelector('.turn-text')?.textContent ?? '',
          calls: [...t.querySelectorAll('.tool-call')].map((c) => ({
            tool: c.querySelector('.tool').textContent,
            args: c.querySelector('.args').textContent,
            result: c.querySelector('.call-result')?.textContent,
            failed: c.classList.contains('failed'),
          })),
        })),
      );
      assert.deepEqual(turns, [
        {
          head: 'Turn 1',
          text: 'I will look the key up.',
          calls: [{ tool: 'get', args: '{"key":"fr"}', result: '"Paris"', failed: false }],
        },
        { head: 'Turn 2', text: '<answer>Paris</answer>', calls: [] },
      ]);
      assert.equal(
        (await page.textContent('.detail .stop')).trim(),
        'The model answered after 2 turns and 1 tool call',
      );
      // The final state is folded until asked for.
      assert.equal(await page.$eval('.detail details.final-state', (d) => d.open), false);
      await page.click('.detail details.final-state summary');
      assert.deepEqual(JSON.parse(await page.textContent('.detail details.final-state pre')), {
        lookups: 1,
        store: { fr: 'Paris', de: 'Berlin' },
      });
      assert.equal(await page.textContent('.detail pre.answer'), '<answer>Paris</answer>');
      assert.equal(await page.textContent(`.sample[data-index="${fx.index.solved}"] .tag`), '1 call');
      await page.screenshot({ path: path.join(RESULTS, 'panel-agent-trajectory.png'), fullPage: true });
    });
  });

  test('a tool error is shown in the error style, and the case button says it keeps the calls', async () => {
    await withPanel(async (page) => {
      await select(page, 'toolError');
      const calls = await page.$$eval('.detail .tool-call', (els) =>
        els.map((c) => ({
          failed: c.classList.contains('failed'),
          error: c.querySelector('.call-error')?.textContent.trim(),
          args: c.querySelector('.args').textContent,
        })),
      );
      assert.deepEqual(calls, [
        { failed: true, error: 'no key france', args: '{"key":"france"}' },
        // Arguments that were not JSON are shown as the model wrote them.
        { failed: true, error: 'arguments are not JSON: Unexpected end of JSON input', args: '{"key": 7' },
      ]);
      const colour = await page.$eval('.detail .call-error', (e) => getComputedStyle(e).color);
      const plain = await page.$eval('.detail .turn-text', (e) => getComputedStyle(e).color);
      assert.notEqual(colour, plain, 'the error is highlighted');
      assert.match(await page.textContent('.detail .actions'), /Add as case with its 2 calls:/);
      const from = (await page.evaluate(() => window.__posted)).length;
      await page.click('.detail button:has-text("expect fail")');
      const sent = (await page.evaluate(() => window.__posted)).slice(from);
      assert.deepEqual(sent, [{ type: 'addCase', task: 'panel/kv', sample: fx.index.toolError, expect: 'fail' }]);
      assert.ok(core.fromPanel.safeParse(sent[0]).success, 'the host accepts what the panel posted');
      await page.screenshot({ path: path.join(RESULTS, 'panel-agent-error.png'), fullPage: true });
    });
  });

  test('stops other than an answer are named: the turn limit and an environment failure', async () => {
    await withPanel(async (page) => {
      await select(page, 'envError');
      assert.equal(
        (await page.textContent('.detail .stop')).trim(),
        'The environment failed after 1 turn and 1 tool call: the environment exited with code 1 before answering',
      );
      assert.equal(
        await page.textContent(`.sample[data-index="${fx.index.envError}"] .tag`),
        '1 call, environment error',
      );
      assert.equal(
        await page.$$eval('.detail details.final-state', (e) => e.length),
        0,
        'no state when it could not be read',
      );
      assert.equal(await page.textContent(`.sample[data-index="${fx.index.turnLimit}"] .tag`), '200 calls, turn limit');
    });
  });

  test('the turn a failed check names is highlighted', async () => {
    await withPanel(async (page) => {
      await select(page, 'forbidden');
      assert.equal(sample('forbidden').trajectory.failedTurn, 2);
      const marked = await page.$$eval('.detail .turn.failed-turn', (els) =>
        els.map((e) => [e.dataset.turn, e.querySelector('.turn-head')?.textContent?.trim()]),
      );
      assert.deepEqual(marked, [['2', 'Turn 2 the verifier failed here']]);
      // Turns are drawn when in view (content-visibility): bring the detail into view, then wait a frame.
      await page.locator('.detail .turn.failed-turn').scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: path.join(RESULTS, 'panel-agent-failed-turn.png') });
      // A sample that failed on its answer alone points at no turn.
      await select(page, 'solved');
      assert.equal(await page.$$eval('.detail .turn.failed-turn', (els) => els.length), 0);
    });
  });

  test('filters and flips work as for single answers', async () => {
    await withPanel(async (page) => {
      // The verifier was edited (Paris → Berlin): what passed now fails.
      const flipped = fx.agent.task.samples
        .filter((s) => s.flip)
        .map((s) => s.index)
        .sort();
      assert.deepEqual(flipped, [fx.index.solved, fx.index.hostile].sort());
      assert.ok(fx.agent.task.samples.every((s) => s.flip !== 'gained'));
      await page.click('.filter[data-filter="flipped"]');
      const rows = await page.$$eval('.sample-list .sample', (els) => els.map((e) => Number(e.dataset.index)));
      assert.deepEqual(rows.sort(), flipped);
      assert.equal(await page.textContent(`.sample[data-index="${fx.index.solved}"] .flip`), 'pass → fail');
      // A trajectory the environment broke off is an error verdict, kept apart from wrong answers.
      const indices = () =>
        page.$$eval('.sample-list .sample', (els) => els.map((e) => Number(e.dataset.index)).sort());
      await page.click('.filter[data-filter="errors"]');
      assert.deepEqual(await indices(), [fx.index.envError]);
      await page.click('.filter[data-filter="fail"]');
      assert.deepEqual(
        await indices(),
        Object.values(fx.index)
          .filter((i) => i !== fx.index.envError)
          .sort(),
      );
    });
  });

  test('a 200-turn trajectory opens at once and shows the rest on request', async () => {
    await withPanel(async (page) => {
      assert.equal(sample('turnLimit').trajectory.turns.length, 200);
      const opened = await page.evaluate(async (i) => {
        const t0 = performance.now();
        document.querySelector(`.sample[data-index="${i}"]`).click();
        await window.__frame();
        return { ms: performance.now() - t0, turns: document.querySelectorAll('.detail .turn').length };
      }, fx.index.turnLimit);
      assert.ok(opened.ms < 1000, `${opened.ms.toFixed(0)} ms to open`);
      assert.equal(opened.turns, 60, 'the first turns are drawn');
      await page.click('.detail button.more-turns');
      assert.equal(await page.$$eval('.detail .turn', (els) => els.length), 200);
      assert.equal(await page.textContent('.detail .turn:last-child .turn-head'), 'Turn 200');
      assert.equal(
        (await page.textContent('.detail .stop')).trim(),
        'Stopped at the turn limit after 200 turns and 200 tool calls',
      );
      // Still responsive: the list answers keys and scrolls within a frame or two.
      const moved = await page.evaluate(async () => {
        const list = document.querySelector('.sample-list');
        const t0 = performance.now();
        list.focus();
        list.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true }));
        await window.__frame();
        return performance.now() - t0;
      });
      assert.ok(moved < 500, `${moved.toFixed(0)} ms for a key`);
    });
  });

  test("markup in tool arguments, results, the model's text and the state is text, never run", async () => {
    await withPanel(async (page) => {
      await select(page, 'hostile');
      await page.click('.detail details.final-state summary');
      const dom = await page.evaluate((xss) => {
        const texts = [...document.querySelectorAll('.detail .trajectory pre')].map((p) => ({
          text: p.textContent,
          children: p.querySelectorAll('*').length - p.querySelectorAll('.codicon').length,
        }));
        return {
          containing: texts.filter((t) => t.text.includes(xss.slice(xss.indexOf('<script>')))).length,
          children: texts.reduce((n, t) => n + t.children, 0),
          scripts: document.scripts.length,
          embeds: document.querySelectorAll('img, iframe, object, embed').length,
          handlers: [...document.querySelectorAll('*')].filter((e) =>
            [...e.attributes].some((a) => /^on/i.test(a.name)),
          ).length,
        };
      }, core.XSS);
      // The turn's text, the arguments, the result; the state holds it JSON-escaped.
      assert.equal(
        dom.containing,
        5,
        "both turns' text, the arguments, the result and the state show the markup as text",
      );
      assert.match(await page.textContent('.detail details.final-state pre'), /<script>window.__xss=1<\/script>/);
      assert.deepEqual(
        { children: dom.children, scripts: dom.scripts, embeds: dom.embeds, handlers: dom.handlers },
        { children: 0, scripts: 2, embeds: 0, handlers: 0 },
      );
    });
  });
});
