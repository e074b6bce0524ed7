// The task stream (one task's tree at a time, for exports of large files) must give exactly
// what the whole parse gives: the same runnable tasks in the same order, and the same issues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Issue } from '../../src/core/base/issues';
import { streamedRunKey, taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { parseTaskPlain, streamTaskFile, type StreamedTask } from '../../src/core/taskfile/stream';

async function collect(tasks: AsyncIterable<StreamedTask>): Promise<StreamedTask[]> {
  const out: StreamedTask[] = [];
  for await (const t of tasks) out.push(t);
  return out;
}

const ROOT = process.cwd();
const FILES = ['examples', 'test/fixtures/check'].flatMap((d) =>
  fs
    .readdirSync(path.join(ROOT, d))
    .filter((f) => f.endsWith('.vtask'))
    .map((f) => path.join(d, f)),
);

const byStart = (a: Issue, b: Issue): number =>
  a.start - b.start || a.end - b.end || a.message.localeCompare(b.message);
const plain = (issues: readonly Issue[]): unknown[] =>
  [...issues]
    .sort(byStart)
    .map((i) => ({ code: i.code, severity: i.severity, message: i.message, start: i.start, end: i.end }));

async function assertSame(text: string, what: string): Promise<void> {
  const whole = parseTaskFile(text);
  const stream = streamTaskFile(text);
  const streamed = await collect(stream.tasks);
  const want = runnableTasks(whole).tasks;
  const got = streamed.flatMap((t) => (t.spec ? [t.spec] : []));
  assert.deepEqual(got, want, `${what}: runnable tasks`);
  if (whole.issues.some((i) => i.code === 'yaml-syntax')) return;
  assert.deepEqual(
    plain([...stream.fileIssues, ...streamed.flatMap((t) => t.issues)]),
    plain(whole.issues),
    `${what}: issues`,
  );
  // The keys `vtask run` records runs under, whichever way the file was read.
  assert.deepEqual(
    streamed.map((t) => streamedRunKey(stream, text, t.entry)),
    whole.tasks.map((e) => taskRunKey(whole, e)),
    `${what}: run keys`,
  );
}

void test('every example and fixture streams to the tasks and issues of the whole parse', async () => {
  assert.ok(FILES.length >= 20, `${FILES.length} files`);
  for (const f of FILES) await assertSame(fs.readFileSync(path.join(ROOT, f), 'utf8'), f);
});

const task = (id: string, extra = ''): string =>
  `  - id: ${id}\n    prompt: "What is 2+2? (${id})"\n    verify: { math: { answer: "4" } }\n${extra}`;

void test('defaults after the tasks, repeated ids and tasks with errors stream as in the whole parse', async () => {
  const text = `vtask: 1\ntasks:\n${task('a')}${task('b')}${task('a')}  - id: c\n    promt: "typo"\n    verify: { math: { answer: "1" } }\n  - id: d\n    verify: { math: { answer: "2" } }\ndefaults:\n  prompt: "from defaults"\n  samples: 3\n`;
  await assertSame(text, 'defaults in the tail');
  const streamed = await collect(streamTaskFile(text).tasks);
  assert.deepEqual(
    streamed.map((t) => [t.entry.id, t.spec !== undefined]),
    [
      ['a', true],
      ['b', true],
      ['a', false],
      ['c', false],
      ['d', true],
    ],
  );
  assert.match(
    streamed[2]!.issues.map((i) => i.message).join('\n'),
    /duplicate task id `a`: it is already used on line 3/,
  );
  assert.equal(streamed[4]!.spec?.prompt, 'from defaults', 'defaults given after the tasks apply');
  assert.equal(streamed[0]!.spec?.sampling.samples, 3);
});

void test('an alias to an anchor in an earlier task switches to the whole parse from that task on', async () => {
  const text = `vtask: 1\ntasks:\n${task('a')}  - id: b\n    prompt: &p "shared prompt"\n    verify: { math: { answer: "4" } }\n${task('c')}  - id: d\n    prompt: *p\n    verify: { math: { answer: "4" } }\n`;
  await assertSame(text, 'cross-task alias');
  const specs = (await collect(streamTaskFile(text).tasks)).map((t) => t.spec);
  assert.deepEqual(
    specs.map((s) => s?.id),
    ['a', 'b', 'c', 'd'],
  );
  assert.equal(specs[3]?.prompt, 'shared prompt');
});

void test('a large file parsed in batches elsewhere gives the same tasks and issues, in order', async () => {
  const many =
    Array.from({ length: 1600 }, (_, i) => task(`t${i}`)).join('') +
    task('t7') +
    '  - id: broken\n    promt: "x"\n    verify: { math: { answer: "1" } }\n';
  const text = `vtask: 1\ntasks:\n${many}`;
  const batches: number[] = [];
  const parseBatch = async (texts: readonly string[], defaults: Record<string, unknown>) => {
    batches.push(texts.length);
    // Across a thread, values are copied: do the same here, so shared objects would show.
    return structuredClone(texts.map((t) => parseTaskPlain(t, defaults)));
  };
  const threaded = await collect(streamTaskFile(text, parseBatch).tasks);
  const local = await collect(streamTaskFile(text).tasks);
  assert.ok(batches.length >= 4 && batches.every((n) => n <= 500), `batches ${batches.join(',')}`);
  assert.deepEqual(
    threaded.map((t) => t.spec),
    local.map((t) => t.spec),
  );
  assert.deepEqual(
    threaded.map((t) => plain(t.issues)),
    local.map((t) => plain(t.issues)),
  );
  assert.equal(threaded.filter((t) => t.spec).length, 1600);
  assert.equal(threaded[1600]?.spec, undefined, 'the repeated id t7');
  assert.equal(threaded[1601]?.spec, undefined, 'the task with a typo');
  await assertSame(text, '1,602 tasks');
});

void test('a file that is not a task file, or is over a limit, has one file issue and no tasks', async () => {
  for (const text of ['name: my project\nversion: 2\n', 'x'.repeat(1_000_001)]) {
    const s = streamTaskFile(text);
    assert.equal((await collect(s.tasks)).length, 0);
    assert.equal(s.fileIssues.length, 1);
    assert.equal(s.fileIssues[0]!.severity, 'error');
  }
});
