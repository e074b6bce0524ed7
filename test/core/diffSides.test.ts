// The sides of a comparison: the cached samples verified again by the task files at a git
// revision and in the working tree (a real git repository whose verifier was edited, samples
// cached by a real `vtask run` against the project's OpenAI-compatible server), a Parquet
// dataset's rows at a revision against its rows now, and how sides are named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { rowFileText } from '../../src/core/datasets/rowFiles';
import {
  compareSides,
  DiffSideError,
  parseSide,
  textAtRevision,
  type DiffSide,
} from '../../src/core/overview/runlog/diffSides';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { gitIn } from '../support/git';

const server = new OpenAIServer({ models: ['m'], answer: () => 'So \\boxed{72}.' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-diff-sides-'));
const file = path.join(dir, 'data', 'sums.vtask');
const tasks = (clips: string, pens: string): string => `vtask: 1
models:
  m: { base_url: "${server.url}", model: m }
tasks:
  - id: clips
    prompt: How many clips?
    samples: 3
    model: m
    verify: { math: { answer: "${clips}" } }
  - id: pens
    prompt: How many pens?
    samples: 2
    model: m
    verify: { math: { answer: "${pens}" } }
`;

const git = gitIn(dir);

before(async () => {
  await server.listen();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, tasks('72', '72'));
  git('init', '-q');
  git('add', 'data/sums.vtask');
  git('commit', '-qm', 'both 72');
  const r = await runCliProcess(['run', file], {}, 60_000);
  assert.equal(r.code, 0, r.stderr);
  // The second commit wants 71 for clips: the model's 72 fails it.
  fs.writeFileSync(file, tasks('71', '72'));
  git('commit', '-qam', 'clips is 71');
  // The working tree wants 71 for pens too.
  fs.writeFileSync(file, tasks('71', '71'));
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const side = (s: string): DiffSide => {
  const parsed = parseSide(s);
  assert.ok(typeof parsed !== 'string', parsed as string);
  return parsed;
};
const compare = (a: string, b: string) =>
  compareSides([file], side(a), side(b), {
    read: (f) => fs.readFileSync(f, 'utf8'),
    name: (f) => path.relative(dir, f),
  });

test('git:REV against the working tree: the samples whose verdict the edited verifier flipped', async () => {
  const asked = server.samplingRequests.length;
  const d = await compare('git:HEAD', 'worktree');
  assert.equal(server.samplingRequests.length, asked, 'the samples come from the cache');
  assert.deepEqual([d.a, d.b, d.tasks, d.flips], ['HEAD', 'working tree', 2, 1]);
  assert.deepEqual(
    d.sample_flips.map((f) => [f.file, f.task, f.kind, f.sample, f.from, f.to]),
    [0, 1].map((i) => [path.join('data', 'sums.vtask'), 'pens', 'math', i, 'pass', 'fail']),
    'only pens changed since HEAD',
  );
  assert.deepEqual(
    d.band_flips.map((f) => [f.task, f.from, f.to, f.pass_rate_a, f.pass_rate_b]),
    [['pens', 'too_easy', 'too_hard', 1, 0]],
  );
  assert.deepEqual(d.kinds, { math: { tasks: 2, band_flips: 1, sample_flips: 2 } });
  assert.equal(d.unread, undefined, 'every file was read at HEAD');
});

test('two revisions: git:HEAD~1 against git:HEAD flips clips, and a revision against itself flips nothing', async () => {
  const d = await compare('git:HEAD~1', 'git:HEAD');
  assert.deepEqual(
    d.sample_flips.map((f) => [f.task, f.sample, f.from, f.to]),
    [0, 1, 2].map((i) => ['clips', i, 'pass', 'fail']),
  );
  const same = await compare('git:HEAD', 'git:HEAD');
  assert.deepEqual([same.tasks, same.flips, same.sample_flips.length], [2, 0, 0]);
});

test('a revision the repository does not have is an error naming it, not an empty comparison', async () => {
  await assert.rejects(compare('git:no-such-rev', 'worktree'), (e: unknown) => {
    assert.ok(e instanceof DiffSideError);
    assert.match(e.message, /^git revision no-such-rev: not a revision of the repository at /);
    return true;
  });
});

test('a file the revision lacks, or outside any repository, is listed with why; the others are still compared', async () => {
  const added = path.join(dir, 'data', 'added.vtask');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-no-repo-'));
  const loose = path.join(outside, 'loose.vtask');
  try {
    fs.writeFileSync(added, tasks('72', '72').replace(/id: (clips|pens)/g, 'id: added-$1'));
    fs.writeFileSync(loose, tasks('72', '72'));
    const d = await compareSides([file, added, loose], side('git:HEAD'), side('worktree'), {
      read: (f) => fs.readFileSync(f, 'utf8'),
      name: (f) => path.relative(dir, f),
    });
    assert.deepEqual(d.unread, [
      { side: 'a', file: path.join('data', 'added.vtask'), reason: 'not at HEAD' },
      { side: 'a', file: path.relative(dir, loose), reason: 'not in a git repository' },
    ]);
    assert.deepEqual([d.tasks, d.flips], [2, 1], "sums.vtask's tasks are compared as before");
  } finally {
    fs.rmSync(added, { force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('sides are named model:NAME[@DATE], git:REV or worktree', () => {
  assert.deepEqual(parseSide('git:HEAD~2'), { kind: 'git', label: 'HEAD~2', rev: 'HEAD~2' });
  assert.deepEqual(parseSide('worktree'), { kind: 'worktree', label: 'working tree' });
  assert.deepEqual(parseSide('model:gpt@2026-01-31'), {
    kind: 'log',
    label: 'model:gpt@2026-01-31',
    model: 'gpt',
    until: '2026-01-31T23:59:59.999Z',
  });
  assert.match(parseSide('git:') as string, /names no git revision/);
  assert.match(parseSide('git:--output=x') as string, /names no git revision/, 'never a git option');
});

test("a Parquet dataset's rows at a git revision against the rows now: the verifier is in the row", async () => {
  const rows = path.join(dir, 'rows', 'sums.parquet');
  const source = path.join(dir, 'rows', 'source.vtask');
  fs.mkdirSync(path.dirname(rows), { recursive: true });
  const exportRows = async (clips: string): Promise<void> => {
    fs.writeFileSync(source, tasks(clips, '72'));
    const r = await runCliProcess(['export', source, '--format', 'verl', '--out', rows], {}, 60_000);
    assert.equal(r.code, 0, r.stderr);
  };
  await exportRows('72');
  git('add', 'rows/sums.parquet');
  git('commit', '-qm', 'rows');
  const ran = await runCliProcess(['run', rows, '--base-url', server.url, '--model', 'm'], {}, 60_000);
  assert.equal(ran.code, 0, ran.stderr);
  // The rows now want 71 for clips: the model's 72 fails it.
  await exportRows('71');
  const text = await rowFileText(rows);
  const asked = server.samplingRequests.length;
  const d = await compareSides([rows], side('git:HEAD'), side('worktree'), {
    read: () => text,
    name: (f) => path.relative(dir, f),
    model: 'm',
    baseUrl: server.url,
  });
  assert.equal(server.samplingRequests.length, asked, 'the samples come from the cache');
  assert.deepEqual([d.tasks, d.flips, d.unread], [2, 1, undefined]);
  assert.deepEqual(
    d.band_flips.map((f) => [f.file, f.task, f.from, f.to]),
    [[path.join('rows', 'sums.parquet'), 'clips', 'too_easy', 'too_hard']],
  );
  assert.ok(d.sample_flips.length > 0 && d.sample_flips.every((f) => f.task === 'clips' && f.to === 'fail'));
  // The revision's rows, read from its Parquet bytes, are the rows as they were.
  const then = await textAtRevision('HEAD', rows);
  assert.ok('text' in then);
  assert.match(then.text, /"72"/);
  assert.doesNotMatch(then.text, /"71"/);
});
