// The task panel's speed with 1,000 samples. (a) In Chromium, on the static page of the
// browser tests (test/browser/panelPage.mjs): from posting the `task` message to the panel
// having rendered it and a frame painted, timed in the page (performance.now around the post,
// then requestAnimationFrame and the task after it); also a filter click and a scroll of the
// list. (b) Re-verifying 1,000 cached samples after a verifier edit (`reverify`, as the panel
// does on each edit), for a task of three IFEval constraints and for a math task. The messages
// and runs are made by the core (test/browser/panelMessages.ts, bundled with esbuild). The last
// line is one JSON object of figures.
//   node scripts/bench-panel.mjs [--runs N] [--samples N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadBundled, ROOT } from './bundle.mjs';
import {
  chromiumPath,
  launchBrowser,
  openPanel,
  requirePanelBuilt,
  startPanelServer,
} from '../test/browser/panelPage.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('--runs', 20);
const N = arg('--samples', 1000);
const TARGET_MS = 200;
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const fig = (x) => +x.toFixed(1);
const summary = (xs) => ({
  median_ms: fig(quantile(xs, 0.5)),
  p95_ms: fig(quantile(xs, 0.95)),
  max_ms: fig(Math.max(...xs)),
});
const verdict = (ms) => (ms < TARGET_MS ? `under ${TARGET_MS} ms` : `OVER the ${TARGET_MS} ms target`);

const core = await loadBundled('test/browser/panelMessages.ts');
const file = path.join(ROOT, core.FIXTURE);
const text = fs.readFileSync(file, 'utf8');
const figures = { bench: 'panel', samples: N, node: process.version };

// The runs: the scripted answers sampled and verified once, as a `vtask run` would have left them.
const three = core.loadTask(text, 'panel/three');
const threeRun = await core.sampleRun(file, three.spec, core.harbourAnswers(N));
const clips = core.loadTask(text, 'panel/clips');
const clipsRun = await core.sampleRun(file, clips.spec, core.mathAnswers(N));

// (a) Rendering in Chromium.
if (!chromiumPath()) {
  console.log('panel render: skipped (Chromium not found; set VTASK_CHROMIUM)');
  figures.render = { skipped: 'no Chromium' };
} else {
  try {
    requirePanelBuilt();
  } catch {
    spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
    requirePanelBuilt();
  }
  const view = core.panelTaskView(core.FIXTURE, three.entry, three.spec, undefined, { run: threeRun, fresh: true });
  const message = { type: 'task', task: view };
  core.toPanel.parse(message);
  const bytes = JSON.stringify(message).length;
  const server = await startPanelServer();
  const browser = await launchBrowser();
  try {
    const page = await openPanel(browser, server, { viewport: { width: 1000, height: 1000 } });
    await page.evaluate((m) => {
      window.__big = m;
    }, message);
    const timings = await page.evaluate(
      async ({ runs }) => {
        const render = [];
        const filter = [];
        const scroll = [];
        let first = 0;
        for (let i = 0; i < runs + 2; i++) {
          await window.__deliver({ type: 'empty', reason: 'between runs' });
          const t0 = performance.now();
          await window.__deliver(window.__big);
          if (i >= 2)
            render.push(performance.now() - t0); // two warm-up runs
          else if (i === 0) first = performance.now() - t0;
        }
        for (let i = 0; i < runs + 2; i++) {
          const t0 = performance.now();
          document.querySelector(`button.filter[data-filter="${i % 2 ? 'all' : 'fail'}"]`).click();
          await window.__frame();
          if (i >= 2) filter.push(performance.now() - t0);
        }
        const list = document.querySelector('.sample-list');
        for (let i = 0; i < runs + 2; i++) {
          // Jumps to spread positions (a drag of the scroll bar), each drawing new rows.
          const to = Math.round((((i * 7919) % 97) / 97) * (list.scrollHeight - list.clientHeight));
          const t0 = performance.now();
          const handled = new Promise((r) => list.addEventListener('scroll', r, { once: true }));
          list.scrollTop = to === list.scrollTop ? to + 52 : to;
          await handled;
          await window.__frame();
          if (i >= 2) scroll.push(performance.now() - t0);
        }
        return { render, first, filter, scroll, rows: document.querySelectorAll('.sample').length };
      },
      { runs: RUNS },
    );
    if (page.problems.length) throw new Error(`the page reported: ${page.problems.join('; ')}`);
    figures.message_bytes = bytes;
    figures.render = { ...summary(timings.render), first_ms: fig(timings.first) };
    figures.filter = summary(timings.filter);
    figures.scroll = summary(timings.scroll);
    figures.rows_in_dom = timings.rows;
    console.log(
      `panel render, ${N} samples (${(bytes / 1024).toFixed(0)} KB message): median ${figures.render.median_ms} ms, p95 ${figures.render.p95_ms} ms over ${RUNS} runs (${verdict(figures.render.p95_ms)}; first render ${figures.render.first_ms} ms; ${timings.rows} rows in the page)`,
    );
    console.log(
      `panel filter, ${N} samples: median ${figures.filter.median_ms} ms, p95 ${figures.filter.p95_ms} ms over ${RUNS} runs (${verdict(figures.filter.p95_ms)})`,
    );
    console.log(
      `panel scroll, ${N} samples: median ${figures.scroll.median_ms} ms, p95 ${figures.scroll.p95_ms} ms over ${RUNS} runs (${verdict(figures.scroll.p95_ms)})`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
}

// (b) Re-verification after a verifier edit: the cached samples verified again, no model asked.
async function timeReverify(name, task, run, edit) {
  const edited = core.loadTask(text.replace(edit[0], edit[1]), task);
  if (JSON.stringify(edited.spec.verify) === JSON.stringify(run.task.verify))
    throw new Error(`${name}: the edit changed nothing`);
  const times = [];
  let flips = 0;
  for (let i = 0; i < Math.max(5, Math.round(RUNS / 2)) + 1; i++) {
    const t0 = performance.now();
    const r = await core.reverify(edited.spec, run, { file, trusted: true });
    if (i > 0) times.push(performance.now() - t0); // one warm-up run
    flips = r.gained + r.lost;
    if (r.run.samples.length !== N) throw new Error(`${name}: ${r.run.samples.length} samples re-verified`);
  }
  const s = summary(times);
  console.log(
    `panel re-verify, ${N} cached samples, ${name}: median ${s.median_ms} ms, p95 ${s.p95_ms} ms over ${times.length} runs (${verdict(s.median_ms)}; ${flips} flipped)`,
  );
  return { ...s, flipped: flips };
}
figures.reverify_constraints = await timeReverify('3 IFEval constraints', 'panel/three', threeRun, [
  'num_words: 60',
  'num_words: 40',
]);
figures.reverify_math = await timeReverify('math', 'panel/clips', clipsRun, [
  'math: { answer: "72" }',
  'math: { answer: "96" }',
]);
// (c) One form edit on a 10,000-task file: the edit of one node with its re-parse check.
{
  const { generateTaskFile } = await import('./gen-large.mjs');
  const { parseTaskFile } = await loadBundled('src/core/taskfile/parse.ts');
  const { setScalar } = await loadBundled('src/core/edit/taskEdits.ts');
  const big = parseTaskFile(generateTaskFile({ tasks: 10_000 }));
  const times = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const index = 4000 + i * 97;
    const prompt = big.tasks[index].node.items.find((p) => p.key.value === 'prompt').value.value;
    const t0 = performance.now();
    const r = setScalar(big, index, ['prompt'], prompt, `${prompt} Answer briefly.`);
    if (i > 0) times.push(performance.now() - t0);
    if (!r.edit) throw new Error(`form edit: ${r.error}`);
  }
  figures.form_edit_10k = summary(times);
  console.log(
    `panel form edit, 10,000-task file: median ${figures.form_edit_10k.median_ms} ms, p95 ${figures.form_edit_10k.p95_ms} ms over ${times.length} edits (one node, checked by re-parsing)`,
  );
}
console.log(JSON.stringify(figures));
process.exit(0); // the math pool's idle workers must not hold the process
