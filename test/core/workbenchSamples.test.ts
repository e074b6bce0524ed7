// The workbench's samples view over real cached samples: `vtask run` (the real CLI) samples a
// task file from the project's OpenAI-compatible server, then the view reads the cache, verifies
// each sample with the real verifiers, groups them by reason and marks what flipped when the
// verifier changes; samples become cases with the panel's edit. Also through the worker thread.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parseRowTasks } from '../../src/core/datasets/rowTasks';
import { editorProfile, type EditorModels } from '../../src/core/run/editorProfile';
import { sampleTasks } from '../../src/core/run/sampleTasks';
import { SampleCache } from '../../src/core/sampling/cache';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { must } from '../../src/core/util/must';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { verify } from '../../src/core/verifiers/verify';
import { WorkbenchClient } from '../../src/core/workbench/client';
import {
  addCasesToText,
  collectSamples,
  MAX_DATASET_ROWS,
  reasonKey,
  SampleSet,
  VERDICTS_FILE,
  type SampleSources,
  type SampleTaskRef,
} from '../../src/core/workbench/samples';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

// Each task gets one kind of answer, whichever sample it is.
const server = new OpenAIServer({
  answer: (ctx) =>
    ctx.prompt.includes('clips')
      ? 'So \\boxed{72}.'
      : ctx.prompt.includes('pens')
        ? 'I would rather not say.'
        : ctx.prompt.includes('capital')
          ? 'It is Paris.'
          : 'A fine poem about the sea.',
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-wb-samples-'));
const cacheDir = path.join(dir, '.vtask-cache');
const file = path.join(dir, 'data', 'a.vtask');
const TASKS = (clips: string): string => `vtask: 1
models:
  local: { base_url: "${server.url}", model: test-model }
tasks:
  - id: clips
    prompt: How many clips?
    samples: 4
    verify: { math: { answer: "${clips}" } }
  - id: pens
    prompt: How many pens?
    samples: 2
    verify: { math: { answer: "3" } }
  - id: capital
    prompt: Name the capital of France.
    samples: 2
    verify: { match: { answer: Paris, tag: answer } }
  - id: poem
    prompt: Write a poem.
    samples: 1
    verify: { judge: { rubric: [mentions the sea] } }
`;
const rows = path.join(dir, 'data', 'qa.jsonl');
// The user's profile `local`: what the rows of a JSONL file (which have no `models:`) sample with.
// (The server's address is known once it listens.)
const models = (): EditorModels => ({
  userModels: { local: { base_url: server.url, model: 'test-model' } },
  workspaceModels: {},
  model: 'local',
});
const sources = (): SampleSources => ({ root: dir, cacheDir, models: models(), trusted: true });

/** The index's rows of the file's tasks, as the workbench's worker hands them to the view. */
function refs(): SampleTaskRef[] {
  return runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks.map((t, row) => ({
    row,
    file: 'data/a.vtask',
    id: t.id,
    line: row,
  }));
}

before(async () => {
  await server.listen();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, TASKS('72'));
  const r = await runCliProcess(['run', file, '--model', 'local', '--cache-dir', cacheDir], {}, 60_000);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  // A JSONL row, sampled as the editor samples a row: its line read as a task, the same runner and cache.
  fs.writeFileSync(rows, `${JSON.stringify({ question: 'How many legs has a spider?', answer: '8', id: 'spider' })}\n`);
  const parsed = parseRowTasks(fs.readFileSync(rows, 'utf8'));
  const cache = SampleCache.open(cacheDir);
  const profile = editorProfile(parsed, must(runnableTasks(parsed).tasks[0], 'the row is a task'), models());
  const [run] = await sampleTasks(runnableTasks(parsed).tasks, {
    file: rows,
    cache,
    samples: 1,
    signal: new AbortController().signal,
    profileFor: () => profile,
    providerFor: (p) => new OpenAIProvider(p),
  });
  cache.close();
  assert.equal(run?.samples.length, 1, run?.error);
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('reason keys of real verdicts: wrong answer, no answer, no answer tag, could not parse, too long, errors', async () => {
  const task = { id: 't', prompt: 'p', messages: [], meta: {}, dir };
  const key = async (verifier: unknown, response: string, truncated = false): Promise<string> =>
    reasonKey(
      await verify(verifier, response, { task, signal: new AbortController().signal, trusted: true }),
      truncated,
    );
  assert.equal(await key({ math: { answer: '72' } }, '\\boxed{72}'), 'passed');
  assert.equal(await key({ math: { answer: '72' } }, '\\boxed{71}'), 'wrong answer');
  assert.equal(await key({ math: { answer: '72' } }, 'no idea at all'), 'could not parse');
  assert.equal(await key({ math: { answer: '72' } }, ''), 'no answer');
  assert.equal(await key({ match: { answer: 'Paris', tag: 'answer' } }, 'Paris'), 'no answer tag');
  assert.equal(await key({ json: {} }, '{"a": '), 'could not parse');
  assert.equal(await key({ math: { answer: '72' } }, 'so the answer is \\boxed{7', true), 'too long');
  assert.equal(await key({ judge: { rubric: ['is kind'] } }, 'hello'), 'error: unavailable');
  assert.equal(
    reasonKey({ pass: false, reason: 'the program ran past 2 s of CPU', error: 'timeout' }, false),
    'timeout',
  );
});

test('the cached samples, verified now, grouped by reason with counts; states count them', async () => {
  fs.writeFileSync(file, TASKS('72'));
  const got = await collectSamples(refs(), sources());
  assert.deepEqual(got.notes, []);
  assert.equal(got.samples.length, 9);
  const set = new SampleSet(got.samples);
  const all = set.view('all');
  assert.deepEqual(all.groups, [
    { key: 'passed', count: 4 },
    { key: 'could not parse', count: 2 },
    { key: 'no answer tag', count: 2 },
    { key: 'error: unavailable', count: 1 },
  ]);
  assert.deepEqual(all.counts, { all: 9, failed: 4, flipped: 0, undecided: 1, errored: 0 });
  const failed = set.view('failed');
  assert.deepEqual(failed.groups, [
    { key: 'could not parse', count: 2 },
    { key: 'no answer tag', count: 2 },
  ]);
  const pens = set.window('could not parse', 0, 10);
  assert.deepEqual(
    pens.map((s) => [s.task, s.index, s.model, s.file, s.pass, s.preview]),
    [
      ['pens', 0, 'local', 'data/a.vtask', false, 'I would rather not say.'],
      ['pens', 1, 'local', 'data/a.vtask', false, 'I would rather not say.'],
    ],
  );
  assert.match(pens[0]?.reason ?? '', /could not be parsed/);
  assert.equal(set.view('undecided').groups[0]?.key, 'error: unavailable');
  // Decided verdicts are recorded for the next verifier change (the judge's unavailable one is not).
  const recorded = fs.readFileSync(path.join(cacheDir, VERDICTS_FILE), 'utf8').trim().split('\n');
  assert.equal(recorded.length, 8);
});

test('a changed verifier: the samples whose verdict changed are flipped, until the verifier changes again', async () => {
  fs.writeFileSync(file, TASKS('72'));
  await collectSamples(refs(), sources());
  // The gold answer of `clips` is now 71: its four samples (72) fail, and flipped.
  fs.writeFileSync(file, TASKS('71'));
  const changed = new SampleSet((await collectSamples(refs(), sources())).samples);
  const flipped = changed.view('flipped');
  assert.deepEqual(flipped.groups, [{ key: 'wrong answer', count: 4 }]);
  assert.deepEqual(
    changed.window('wrong answer', 0, 10).map((s) => [s.task, s.index, s.flip]),
    [0, 1, 2, 3].map((i) => ['clips', i, 'lost']),
  );
  // Read again with the same verifier: still flipped since the verifier before it.
  const again = new SampleSet((await collectSamples(refs(), sources())).samples);
  assert.equal(again.view('flipped').counts.flipped, 4);
  // Back to 72: they pass again, gained against 71's verdicts.
  fs.writeFileSync(file, TASKS('72'));
  const back = new SampleSet((await collectSamples(refs(), sources())).samples);
  assert.deepEqual(back.view('flipped').groups, [{ key: 'passed', count: 4 }]);
  assert.deepEqual(
    back.window('passed', 0, 1).map((s) => s.flip),
    ['gained'],
  );
});

test("a group's samples become cases of their tasks: the panel's edit, read back from the text", async () => {
  fs.writeFileSync(file, TASKS('72'));
  const set = new SampleSet((await collectSamples(refs(), sources())).samples);
  set.view('failed');
  const picked = set.pick({ group: 'no answer tag' });
  assert.equal(picked.length, 2);
  const r = addCasesToText(
    fs.readFileSync(file, 'utf8'),
    picked.map((h) => ({ task: h.listed.task, response: h.response, expect: 'fail' })),
  );
  assert.deepEqual([r.added, r.errors], [2, []]);
  const capital = runnableTasks(parseTaskFile(r.text)).tasks.find((t) => t.id === 'capital');
  assert.deepEqual(
    capital?.cases.map((c) => [c.response, c.expect]),
    [
      ['It is Paris.', 'fail'],
      ['It is Paris.', 'fail'],
    ],
  );
  // Every other task is as it was.
  assert.deepEqual(
    runnableTasks(parseTaskFile(r.text)).tasks.map((t) => [t.id, t.cases.length]),
    [
      ['clips', 0],
      ['pens', 0],
      ['capital', 2],
      ['poem', 0],
    ],
  );
  const missing = addCasesToText(r.text, [{ task: 'gone', response: 'x', expect: 'pass' }]);
  assert.deepEqual([missing.added, missing.errors], [0, ['gone: no such task in the file']]);
});

test("through the workbench's worker: the view's tasks, a group's window and the cases to add", async () => {
  fs.writeFileSync(file, TASKS('72'));
  const client = new WorkbenchClient(path.resolve('out/workbenchWorker.js'), {
    paths: [path.join(dir, 'data')],
    options: { root: dir, cacheDir },
  });
  try {
    await client.opened;
    await client.request({ op: 'view', query: 'kind:math' });
    const r = await client.request({ op: 'samples', state: 'all', models: models(), trusted: true });
    // The JSONL row is a math task too: its answer (a poem) cannot be parsed as a number.
    assert.deepEqual(r.groups, [
      { key: 'passed', count: 4 },
      { key: 'could not parse', count: 3 },
    ]);
    assert.equal(r.total, 7);
    const window = await client.request({
      op: 'sampleWindow',
      collection: r.collection,
      group: 'passed',
      start: 2,
      end: 10,
    });
    assert.deepEqual(
      window.map((s) => [s.task, s.index]),
      [
        ['clips', 2],
        ['clips', 3],
      ],
    );
    const unparsed = await client.request({
      op: 'sampleWindow',
      collection: r.collection,
      group: 'could not parse',
      start: 0,
      end: 10,
    });
    assert.deepEqual(
      unparsed.map((s) => [s.file, s.task, s.line, s.preview]),
      [
        ['data/a.vtask', 'pens', 8, 'I would rather not say.'],
        ['data/a.vtask', 'pens', 8, 'I would rather not say.'],
        ['data/qa.jsonl', 'spider', 0, 'A fine poem about the sea.'],
      ],
    );
    // The row's sample cannot become a case (the file is read-only): counted apart, never dropped silently.
    const cases = await client.request({ op: 'sampleCases', collection: r.collection, group: 'could not parse' });
    assert.deepEqual(
      cases.cases.map((c) => [c.file, c.task, c.response]),
      [
        ['data/a.vtask', 'pens', 'I would rather not say.'],
        ['data/a.vtask', 'pens', 'I would rather not say.'],
      ],
    );
    assert.equal(cases.readOnly, 1);
    // What the host asks the user with, then the edit the worker makes of the text the editor holds:
    // the same text the panel's edit gives, as the one span that changes.
    const group = { collection: r.collection, group: 'could not parse' };
    assert.deepEqual(await client.request({ op: 'casesSummary', ...group }), {
      cases: 2,
      tasks: 1,
      files: ['data/a.vtask'],
      readOnly: 1,
    });
    const held = fs.readFileSync(file, 'utf8').replace('tasks:', 'tasks: # unsaved\n ');
    const edits = await client.request({
      op: 'casesEdits',
      ...group,
      expect: 'fail',
      texts: [['data/a.vtask', held]],
    });
    const [edit] = edits;
    assert.equal(edits.length, 1);
    assert.deepEqual([edit?.file, edit?.added, edit?.errors], ['data/a.vtask', 2, []]);
    const expected = addCasesToText(held, [
      { task: 'pens', response: 'I would rather not say.', expect: 'fail' },
      { task: 'pens', response: 'I would rather not say.', expect: 'fail' },
    ]).text;
    assert.equal(held.slice(0, edit?.start) + edit?.text + held.slice(edit?.end), expected);
    assert.ok((edit?.start ?? 0) > held.indexOf('id: pens'), 'only the span that changes is replaced');
    // A collection read again invalidates what was picked from the one before.
    await client.request({ op: 'samples', state: 'failed', models: models(), trusted: true, fresh: true });
    await assert.rejects(
      client.request({ op: 'sampleCases', collection: r.collection, group: 'could not parse' }),
      /read again/,
    );
    // Another state filters the collection held; a task file edited since is read again (no `fresh`).
    const kept = await client.request({ op: 'samples', state: 'all', models: models(), trusted: true });
    const same = await client.request({ op: 'samples', state: 'failed', models: models(), trusted: true });
    assert.equal(same.collection, kept.collection);
    fs.writeFileSync(file, TASKS('71'));
    const edited = await client.request({ op: 'samples', state: 'flipped', models: models(), trusted: true });
    assert.equal(edited.collection, kept.collection + 1);
    assert.deepEqual(edited.groups, [{ key: 'wrong answer', count: 4 }]);
  } finally {
    await client.close();
  }
});

test('past 10,000 dataset rows at once, the rows of a file are not read, and the view says so', async () => {
  const big = path.join(dir, 'big', 'many.jsonl');
  fs.mkdirSync(path.dirname(big), { recursive: true });
  const n = MAX_DATASET_ROWS + 1;
  fs.writeFileSync(
    big,
    Array.from(
      { length: n },
      (_, i) => `${JSON.stringify({ question: `What is ${i} + 1?`, answer: String(i + 1) })}\n`,
    ).join(''),
  );
  const rowRefs = Array.from({ length: n }, (_, i) => ({ row: i, file: 'big/many.jsonl', id: `row-${i}`, line: i }));
  const got = await collectSamples([...refs(), ...rowRefs], sources());
  // The task file's samples are read all the same.
  assert.equal(got.samples.length, 9);
  assert.deepEqual(got.notes, [
    '10,001 rows of JSONL and Parquet files were not read: the samples view reads at most 10,000 dataset rows at once; narrow the query or select fewer rows.',
  ]);
});
