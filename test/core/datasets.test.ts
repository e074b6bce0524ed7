// Training-data export and import, in the core: every example task through every format and
// back, checked by the verdicts the imported verifier gives on the original's cases; curation
// (splits, duplicates, mixes); the errors of tasks a format cannot express; bad rows reported
// with their line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { mixKeeps, parseSplit, splitOf } from '../../src/core/datasets/curate';
import { exportDataset, type ExportRequest } from '../../src/core/datasets/exportDataset';
import type { DatasetFormat } from '../../src/core/datasets/format';
import { EXPORT_FORMATS } from '../../src/core/datasets/formats';
import { importDataset, taskYaml } from '../../src/core/datasets/importDataset';
import { fromPyLiteral, toPyLiteral } from '../../src/core/datasets/pyLiteral';
import { openRowSink, readRows, type RowFileType } from '../../src/core/datasets/rowFiles';
import { findTaskFiles } from '../../src/core/taskfile/discover';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { toJS } from '../../src/core/base/ynode';
import { runnableTasks, type TaskSpec } from '../../src/core/taskfile/resolve';
import { verify } from '../../src/core/verifiers/verify';
import { CONFORMANCE_DIR, needsConformance } from '../support/conformance';

const ROOT = process.cwd();
const EXAMPLES = findTaskFiles([path.join(ROOT, 'examples')]).map((f) => path.relative(ROOT, f));
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-datasets-'));
const format = (name: string): DatasetFormat => EXPORT_FORMATS.get(name) as DatasetFormat;

function request(over: Partial<ExportRequest> & { format: DatasetFormat; out: string }): ExportRequest {
  return {
    files: EXAMPLES,
    type: over.out.endsWith('.parquet') ? 'parquet' : 'jsonl',
    settings: { version: 'test', promptStyle: 'conversational', viaVtask: false },
    seed: 0,
    dedupe: true,
    lossy: false,
    judgeModel: 'gpt-4.1',
    read: (f) => fs.readFileSync(path.resolve(ROOT, f), 'utf8'),
    ...over,
  };
}

function tasksOf(file: string): TaskSpec[] {
  return runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks;
}

const view = (t: TaskSpec) => ({
  id: t.id,
  prompt: t.prompt,
  messages: t.messages,
  meta: t.meta,
  dir: path.join(ROOT, 'examples'),
});

async function rows(file: string, type: RowFileType): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readRows(file, type)) out.push(r.row as Record<string, unknown>);
  return out;
}

test('Python literals: what ast.literal_eval reads, read back exactly', () => {
  const v = [
    {
      instruction_id: ['a:b'],
      kwargs: [{ relation: 'less than', num_words: 50, flag: true, none: null, text: 'it\'s "q"\n\u00e9' }, {}],
    },
  ];
  const text = toPyLiteral(v);
  assert.match(text, /None/);
  assert.match(text, /True/);
  assert.doesNotMatch(text, /null|true/);
  assert.deepEqual(fromPyLiteral(text), v);
  assert.deepEqual(fromPyLiteral("[{'a': (1, 2.5, -3e2), 'b': 'x\\'y'}]"), [{ a: [1, 2.5, -300], b: "x'y" }]);
  assert.throws(() => fromPyLiteral("[{'a': 1"), /offset/);
  assert.throws(() => fromPyLiteral('__import__("os")'), /unexpected/);
});

for (const name of ['open-instruct', 'verl', 'trl', 'openai-rft']) {
  for (const type of ['jsonl', 'parquet'] as const) {
    if (!format(name).outputs.includes(type)) continue;
    test(`${name} ${type}: every exported example comes back as a task whose verifier gives the same verdicts on its cases`, async () => {
      const dir = tmp();
      const out = path.join(dir, `data.${type}`);
      const report = await exportDataset(request({ format: format(name), out, lossy: true }));
      assert.equal(report.failed, false);
      const written = await rows(out, type);
      assert.ok(written.length >= 9, `${written.length} rows`);
      assert.equal(written.length + report.unexpressible.length, EXAMPLES.flatMap((f) => tasksOf(f)).length);
      const back = path.join(dir, 'back.vtask');
      // The examples' environments stay where they are, outside this temporary folder.
      const imported = await importDataset({ input: out, type, format: name, out: back, allowOutsidePaths: true });
      assert.deepEqual(imported.bad, []);
      const parsed = parseTaskFile(fs.readFileSync(back, 'utf8'));
      assert.deepEqual(
        parsed.issues.filter((i) => i.severity === 'error').map((i) => i.message),
        [],
      );
      const again = new Map(runnableTasks(parsed).tasks.map((t) => [t.id, t]));
      let compared = 0;
      for (const file of EXAMPLES) {
        for (const t of tasksOf(file)) {
          if (report.unexpressible.some((u) => u.task === t.id)) continue;
          const b = again.get(t.id);
          assert.ok(b, `${t.id} did not come back`);
          assert.deepEqual(b.messages, t.messages, t.id);
          // Code verdicts cost a sandbox each: the Parquet runs check that the verifier came
          // back as written, the JSONL runs that it gives the same verdicts.
          if (type === 'parquet' && 'code' in (t.verify as object)) {
            assert.deepEqual(b.verify, t.verify, t.id);
            continue;
          }
          for (const c of t.cases) {
            const want = await verify(t.verify, c.response, { task: view(t) });
            const got = await verify(b.verify, c.response, { task: view(b) });
            assert.deepEqual(
              [got.pass, got.score],
              [want.pass, want.score],
              `${t.id} case ${c.index}: ${got.reason} vs ${want.reason}`,
            );
            compared++;
          }
        }
      }
      assert.ok(compared >= 10, `${compared} cases compared`);
    });
  }
}

test('verl rows carry every field its RL dataset reads, and the verifier to score them again', async () => {
  const out = path.join(tmp(), 'verl.parquet');
  await exportDataset(request({ format: format('verl'), out, split: parseSplit('train=0.5,test=0.5'), seed: 3 }));
  const train = await rows(out.replace('.parquet', '.train.parquet'), 'parquet');
  const test = await rows(out.replace('.parquet', '.test.parquet'), 'parquet');
  assert.equal(train.length + test.length, 22);
  for (const [split, list] of [
    ['train', train],
    ['test', test],
  ] as const) {
    list.forEach((r, i) => {
      assert.equal(r.data_source, 'vtask');
      assert.ok(Array.isArray(r.prompt) && (r.prompt as { role: string }[]).at(-1)?.role === 'user');
      assert.equal((r.reward_model as { style: string }).style, 'rule');
      const extra = r.extra_info as Record<string, unknown>;
      assert.equal(extra.index, i);
      assert.equal(extra.split, split);
      assert.equal(typeof extra.task_id, 'string');
      assert.doesNotThrow(() => JSON.parse(extra.vtask_verifier as string));
    });
  }
  const math = [...train, ...test].find((r) => (r.extra_info as { task_id: string }).task_id === 'gsm8k/clips');
  assert.deepEqual(math?.reward_model, { style: 'rule', ground_truth: '72' });
  assert.equal(math?.ability, 'math');
});

test('a task the format cannot express is an error naming it, and nothing is written', async () => {
  const dir = tmp();
  const out = path.join(dir, 'oi.jsonl');
  const report = await exportDataset(request({ format: format('open-instruct'), out }));
  assert.equal(report.failed, true);
  assert.equal(fs.existsSync(out), false);
  assert.deepEqual(fs.readdirSync(dir), [], 'no temporary file is left');
  const code = report.unexpressible.find((u) => u.task === 'code/sum-stdin');
  assert.match(code?.reason ?? '', /no verifier for `code`.*--via-vtask/);
  assert.equal(code?.file, 'examples/code.vtask');
  assert.equal(code?.line, 5);
  assert.match(
    report.unexpressible.find((u) => u.task === 'vtask/every-word-a')?.reason ?? '',
    /`vtask:words_start_with`/,
  );
  const via = await exportDataset(
    request({
      format: format('open-instruct'),
      out,
      settings: { version: 't', promptStyle: 'conversational', viaVtask: true },
    }),
  );
  assert.equal(via.failed, false);
  const all = await rows(out, 'jsonl');
  assert.equal(all.length, 22);
  assert.ok(all.every((r) => r.dataset === 'vtask'));
});

test('open-instruct IFEval ground truth is the literal its ifeval verifier reads', async () => {
  const out = path.join(tmp(), 'oi.jsonl');
  await exportDataset(request({ format: format('open-instruct'), out, lossy: true }));
  const sea = (await rows(out, 'jsonl')).find((r) => r.task_id === 'ifeval/sea-no-commas');
  assert.equal(sea?.dataset, 'ifeval');
  const gt = fromPyLiteral(sea?.ground_truth as string) as { instruction_id: string[]; kwargs: unknown[] }[];
  assert.deepEqual(gt[0]?.instruction_id, ['length_constraints:number_words', 'punctuation:no_comma']);
  assert.deepEqual(gt[0]?.kwargs, [{ relation: 'less than', num_words: 50 }, {}]);
});

test('openai-rft: rule tasks get one python grader; judges and rules together are an error', async () => {
  const dir = tmp();
  const out = path.join(dir, 'rft.jsonl');
  const report = await exportDataset(request({ format: format('openai-rft'), out, lossy: true }));
  const grader = JSON.parse(fs.readFileSync(path.join(dir, 'rft.grader.json'), 'utf8')) as {
    type: string;
    source: string;
  };
  assert.equal(report.grader, path.join(dir, 'rft.grader.json'));
  assert.equal(grader.type, 'python');
  assert.match(grader.source, /def grade\(sample, item\)/);
  const mixed = path.join(dir, 'mixed.vtask');
  fs.writeFileSync(
    mixed,
    'vtask: 1\ntasks:\n  - id: j\n    prompt: p\n    verify: { judge: { rubric: [Is polite] } }\n  - id: m\n    prompt: q\n    verify: { math: { answer: "2" } }\n',
  );
  const r2 = await exportDataset(
    request({
      format: format('openai-rft'),
      out: path.join(dir, 'm.jsonl'),
      files: [mixed],
      read: (f) => fs.readFileSync(f, 'utf8'),
    }),
  );
  assert.equal(r2.failed, true);
  assert.match(r2.unexpressible.at(-1)?.reason ?? '', /one grader/);
  fs.writeFileSync(
    mixed,
    'vtask: 1\ntasks:\n  - id: b\n    prompt: q\n    verify: { math: { answer: "204", base: 5 } }\n',
  );
  const rb = await exportDataset(
    request({
      format: format('openai-rft'),
      out: path.join(dir, 'b.jsonl'),
      files: [mixed],
      read: (f) => fs.readFileSync(f, 'utf8'),
    }),
  );
  assert.equal(rb.failed, true);
  assert.match(
    rb.unexpressible.at(-1)?.reason ?? '',
    /`base` changes that/,
    'a math setting the Python grader lacks is not exported as if it were honoured',
  );
  fs.writeFileSync(
    mixed,
    'vtask: 1\ntasks:\n  - id: j\n    prompt: p\n    verify: { judge: { rubric: [Is polite, Is short] } }\n',
  );
  const r3 = await exportDataset(
    request({
      format: format('openai-rft'),
      out: path.join(dir, 'j.jsonl'),
      files: [mixed],
      read: (f) => fs.readFileSync(f, 'utf8'),
    }),
  );
  assert.equal(r3.failed, false);
  const judge = JSON.parse(fs.readFileSync(path.join(dir, 'j.grader.json'), 'utf8')) as {
    type: string;
    range: number[];
  };
  assert.equal(judge.type, 'score_model');
  assert.deepEqual(judge.range, [0, 1]);
  assert.deepEqual((await rows(path.join(dir, 'j.jsonl'), 'jsonl'))[0]?.rubric, '1. Is polite\n2. Is short');
});

test('splits are stable by task id: adding tasks never moves another task', () => {
  const splits = parseSplit('train=0.9,test=0.1');
  const ids = Array.from({ length: 2000 }, (_, i) => `t/${i}`);
  const before = ids.map((id) => splitOf(splits, 7, id));
  const after = [...ids, ...Array.from({ length: 500 }, (_, i) => `new/${i}`)].map((id) => splitOf(splits, 7, id));
  assert.deepEqual(after.slice(0, ids.length), before);
  const test = before.filter((s) => s === 'test').length;
  assert.ok(test > 150 && test < 250, `${test} of 2000 in test`);
  assert.notDeepEqual(
    ids.map((id) => splitOf(splits, 8, id)),
    before,
    'another seed gives another split',
  );
  assert.throws(() => parseSplit('train=0.9,test=0.2'), /add up to 1\.1/);
  assert.throws(() => parseSplit('train=0.9'), /at least two/);
  assert.throws(() => parseSplit('train:0.9,test=0.1'), /NAME=SHARE/);
});

test('duplicated prompts are dropped and reported with both places; --mix takes a share or a count', async () => {
  const dir = tmp();
  const a = path.join(dir, 'a.vtask');
  const b = path.join(dir, 'b.vtask');
  const task = (id: string, p: string) => `  - id: ${id}\n    prompt: ${p}\n    verify: { math: { answer: "1" } }\n`;
  fs.writeFileSync(a, 'vtask: 1\ntasks:\n' + Array.from({ length: 10 }, (_, i) => task(`a${i}`, `q${i}`)).join(''));
  fs.writeFileSync(b, 'vtask: 1\ntasks:\n' + task('b0', 'q3') + task('b1', 'fresh'));
  const read = (f: string): string => fs.readFileSync(f, 'utf8');
  const r = await exportDataset(
    request({ format: format('trl'), out: path.join(dir, 'o.jsonl'), files: [a, b], read }),
  );
  assert.deepEqual(
    r.duplicates.map((d) => [d.file, d.task, d.line, d.of.file, d.of.task, d.of.line]),
    [[b, 'b0', 3, a, 'a3', 12]],
  );
  assert.equal(r.outputs[0]?.rows, 11);
  const mixed = await exportDataset(
    request({ format: format('trl'), out: path.join(dir, 'm.jsonl'), files: [a, b], read, mix: new Map([[a, 0.5]]) }),
  );
  const a3Kept = mixKeeps(
    Array.from({ length: 10 }, (_, i) => `a${i}`),
    0.5,
    0,
    a,
  ).has('a3');
  assert.equal(mixed.outputs[0]?.rows, 5 + (a3Kept ? 1 : 2), '5 of a, b1, and b0 unless it repeats a kept a3');
  assert.equal(mixKeeps(['x', 'y', 'z'], 2, 0, 'f').size, 2);
  assert.deepEqual([...mixKeeps(['x', 'y', 'z'], 0.34, 1, 'f')], [...mixKeeps(['x', 'y', 'z'], 0.34, 1, 'f')]);
});

test('import: the IFEval prompt file becomes 541 valid constraint tasks', { skip: needsConformance }, async () => {
  const input = path.join(CONFORMANCE_DIR, 'ifeval_input_prompts.jsonl');
  const out = path.join(tmp(), 'ifeval.vtask');
  const report = await importDataset({ input, type: 'jsonl', out });
  assert.equal(report.format, 'ifeval');
  assert.deepEqual(report.bad, []);
  assert.equal(report.tasks, 541);
  const parsed = parseTaskFile(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(
    parsed.issues
      .filter((i) => i.severity === 'error')
      .map((i) => i.message)
      .slice(0, 5),
    [],
  );
  const tasks = runnableTasks(parsed).tasks;
  assert.equal(tasks.length, 541);
  assert.equal(tasks[0]?.id, 'ifeval/1000');
});

test('import: GSM8K rows take the answer after ####; bad rows are reported by line, the rest imported', async () => {
  const dir = tmp();
  const input = path.join(dir, 'gsm8k.jsonl');
  fs.writeFileSync(
    input,
    [
      JSON.stringify({
        question: 'Natalia sold 48 clips in April and half as many in May. How many in all?',
        answer: '48/2 = 24\n48+24 = 72\n#### 72',
      }),
      '{"question": "broken',
      '',
      JSON.stringify({ question: 'How much is 1,000 + 234?', answer: '#### 1,234' }),
      JSON.stringify({ question: 'no answer here' }),
    ].join('\n') + '\n',
  );
  const out = path.join(dir, 'gsm8k.vtask');
  const report = await importDataset({ input, type: 'jsonl', out });
  assert.equal(report.format, 'qa');
  assert.equal(report.tasks, 2);
  assert.deepEqual(
    report.bad.map((b) => b.where),
    ['line 2', 'line 5'],
  );
  assert.match(report.bad[1]?.reason ?? '', /no `answer`/);
  const tasks = tasksOf(out);
  assert.deepEqual(
    tasks.map((t) => t.verify),
    [{ math: { answer: '72' } }, { math: { answer: '1234' } }],
  );
});

test('U+2028 and U+2029 in a value survive writing the task file, again and again, unchanged', () => {
  for (const prompt of ['one\u2028two', 'line\nnext\u2028more\nend\u2029x\n', 'tab\u2028\tafter', '\u2029lead\nx']) {
    let value = prompt;
    for (let round = 0; round < 3; round++) {
      const text = `vtask: 1\ntasks:\n${taskYaml({ id: 't', messages: [{ role: 'user', content: value }], verify: { match: { answer: 'x' } } })}`;
      const file = parseTaskFile(text);
      assert.deepEqual(
        file.issues.filter((i) => i.severity === 'error'),
        [],
        JSON.stringify(text),
      );
      value = (toJS(file.tasks[0]?.node) as { prompt: string }).prompt;
      assert.equal(value, prompt, `round ${round}: ${JSON.stringify(text)}`);
    }
  }
});

test('a Parquet string that starts with a BOM is read as written, in JSONL and Parquet alike', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bom-'));
  try {
    const values = ['\ufeffhello', 'plain', '\ufeff\ufeffdouble', 'mid\ufeffdle'];
    const columns = [
      {
        name: 'text',
        schema: [{ name: 'text', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }],
      },
    ];
    for (const type of ['parquet', 'jsonl'] as const) {
      const file = path.join(dir, `rows.${type}`);
      const sink = await openRowSink(file, type, columns);
      for (const text of values) await sink.write({ text });
      await sink.close();
      const read: unknown[] = [];
      for await (const r of readRows(file, type)) read.push(r.row?.text);
      assert.deepEqual(read, values, type);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
