// A task file read from disk a block at a time (taskfile/fileStream.ts) must stream exactly what
// its whole text streams: the same tasks, specs, issues and positions, for every fixture and for
// a file of several blocks whose multi-byte characters and lines straddle the block boundaries;
// and a file it cannot read so (not UTF-8, a layout the chunks cannot carry, over a limit) is
// left to the whole-text path. Its blocks are small enough that their strings die young.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readChunkedFile } from '../../src/core/taskfile/fileStream';
import { textHash } from '../../src/core/overview/dataset/summary';
import { streamChunks, streamTaskFile, type TaskStream } from '../../src/core/taskfile/stream';
import { LineIndex } from '../../src/core/taskfile/text';
import { decodedStrings, YOUNG_PIECE_CHARS } from '../support/decodedStrings';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-file-stream-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** Everything a reader of the stream sees, positions included. */
async function seen(stream: TaskStream): Promise<unknown> {
  const tasks: unknown[] = [];
  for await (const t of stream.tasks)
    tasks.push({
      entry: { ...t.entry, node: null },
      spec: t.spec,
      issues: t.issues.map((i) => ({ ...i, at: stream.lines.position(i.start) })),
      cases: t.spec?.cases.map((c) => stream.lines.position(c.offset)),
    });
  return {
    fileIssues: stream.fileIssues.map((i) => ({ ...i, at: stream.lines.position(i.start) })),
    parts: stream.parts.map((p) => p.offset),
    tasks,
  };
}

async function assertSame(file: string): Promise<void> {
  const chunked = readChunkedFile(file);
  assert.ok(chunked, `${file} is read a block at a time`);
  assert.deepEqual(await seen(streamChunks(chunked)), await seen(streamTaskFile(fs.readFileSync(file, 'utf8'))), file);
}

test('every fixture the chunks can carry streams from disk as from its text', async () => {
  const files = ['examples', 'test/fixtures/check'].flatMap((d) =>
    fs
      .readdirSync(d)
      .filter((f) => f.endsWith('.vtask'))
      .map((f) => path.join(d, f)),
  );
  let read = 0;
  for (const f of files) {
    if (!readChunkedFile(f)) continue;
    read++;
    await assertSame(f);
  }
  assert.ok(read >= 10, `${read} of ${files.length} fixtures read a block at a time`);
});

test('a file of several blocks, with multi-byte characters, CRLF lines, errors and keys after the tasks', async () => {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < 40_000; i++) {
    const prompt = `Tâche ${i} 日本語 \u{1f600}: 2+2?`;
    if (i % 997 === 0) lines.push(`  - id: t${i % 5000}\r`, `    prompt: "${prompt}"\r`, '    verify: {maths: {}}\r');
    else if (i % 10 === 0)
      lines.push(`  - {id: t${i}, prompt: "${prompt}", cases: [{response: "\\\\boxed{4}", expect: pass}]}`);
    else lines.push(`  - {id: t${i}, prompt: "${prompt}"}`, '    # a comment', '');
  }
  lines.push('models: {}', 'unknown_tail: 1');
  const file = path.join(DIR, 'large.vtask');
  fs.writeFileSync(file, lines.join('\n'));
  assert.ok(fs.statSync(file).size > 3 << 20);
  await assertSame(file);
});

test('positions from segments read again agree with those of the whole text at every line, across segments of multi-byte text', () => {
  const lines = ['\ufeffvtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < 3000; i++) {
    lines.push(
      `  - id: t${i}\r`,
      `    prompt: "Tâche ${i} 日本語 \u{1f600} ${'x'.repeat(i % 50 === 0 ? 9000 : i % 40)}"`,
    );
    if (i % 3 === 0) lines.push('', '    # é');
  }
  const text = lines.join('\n');
  const file = path.join(DIR, 'segments.vtask');
  fs.writeFileSync(file, text);
  const chunked = readChunkedFile(file);
  assert.ok(chunked);
  const whole = new LineIndex(text);
  assert.equal(chunked.lines.lineCount, whole.lineCount);
  // Lines in turn, then from the end back, as an error listed after the tasks asks.
  const order = [...Array(whole.lineCount).keys()];
  for (const l of [...order, ...order.reverse()]) {
    assert.equal(chunked.lines.lineStart(l), whole.lineStart(l), `line ${l}`);
    const o = whole.lineStart(l) + (l % 5);
    assert.deepEqual(chunked.lines.position(o), whole.position(o), `offset ${o}`);
    assert.equal(chunked.lines.offset({ line: l, character: 7 }), whole.offset({ line: l, character: 7 }));
  }
  assert.deepEqual(chunked.lines.position(text.length + 5), whole.position(text.length + 5));
  assert.equal(chunked.textAt(100, 9000), text.slice(100, 9000));
});

test('files it cannot read a block at a time are left to the whole-text path', () => {
  const cases: Record<string, string | Buffer> = {
    'latin1.vtask': Buffer.from('vtask: 1\ntasks:\n  - id: caf\xe9\n', 'latin1'),
    'flow.vtask': 'vtask: 1\ntasks: [{id: a, prompt: x, verify: {match: {answer: x}}}]\n',
    'documents.vtask': 'vtask: 1\ntasks:\n  - id: a\n---\nvtask: 1\n',
    'long-line.vtask': `vtask: 1\ntasks:\n  - id: a\n    prompt: ${'x'.repeat(2_000_000)}\n`,
    'no-tasks.vtask': 'vtask: 1\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    const file = path.join(DIR, name);
    fs.writeFileSync(file, text);
    assert.equal(readChunkedFile(file), undefined, name);
  }
  assert.equal(readChunkedFile(DIR), undefined, 'a folder');
  assert.equal(readChunkedFile(path.join(DIR, 'missing.vtask')), undefined, 'a missing file');
});

test('its hash is the text hash of the file, and a file changed between the passes is an error', async () => {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < 30_000; i++) lines.push(`  - {id: t${i}, prompt: "Tâche ${i}: 2+2?"}`);
  const file = path.join(DIR, 'changed.vtask');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const chunked = readChunkedFile(file);
  assert.ok(chunked);
  assert.equal(chunked.hash, textHash(fs.readFileSync(file, 'utf8')));
  fs.writeFileSync(file, lines.join('\n').replace('t29999', 't29998') + '\n');
  await assert.rejects(async () => {
    for await (const _ of streamChunks(chunked).tasks);
  }, /changed while it was read: try again/);
});

test('a file of several megabytes is decoded in pieces small enough to die young, even as two-byte text', () => {
  // With blocks of a megabyte, a million-task file held about 90 MB of dead block strings.
  const file = path.join(DIR, 'two-byte.vtask');
  const lines = ['vtask: 1', 'tasks:'];
  for (let i = 0; i < 40_000; i++)
    lines.push(`  - {id: t${i}, prompt: "Tâche ${i}: 日本語で 2+2?", verify: {math: {answer: "4"}}}`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  // Both passes: the layout's, and the tasks' text.
  const {
    value: chars,
    longest,
    total,
  } = decodedStrings(() => {
    const chunked = readChunkedFile(file);
    assert.ok(chunked, 'read a block at a time');
    let n = 0;
    for (let i = 0; i < chunked.layout.taskCount; i++) n += chunked.taskText(i).length;
    return n;
  });
  assert.ok(chars > 2_000_000 && total > 2 * chars, `${total} characters decoded for ${chars} of tasks`);
  assert.ok(longest <= YOUNG_PIECE_CHARS, `a string of ${longest} characters was decoded`);
});
