// The verifier audit: every deliberately weak verifier is flagged by the probe made for its
// weakness, sound verifiers and the examples raise no false alarm at high severity, and the
// probe builders (wrong answers of the same shape, number words, program mutants) do what
// they say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atLeast, auditTasks, findingCount, selectedProbes, type TaskAudit } from '../../src/core/audit/audit';
import { mutantsOf } from '../../src/core/audit/codeProbes';
import { PROBE_FAMILIES, unknownProbeNames } from '../../src/core/audit/probes';
import { findInterpreter } from '../../src/core/sandbox';
import { verifierFixes } from '../../src/core/audit/fixes';
import { calibrateJudge } from '../../src/core/audit/calibrate';
import type { VerifyContext } from '../../src/core/verifiers/verdict';
import { numberWords, wrongLike } from '../../src/core/audit/gold';
import { importDataset } from '../../src/core/datasets/importDataset';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { CONFORMANCE_DIR, needsConformance } from '../support/conformance';

const ROOT = process.cwd();

async function auditFile(rel: string): Promise<TaskAudit[]> {
  const file = path.join(ROOT, rel);
  const { tasks } = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8')));
  return auditTasks(tasks, { file });
}

const flagged = (
  audits: readonly TaskAudit[],
  floor: 'low' | 'medium' | 'high' | 'critical',
): Record<string, string[]> =>
  Object.fromEntries(
    audits
      .map(
        (a) =>
          [
            a.task,
            a.findings
              .filter((f) => atLeast(f.severity, floor))
              .map((f) => f.probe)
              .sort(),
          ] as const,
      )
      .filter(([, p]) => p.length),
  );

void test('every weak verifier is flagged by the probe aimed at its weakness', async () => {
  const audits = await auditFile('test/fixtures/audit/weak.vtask');
  const found = flagged(audits, 'medium');
  assert.deepEqual(found['contains-hedge'], ['candidate-list', 'hedge-gold-first', 'hedge-gold-last']);
  assert.deepEqual(found['last-tag-hedge'], ['hedge-gold-last']);
  assert.deepEqual(found['regex-accepts-anything'], [
    'arbitrary-number',
    'arbitrary-word',
    'echo-prompt',
    'empty',
    'refusal',
    'whitespace',
  ]);
  // A regex that accepts any number: an arbitrary one passes, and so does a passing case with its numbers changed.
  assert.deepEqual(found['regex-any-number'], ['arbitrary-number']);
  assert.deepEqual(found['regex-any-number-cased'], ['arbitrary-number', 'perturbed-number-case0']);
  const perturbed = audits
    .find((a) => a.task === 'regex-any-number-cased')
    ?.findings.find((f) => f.probe === 'perturbed-number-case0');
  assert.deepEqual(
    [perturbed?.response, perturbed?.severity, perturbed?.family],
    ['49 / 3 = 25 in May, so <answer>73</answer>', 'high', 'wrong-answer'],
  );
  assert.match(perturbed?.reason ?? '', /case 0 passes; with every number changed its answer is wrong/);
  assert.deepEqual(found['choice-letter-regex'], ['echo-prompt', 'perturbed-option-case0']);
  // A check of form alone on a factual question: a refusal inside <think></think> passes it.
  assert.deepEqual(found['think-only'], ['refusal-formatted']);
  const refusal = audits.find((a) => a.task === 'think-only')?.findings[0];
  assert.deepEqual(
    [refusal?.severity, refusal?.family, refusal?.response],
    ['high', 'degenerate', "<think>I do not know the answer.</think>\nI'm sorry, but I can't help with that."],
  );
  // A gold answer the verifier cannot parse would refuse every response, the right one too: it is
  // an error of the file at the answer, so the task never reaches a run or the audit.
  assert.equal(
    audits.find((a) => a.task === 'unparseable-gold'),
    undefined,
  );
  const text = fs.readFileSync(path.join(ROOT, 'test/fixtures/audit/weak.vtask'), 'utf8');
  const goldIssue = parseTaskFile(text).issues.find(
    (i) => i.severity === 'error' && text.slice(i.start, i.end).includes('\\frac{3}{'),
  );
  assert.ok(goldIssue, 'the unreadable gold is an error at its answer');
  assert.match(goldIssue.message, /could not|cannot|parse|read/i);
  assert.deepEqual(found['json-any-object'], ['json-empty-object']);
  assert.ok(found['asserts-check-nothing']?.includes('does-nothing'), JSON.stringify(found['asserts-check-nothing']));
  assert.deepEqual(found['one-output-test'], ['print-expected']);
  assert.deepEqual(
    found['weak-tests-mutant'],
    ['mutant-case0-2'],
    'the `return True` mutant passes `assert is_even(2)`',
  );
  const mutant = audits.find((a) => a.task === 'weak-tests-mutant')?.findings[0];
  assert.match(mutant?.response ?? '', /return True/);
  assert.match(mutant?.reason ?? '', /case 0 with its return value replaced by true on line 2/);
  const empty = audits.find((a) => a.task === 'regex-accepts-anything')?.findings.find((f) => f.probe === 'empty');
  assert.equal(empty?.severity, 'critical');
  assert.equal(empty?.verdict, 'pass');
  assert.equal(empty?.expected, 'fail');
});

void test('sound verifiers raise no finding at medium or above; code exploits are all caught', async () => {
  const audits = await auditFile('test/fixtures/audit/sound.vtask');
  assert.deepEqual(flagged(audits, 'medium'), {});
  const code = audits.find((a) => a.task === 'add-tested');
  assert.ok(code && code.probes >= 6, `${code?.probes} probes`);
  assert.deepEqual(code?.skipped, [], 'code probes ran in the sandbox');
});

void test('the examples raise no critical finding, and the high ones are a real hedge', async () => {
  const dir = path.join(ROOT, 'examples');
  const all: TaskAudit[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.vtask')))
    all.push(...(await auditFile(path.join('examples', f))));
  assert.ok(all.length >= 15);
  assert.deepEqual(flagged(all, 'critical'), {});
  // `match` with `tag` reads the last tag: "<answer>Lyon</answer> or <answer>Canberra</answer>"
  // passes; kv/lookup-fr's `trajectory` and `state` parts pass the hedge too once it comes after
  // the passing case's call.
  assert.deepEqual(flagged(all, 'high'), {
    'trivia/capital': ['hedge-gold-last'],
    'kv/lookup-fr': ['hedge-gold-last'],
  });
  // The agent examples' states do not show which key was read or which operands were used: the
  // calls with wrong arguments and the right answer pass, and nothing else of theirs does.
  const agent = Object.fromEntries(Object.entries(flagged(all, 'medium')).filter(([id]) => /^(kv|calc)\//.test(id)));
  assert.deepEqual(agent, {
    'kv/lookup-fr': ['agent-wrong-args-case0-1', 'hedge-gold-last'],
    'calc/add-38-47': ['agent-wrong-args-case0-1'],
    'calc/mul-345-12': ['agent-wrong-args-case0-1'],
    'calc/sub-908-77': ['agent-wrong-args-case0-1'],
    'calc/add-only': ['agent-wrong-args-case0-1'],
  });
  assert.deepEqual(
    all.filter((a) => a.skipped.length).map((a) => [a.task, a.skipped]),
    [],
    'the agent probes ran in the sandbox',
  );
});

/** Task file with asserts in both languages and a `call` task, for the code probes aimed at the harness. */
const HARNESS_TASKS = `vtask: 1
tasks:
  - id: py-asserts
    prompt: Write add(a, b) and is_even(n).
    verify:
      code: { language: python, asserts: "assert add(1, 2) == 3\\nassert is_even(add(1, 1))\\nassert len([add(2, 2)]) == 1" }
  - id: js-asserts
    prompt: Write add(a, b).
    verify:
      code: { language: javascript, asserts: "assert.strictEqual(add(1, 2), 3);\\nassert(add(2, 2) === 4);" }
  - id: py-call
    prompt: Write add(a, b).
    verify:
      code: { language: python, call: { function: add, cases: [{ args: [1, 2], returns: 3 }] } }
`;

/**
 * A runner of the kind these probes catch: the answer and then the asserts in one Python
 * process, the outcome kept in a list the answer's frames can reach; exit 0 means pass.
 */
const NAIVE_RUNNER = `import sys, threading
outcome = []
def run():
    ns = {"__name__": "__main__"}
    try:
        exec(compile(sys.argv[1], "main.py", "exec"), ns)
        exec(compile(sys.argv[2], "asserts", "exec"), ns)
        outcome.append(None)
    except BaseException as e:
        outcome.append(e)
t = threading.Thread(target=run)
t.start()
t.join()
sys.exit(0 if outcome and outcome[0] is None else 1)
`;

void test('code probes: an always-equal answer and a harness attack pass a naive asserts runner, and the code verifier fails both', async (t) => {
  const { tasks } = runnableTasks(parseTaskFile(HARNESS_TASKS));
  const task = (id: string) => tasks.find((x) => x.id === id)!;
  const probe = (id: string, probeId: string) => selectedProbes(task(id), new Set([probeId]))[0];
  const code = (response: string | undefined): string => /```\w*\n([\s\S]*)\n```/.exec(response ?? '')?.[1] ?? '';

  const py = code(probe('py-asserts', 'always-equal')?.response);
  assert.match(py, /^add = _same$/m);
  assert.match(py, /^is_even = _same$/m);
  assert.doesNotMatch(py, /^(len|assert) = /m, 'builtins and keywords are not redefined');
  assert.match(code(probe('js-asserts', 'always-equal')?.response), /function add\(\) \{ return SAME; \}/);
  assert.ok(probe('py-call', 'always-equal'), 'call tasks get the always-equal probe');
  assert.equal(probe('py-call', 'harness-attack'), undefined, 'only asserts run in a harness');

  // The probes have teeth: a runner that compares in the answer's process passes both.
  const python = findInterpreter('python');
  if (!python) return t.skip('needs: python3');
  const asserts = (task('py-asserts').verify as { code: { asserts: string } }).code.asserts;
  const naive = (answer: string): number | null =>
    spawnSync(python.path, ['-c', NAIVE_RUNNER, answer, asserts], { timeout: 20_000 }).status;
  assert.equal(
    naive('def add(a, b):\n    return a - b\ndef is_even(n):\n    return n % 2 == 0'),
    1,
    'the naive runner fails a plain wrong answer',
  );
  assert.equal(naive(py), 0, 'the always-equal answer passes the naive runner');
  assert.equal(
    naive(code(probe('py-asserts', 'harness-attack')?.response)),
    0,
    'the harness attack passes the naive runner',
  );

  // The code verifier fails them: no finding.
  const audits = await auditTasks(tasks, {
    file: path.join(ROOT, 'harness.vtask'),
    only: new Set(['always-equal', 'harness-attack']),
    trusted: true,
  });
  for (const a of audits) {
    assert.deepEqual(a.skipped, [], `${a.task}: the probes ran`);
    assert.deepEqual(
      a.findings.map((f) => `${f.probe}: ${f.reason}`),
      [],
      a.task,
    );
  }
  assert.equal(
    audits.reduce((n, a) => n + a.probes, 0),
    5,
  );
});

void test('--probes selects by id, by family, and by a probe name without its number', () => {
  const { tasks } = runnableTasks(
    parseTaskFile(fs.readFileSync(path.join(ROOT, 'test/fixtures/audit/weak.vtask'), 'utf8')),
  );
  const mutantTask = tasks.find((t) => t.id === 'weak-tests-mutant')!;
  assert.deepEqual(
    selectedProbes(mutantTask, new Set(['empty'])).map((p) => p.id),
    ['empty'],
  );
  assert.ok(selectedProbes(mutantTask, new Set(['code-mutant'])).every((p) => p.family === 'code-mutant'));
  assert.ok(selectedProbes(mutantTask, new Set(['mutant'])).length >= 3);
  const cased = tasks.find((t) => t.id === 'regex-any-number-cased')!;
  assert.deepEqual(
    selectedProbes(cased, new Set(['perturbed-number'])).map((p) => p.id),
    ['perturbed-number-case0'],
  );
  assert.deepEqual(
    unknownProbeNames([
      'empty',
      'mutant-case0-2',
      'option-B',
      'perturbed-number-case3',
      'calibration',
      'agent',
      'nonsense',
      'hedge-gold',
    ]),
    ['nonsense', 'hedge-gold'],
  );
});

void test('every probe made has a name --probes knows, and every family is made for some task', async () => {
  const files = [
    'test/fixtures/audit/weak.vtask',
    'test/fixtures/audit/sound.vtask',
    ...fs
      .readdirSync(path.join(ROOT, 'examples'))
      .filter((f) => f.endsWith('.vtask'))
      .map((f) => path.join('examples', f)),
  ];
  const tasks = files.flatMap((f) => runnableTasks(parseTaskFile(fs.readFileSync(path.join(ROOT, f), 'utf8'))).tasks);
  const judged = runnableTasks(
    parseTaskFile(
      'vtask: 1\ntasks:\n  - { id: j, prompt: "Capital of France?", verify: { judge: { rubric: ["Names Paris"] } } }\n',
    ),
  ).tasks;
  const probes = [...tasks, ...judged].filter((t) => !t.environment).flatMap((t) => selectedProbes(t));
  assert.deepEqual(unknownProbeNames(new Set(probes.map((p) => p.id))), []);
  const families = new Set(probes.map((p) => p.family));
  assert.deepEqual(
    PROBE_FAMILIES.filter((f) => f !== 'agent' && !families.has(f)),
    [],
    'agent probes are made in the environment: auditAgent.test.ts',
  );
  assert.deepEqual(
    selectedProbes(judged[0]!, new Set(['injection'])).map((p) => p.id),
    ['injection-instruction', 'injection-forged-verdict'],
  );
});

void test('finding counts read the same in the CLI and the editor', () => {
  assert.equal(findingCount([]), '0 findings');
  assert.equal(findingCount([{ severity: 'low' }]), '1 finding (1 low)');
  assert.equal(
    findingCount([{ severity: 'low' }, { severity: 'critical' }, { severity: 'high' }]),
    '3 findings (1 critical, 1 high, 1 low)',
  );
});

void test('wrong answers keep the shape of the gold one; number words', () => {
  assert.equal(wrongLike('72'), '73');
  assert.equal(wrongLike('-1'), '0');
  assert.equal(wrongLike('0.25'), '1.25');
  assert.equal(wrongLike('4.123105625617661'), '5.123105625617661');
  assert.equal(wrongLike('\\frac{3}{4}'), '\\frac{3}{5}');
  assert.equal(wrongLike('x = 11'), 'x = 12');
  assert.equal(wrongLike('204_5'), '205_5');
  assert.equal(wrongLike('a_{3} = 7'), 'a_{3} = 8');
  assert.equal(wrongLike('\\frac{\\pi r}{h+r}'), '\\frac{\\pi r}{h+r} + 1');
  assert.equal(wrongLike('B'), 'C');
  assert.equal(wrongLike('Paris'), 'Lyon');
  assert.equal(wrongLike('12345678901234567890'), '12345678901234567891');
  assert.equal(numberWords(72), 'seventy-two');
  assert.equal(numberWords(105), 'one hundred and five');
  assert.equal(numberWords(1000), undefined);
});

void test('mutants change the program, never inside a string, and each differs', () => {
  const code = 'def f(a, b):\n    s = "a+b<c"\n    if a < b and b > 0:\n        return a + b\n    return 0';
  const ms = mutantsOf(code, 'python');
  assert.ok(ms.length >= 5, ms.map((m) => m.what).join('; '));
  assert.equal(new Set(ms.map((m) => m.code)).size, ms.length);
  for (const m of ms) {
    assert.notEqual(m.code, code);
    assert.match(m.code, /s = "a\+b<c"/, `${m.what} left the string alone`);
  }
  assert.ok(ms.some((m) => m.code.includes('if a <= b')));
  assert.ok(ms.some((m) => m.code.includes('return a - b')));
  assert.ok(ms.some((m) => m.code.includes(' or ')));
  assert.ok(mutantsOf('function f(x) { return x === 1 && x > 0; }', 'javascript').some((m) => m.code.includes('!==')));
});

void test(
  'the conformance tasks: no high finding on IFEval; on Math-Verify answers, only the pinned weaknesses of the math verifier',
  { skip: needsConformance },
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-conformance-'));
    // Math-Verify's gold answers (of the pairs it expects to match) as math tasks: those that are
    // answers, not whole solutions with boxes and prose.
    const strip = (g: string): string =>
      g
        .trim()
        .replace(/^\$+|\$+$/g, '')
        .replace(/^\\\(|\\\)$/g, '')
        .replace(/^\\\[|\\\]$/g, '')
        .trim();
    const answerLike = (g: string): boolean =>
      g.length > 0 && g.length <= 40 && !/boxed|\$|\\\[|\\\(|\s{2}|[a-z]{4,} [a-z]{4,}/i.test(g);
    const golds = [
      ...new Set(
        fs
          .readFileSync(path.join(CONFORMANCE_DIR, 'math_verify_pairs.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { gold: string; expected: number })
          .filter((r) => r.expected === 1)
          .map((r) => strip(r.gold))
          .filter(answerLike),
      ),
    ];
    const math = path.join(dir, 'math.vtask');
    fs.writeFileSync(
      math,
      `vtask: 1\ntasks:\n${golds.map((g, i) => `  - id: mv-${i}\n    prompt: "Solve it."\n    verify: { math: { answer: ${JSON.stringify(g)} } }\n`).join('')}`,
    );
    // IFEval's 541 prompts, imported as vtask imports them.
    const ifeval = path.join(dir, 'ifeval.vtask');
    await importDataset({
      input: path.join(CONFORMANCE_DIR, 'ifeval_input_prompts.jsonl'),
      type: 'jsonl',
      out: ifeval,
    });
    const figures: string[] = [];
    for (const file of [math, ifeval]) {
      const { tasks } = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8')));
      assert.ok(tasks.length > 100, `${file}: ${tasks.length} tasks`);
      const audits = await auditTasks(tasks, { file });
      const count = (s: string): number =>
        audits.reduce((n, a) => n + a.findings.filter((f) => f.severity === s).length, 0);
      figures.push(
        `${path.basename(file)}: ${tasks.length} tasks, findings ${['critical', 'high', 'medium', 'low'].map((s) => `${count(s)} ${s}`).join(', ')}`,
      );
      const high = flagged(audits, 'high');
      if (file === ifeval) assert.deepEqual(high, {});
      // Real holes, not false alarms: with this answer the math verifier passes a hedge (the
      // gold answer boxed beside a wrong one) or a wrong answer of the same shape (units are
      // dropped, cm^3 with them). Pinned so that a fix, or a new hole, shows here.
      else
        assert.deepEqual(
          Object.keys(high)
            .map((id) => golds[Number(id.slice(3))])
            .sort(),
          ['15\\mbox{ cm}^2'],
        );
    }
    fs.rmSync(dir, { recursive: true, force: true });
    t.diagnostic(figures.join('; '));
  },
);

void test('clear fixes are offered where they are clear, and the fixed verifier has no high finding', async () => {
  const file = path.join(ROOT, 'test/fixtures/audit/weak.vtask');
  const { tasks } = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8')));
  const audits = await auditTasks(tasks, {
    file,
    only: new Set(['degenerate', 'hedge', 'right-answer', 'wrong-answer']),
  });
  const fixesOf = (id: string) =>
    verifierFixes(tasks.find((t) => t.id === id)?.verify, audits.find((a) => a.task === id)?.findings ?? []);
  const contains = fixesOf('contains-hedge');
  assert.deepEqual(
    contains.map((f) => f.verify),
    [{ math: { answer: '72' } }, { match: { answer: '72', mode: 'normalized' } }],
  );
  assert.deepEqual(fixesOf('last-tag-hedge'), [], 'no clear fix: the last tag is how the verifier reads');
  assert.deepEqual(fixesOf('regex-accepts-anything'), [], 'anchoring .* would still accept an empty answer');
  for (const fix of contains) {
    const [fixed] = await auditTasks([{ ...tasks.find((t) => t.id === 'contains-hedge')!, verify: fix.verify }], {
      file,
    });
    assert.deepEqual(
      fixed?.findings.filter((f) => atLeast(f.severity, 'high')),
      [],
      fix.title,
    );
  }
  const anchored = verifierFixes({ match: { answer: '\\d+', mode: 'regex' } }, [
    {
      probe: 'refusal',
      family: 'degenerate',
      severity: 'high',
      response: '',
      verdict: 'pass',
      expected: 'fail',
      reason: '',
      details: {},
    },
  ]);
  assert.deepEqual(
    anchored.map((f) => f.verify),
    [{ match: { answer: '^(?:\\d+)$', mode: 'regex' } }],
  );
});

void test("calibration thresholds: a task's own meta.calibration comes before the defaults", async () => {
  // A judge that grants every criterion: it agrees with the pass case and not with the fail case.
  const yes: VerifyContext['judge'] = () => ({
    id: 'always-yes',
    async sample(request) {
      const n = [...(request.messages.at(-1)?.content ?? '').matchAll(/^\d+\. /gm)].length;
      return [
        {
          text: JSON.stringify({
            criteria: Array.from({ length: n }, (_, i) => ({ id: i + 1, met: true, why: 'yes' })),
          }),
          finishReason: 'stop',
          model: 'always-yes',
          takenAt: '2026-01-01T00:00:00.000Z',
        },
      ];
    },
  });
  const text = (meta: string) =>
    `vtask: 1\ntasks:\n  - id: j\n    prompt: "Capital of France?"\n    verify: { judge: { rubric: ["Names Paris"] } }\n${meta}    cases:\n      - { response: "Paris.", expect: pass }\n      - { response: "Lyon.", expect: fail }\n`;
  const calibrate = async (meta: string) => {
    const task = runnableTasks(parseTaskFile(text(meta))).tasks[0]!;
    return calibrateJudge(task, path.join(ROOT, 'x.vtask'), { judge: yes, repeats: 2 });
  };
  const strict = await calibrate('');
  assert.equal(strict?.agreement, 0.5);
  assert.deepEqual(
    strict?.findings.map((f) => f.probe),
    ['calibration-agreement'],
  );
  const lenient = await calibrate('    meta: { calibration: { min_agreement: 0.5 } }\n');
  assert.deepEqual(lenient?.findings, []);
});

test('a choice task is probed with each of its options', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-kinds-'));
  try {
    const file = path.join(dir, 'kinds.vtask');
    fs.writeFileSync(
      file,
      'vtask: 1\ntasks:\n  - id: pick\n    prompt: "Which is prime? A) 4 B) 5 C) 6"\n    verify: { choice: { answer: B, options: [A, B, C] } }\n',
    );
    const { tasks } = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8')));
    const [pick] = await auditTasks(tasks, { file, only: new Set(['option']) });
    assert.equal(pick?.probes, 3, 'one probe per option');
    assert.deepEqual(pick?.findings, [], 'the choice verifier passes B alone');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an empty answer passing a form-only verifier is a medium finding; a composite is not faulted for failing a bare right answer', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-severity-'));
  try {
    const file = path.join(dir, 'form.vtask');
    fs.writeFileSync(
      file,
      [
        'vtask: 1',
        'tasks:',
        '  - id: plain',
        '    prompt: Answer without a think block.',
        '    verify: { format: { think: forbidden } }',
        '  - id: shaped',
        '    prompt: Think, then give 6 times 7.',
        '    verify: { all: [{ math: { answer: "42" } }, { format: { think: required } }] }',
        '',
      ].join('\n'),
    );
    const { tasks } = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8')));
    const [plain, shaped] = await auditTasks(tasks, { file, only: new Set(['empty', 'degenerate', 'right-answer']) });
    const empty = plain?.findings.find((f) => f.probe === 'empty');
    assert.equal(empty?.severity, 'medium', 'a verifier of form alone cannot know the content');
    assert.deepEqual(
      shaped?.findings.filter((f) => f.family === 'right-answer').map((f) => f.probe),
      [],
      'the required <think> fails a bare right answer on purpose',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
