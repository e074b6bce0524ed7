import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputFor, sameRow, verifierForm } from '../../src/core/panel/form';
import { answerSpan, DISPLAY_CHARS, reverify, sampleView } from '../../src/core/panel/samples';
import { panelTaskView } from '../../src/core/panel/view';
import type { SampleResult, TaskRunResult } from '../../src/core/run/sampleTasks';
import { taskStats } from '../../src/core/stats';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import type { Verdict } from '../../src/core/verifiers/verdict';
import { rowIdentity, toPanel, type FormRow } from '../../src/core/base/panelProtocol';

const FILE = `vtask: 1
tasks:
  - id: sea
    prompt: Describe the sea in under 50 words without commas.
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 50 }
        - punctuation:no_comma
  - id: arith
    prompt: What is 6 * 7?
    verify:
      math: { answer: "42", final_only: true }
  - id: both
    prompt: x
    verify:
      all:
        - match: { answer: yes }
        - weighted:
            of:
              - { weight: 2, verify: { format: { think: required } } }
`;

const file = parseTaskFile(FILE);
const specs = runnableTasks(file).tasks;
const spec = (id: string) => specs.find((t) => t.id === id) ?? assert.fail(id);
const rows = (i: number): FormRow[] => verifierForm(file.tasks[i]?.node ?? null).rows;
const field = (rs: FormRow[], path: (string | number)[]) =>
  rs.find((r) => r.type === 'field' && JSON.stringify(r.path) === JSON.stringify(path));

test('the form lays out constraints with their kwargs, typed by the instruction schema', () => {
  const rs = rows(0);
  const base = ['verify', 'constraints', 0, 'length_constraints:number_words'];
  const relation = field(rs, [...base, 'relation']);
  assert.ok(relation?.type === 'field' && relation.doc);
  assert.deepEqual(
    { ...relation, doc: undefined },
    {
      type: 'field',
      path: [...base, 'relation'],
      depth: 2,
      label: 'relation',
      doc: undefined,
      input: 'enum',
      options: ['less than', 'at least'],
      value: 'less than',
    },
  );
  assert.equal(
    field(rs, [...base, 'num_words'])?.type === 'field' &&
      (field(rs, [...base, 'num_words']) as { input: string }).input,
    'number',
  );
  const headings = rs.filter((r) => r.type === 'heading').map((r) => r.label);
  assert.deepEqual(headings, ['constraints', 'length_constraints:number_words', 'punctuation:no_comma']);
  const add = rs.find((r) => r.type === 'add');
  assert.ok(
    add && add.type === 'add' && add.options.includes('keywords:existence'),
    'an add row offers every instruction id',
  );
  // Every row is a valid protocol row.
  assert.ok(
    toPanel.safeParse({
      type: 'task',
      task: {
        id: 'x',
        file: 'f',
        messages: [],
        verifier: { kind: 'k', summary: '' },
        form: rs,
        cases: [],
        samples: [],
      },
    }).success,
  );
});

test('an added constraint carries its required kwargs; a verifier its required fields; an option its example', () => {
  const form = verifierForm(file.tasks[0]?.node ?? null);
  const add = (f: typeof form, path: (string | number)[], choice: string) => f.additionFor(path, choice);
  assert.deepEqual(add(form, ['verify', 'constraints'], 'punctuation:no_comma'), {
    type: 'item',
    value: 'punctuation:no_comma',
  });
  const item = add(form, ['verify', 'constraints'], 'keywords:frequency');
  assert.ok(item?.type === 'item');
  assert.deepEqual(
    Object.keys((item.value as Record<string, Record<string, unknown>>)['keywords:frequency'] ?? {}).sort(),
    ['frequency', 'keyword', 'relation'],
  );
  assert.equal(add(form, ['verify', 'constraints'], 'no:such-id'), undefined);
  const nested = verifierForm(file.tasks[2]?.node ?? null);
  assert.deepEqual(add(nested, ['verify', 'all'], 'math'), { type: 'item', value: { math: {} } });
  // Math options not written yet (a tolerance, say) are offered with their examples.
  const math = verifierForm(file.tasks[1]?.node ?? null);
  const options = math.rows.find(
    (r) => r.type === 'add' && JSON.stringify(r.path) === JSON.stringify(['verify', 'math']),
  );
  assert.ok(options?.type === 'add' && options.options.includes('tolerance') && !options.options.includes('answer'));
  const tolerance = add(math, ['verify', 'math'], 'tolerance');
  assert.equal(tolerance?.type, 'key');
  assert.equal(add(math, ['verify', 'math'], 'answer'), undefined, 'a key already there is not offered');
  // `final_only` is optional: its row can be removed.
  const finalOnly = math.rows.find((r) => r.type === 'field' && r.label === 'final_only');
  assert.ok(finalOnly?.type === 'field' && finalOnly.removable);
  assert.ok(sameRow(math.rows, ['verify', 'math', 'final_only'], rowIdentity(finalOnly)));
  assert.ok(!sameRow(math.rows, ['verify', 'math', 'final_only'], 'final_only=false'));
});

test('math fields, nested verifiers and weighted items get rows at their YAML paths', () => {
  const m = rows(1);
  assert.equal((field(m, ['verify', 'math', 'answer']) as { value: unknown }).value, '42');
  assert.equal((field(m, ['verify', 'math', 'final_only']) as { input: string }).input, 'boolean');
  const n = rows(2);
  assert.ok(field(n, ['verify', 'all', 0, 'match', 'answer']));
  assert.equal((field(n, ['verify', 'all', 1, 'weighted', 'of', 0, 'weight']) as { value: unknown }).value, 2);
  assert.ok(field(n, ['verify', 'all', 1, 'weighted', 'of', 0, 'verify', 'format', 'think']));
});

test('inputs follow the schema, then the value', () => {
  assert.equal(inputFor(undefined, true).input, 'boolean');
  assert.equal(inputFor(undefined, 3).input, 'number');
  assert.equal(inputFor(undefined, 'a\nb').input, 'multiline');
  assert.equal(inputFor(undefined, 'short').input, 'text');
});

function verdict(pass: boolean, details: Record<string, unknown> = {}): Verdict {
  return { pass, score: pass ? 1 : 0, reason: pass ? 'ok' : 'no', details };
}

function sample(index: number, text: string, v: Verdict): SampleResult {
  return {
    index,
    text,
    cached: true,
    finishReason: 'stop',
    truncated: false,
    verdict: v,
    model: 'm',
    takenAt: '2026-01-01T00:00:00Z',
    verifiedBy: 'test',
  };
}

function run(task: ReturnType<typeof spec>, samples: SampleResult[]): TaskRunResult {
  return { task, model: 'test (m)', samples, stats: taskStats(samples.map((s) => s.verdict)), requests: 0 };
}

test('re-verifying cached samples with a changed verifier reports what flipped', async () => {
  const texts = ['The sea is calm and grey.', 'The sea, wide and grey.', 'word '.repeat(60).trim()];
  const before = spec('sea');
  const first = await reverify(
    before,
    run(
      before,
      texts.map((t, i) => sample(i, t, verdict(false))),
    ),
    { file: '/tmp/x.vtask', trusted: true },
  );
  assert.deepEqual(
    first.run.samples.map((s) => s.verdict.pass),
    [true, false, false],
  );
  assert.equal(first.gained, 1);
  assert.equal(first.run.requests, 0);
  // The author raises the limit to 100 words: the 60-word answer now passes.
  const edited = parseTaskFile(FILE.replace('num_words: 50', 'num_words: 100'));
  const after = runnableTasks(edited).tasks.find((t) => t.id === 'sea') ?? assert.fail();
  const second = await reverify(after, first.run, { file: '/tmp/x.vtask', trusted: true });
  assert.deepEqual(
    second.run.samples.map((s) => s.verdict.pass),
    [true, false, true],
  );
  assert.deepEqual([second.gained, second.lost], [1, 0]);
  assert.equal(second.run.stats.passed, 2);
  const views = second.run.samples.map((s) => sampleView(s, second.before.get(s.index)));
  assert.deepEqual(
    views.map((v) => v.flip),
    [undefined, undefined, 'gained'],
  );
});

test('the answer the verifier read is located for highlighting, after any think block', () => {
  const text = '<think>maybe 42</think>So the answer is \\boxed{42}.';
  const span = answerSpan(text, verdict(true, { extracted: '42' }));
  assert.ok(span);
  assert.equal(text.slice(span[0], span[1]), '42');
  assert.ok(span[0] > text.indexOf('</think>'));
  assert.equal(answerSpan('nothing here', verdict(false, { extracted: '42' })), undefined);
  assert.equal(answerSpan('42 only in <think>42</think> x', verdict(false, { extracted: '42' })), undefined);
});

test('huge answers are clipped for display, never for the verdict, keeping the final answer', () => {
  const big = `${'x'.repeat(DISPLAY_CHARS * 3)} so the answer is \\boxed{42}`;
  const v = sampleView(sample(0, big, verdict(true, { extracted: '42' })));
  assert.equal(v.clipped, true);
  assert.ok(v.text.length < DISPLAY_CHARS + 100);
  assert.match(v.text, /characters not shown/);
  assert.ok(v.text.endsWith('\\boxed{42}'));
  assert.ok(v.answer);
  assert.equal(v.text.slice(v.answer[0], v.answer[1]), '42', 'the highlight moves with the end');
});

test('the task view validates against the protocol and shows a task with errors by its form', async () => {
  const t = spec('arith');
  const r = await reverify(t, run(t, [sample(0, '\\boxed{42}', verdict(false)), sample(1, '41', verdict(true))]), {
    file: '/tmp/x.vtask',
    trusted: true,
  });
  const entry = file.tasks[1] ?? assert.fail();
  const view = panelTaskView('x.vtask', entry, t, undefined, { run: r.run, flips: r, fresh: true });
  assert.ok(toPanel.safeParse({ type: 'task', task: view }).success);
  assert.deepEqual(view.run?.flips, { gained: 1, lost: 1 });
  assert.deepEqual(
    view.samples.map((s) => s.flip),
    ['gained', 'lost'],
  );
  const broken = parseTaskFile(FILE.replace('num_words: 50', 'num_words: many'));
  const bad = broken.tasks[0] ?? assert.fail();
  const badView = panelTaskView(
    'x.vtask',
    bad,
    runnableTasks(broken).tasks.find((x) => x.index === 0),
    undefined,
    undefined,
  );
  assert.equal(badView.verifier.kind, '?');
  assert.ok(
    badView.form.some((row) => row.type === 'field' && row.value === 'many'),
    'the form still shows the bad value, to fix it there',
  );
});
