// The dataset bridge as trainers meet it: `vtask export` files read by the real Python readers
// (pyarrow, Hugging Face datasets, `ast.literal_eval` as open-instruct reads IFEval ground truth,
// the OpenAI SDK's grader types), the RFT python grader run by Python against vtask's own
// verdicts, `vtask serve` over HTTP, and the Python package scoring through it.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import YAML from 'yaml';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { verify } from '../../src/core/verifiers/verify';
import { python, pythonMissing } from '../support/python';
import { readJsonl, needsConformance } from '../support/conformance';
import { startServe } from '../support/serveProcess';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-export-'));

function vtask(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

let server: ChildProcess | undefined;
let url = '';

const pythonReady = () => pythonMissing(['pyarrow', 'datasets', 'openai']);

async function post(
  path_: string,
  body: unknown,
  headers: Record<string, string> = {},
  base = url,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

before(async () => {
  ({ child: server, url } = await startServe(['examples']));
});

after(() => {
  server?.kill('SIGTERM');
});

test('exported Parquet reads in pyarrow and datasets; IFEval ground truth parses as open-instruct parses it', (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  for (const f of ['open-instruct', 'verl', 'trl']) {
    const r = vtask(['export', 'examples', '--format', f, '-o', path.join(DIR, `${f}.parquet`), '--lossy']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /rows/);
  }
  const out = python([
    '-c',
    `
import ast, json, pyarrow.parquet as pq, datasets
d = ${JSON.stringify(DIR)}
verl = datasets.load_dataset("parquet", data_files=d + "/verl.parquet")["train"]
row = verl[0]
assert set(row) >= {"data_source", "prompt", "ability", "reward_model", "extra_info"}, row.keys()
assert row["prompt"][0]["role"] == "user" and row["reward_model"]["style"] == "rule"
assert all(r["extra_info"]["index"] == i for i, r in enumerate(verl))
trl = datasets.load_dataset("parquet", data_files=d + "/trl.parquet")["train"]
assert isinstance(trl[0]["prompt"], list) and "vtask_verifier" in trl.column_names
oi = pq.read_table(d + "/open-instruct.parquet").to_pylist()
ifeval = [r for r in oi if r["dataset"] == "ifeval"]
# open-instruct's IFEvalVerifier: ast.literal_eval(label)[0], then instruction_id zipped with kwargs
c = ast.literal_eval(ifeval[0]["ground_truth"])[0]
assert c["instruction_id"] == ["length_constraints:number_words", "punctuation:no_comma"], c
assert c["kwargs"][0] == {"relation": "less than", "num_words": 50}, c
print(json.dumps({"verl": len(verl), "trl": len(trl), "open_instruct": len(oi), "tool_agent": sum(r["agent_name"] == "tool_agent" for r in verl)}))
`,
  ]);
  // examples/agent-kv.vtask's three agent tasks run in verl's tool agent loop.
  assert.deepEqual(JSON.parse(out.trim()), { verl: 22, trl: 22, open_instruct: 9, tool_agent: 7 });
});

test('verl: -o OUT.jsonl is refused with what verl loads; OUT.json is JSON lines that datasets loads as verl loads it', (t) => {
  const refused = path.join(DIR, 'verl-refused.jsonl');
  const r = vtask(['export', 'examples/arithmetic.vtask', '--format', 'verl', '-o', refused]);
  assert.equal(r.status, 2, r.stderr);
  const stem = refused.slice(0, -'.jsonl'.length);
  assert.equal(
    r.stderr.split('\n')[0],
    `vtask export: verl cannot load '${refused}': it picks its reader by the extension and reads JSON lines only from .json files; write ${stem}.parquet, or ${stem}.json for JSON lines`,
  );
  assert.equal(fs.existsSync(refused), false, 'nothing written');

  const json = path.join(DIR, 'verl-lines.json');
  const ok = vtask([
    'export',
    'examples/arithmetic.vtask',
    '--format',
    'verl',
    '-o',
    json,
    '--split',
    'train=0.5,test=0.5',
  ]);
  assert.equal(ok.status, 0, ok.stderr);
  const written = [...ok.stdout.matchAll(/verl-lines\.(train|test)\.json: (\d+) (rows?) \(\1\)\n/g)];
  assert.deepEqual(
    written.map((m) => m[1]),
    ['train', 'test'],
    ok.stdout,
  );
  for (const [, , n, noun] of written) assert.equal(noun, n === '1' ? 'row' : 'rows', ok.stdout);
  const why = pythonReady();
  if (why) return t.skip(why);
  // verl's RLHFDataset: load_dataset("json", data_files=FILE)["train"] for a .json file.
  const out = python([
    '-c',
    `
import json, datasets
d = ${JSON.stringify(DIR)}
rows = [datasets.load_dataset("json", data_files=d + "/verl-lines." + s + ".json")["train"] for s in ("train", "test")]
assert all(set(r.column_names) >= {"data_source", "prompt", "ability", "reward_model", "extra_info"} for r in rows)
print(json.dumps(sorted(x["extra_info"]["task_id"] for r in rows for x in r)))
`,
  ]);
  const ids = runnableTasks(parseTaskFile(fs.readFileSync(path.join(ROOT, 'examples/arithmetic.vtask'), 'utf8')))
    .tasks.map((x) => x.id)
    .sort();
  assert.deepEqual(JSON.parse(out.trim()), ids);
});

test('openai-rft: the grader validates as the OpenAI SDK types, and grades every case as vtask does', async (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  const rows = path.join(DIR, 'rft.jsonl');
  const r = vtask(['export', 'examples', '--format', 'openai-rft', '-o', rows, '--lossy']);
  assert.equal(r.status, 0, r.stderr);
  // vtask's verdict on every case of every exported task, for the grader to match.
  const exported = new Set(
    fs
      .readFileSync(rows, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { task_id: string }).task_id),
  );
  const expected: { task: string; verifier: string; response: string; score: number }[] = [];
  for (const file of fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.vtask'))) {
    for (const task of runnableTasks(parseTaskFile(fs.readFileSync(path.join(ROOT, 'examples', file), 'utf8'))).tasks) {
      if (!exported.has(task.id)) continue;
      for (const c of task.cases) {
        const v = await verify(task.verify, c.response, {
          task: { id: task.id, prompt: task.prompt, messages: task.messages, meta: task.meta, dir: ROOT },
        });
        expected.push({ task: task.id, verifier: JSON.stringify(task.verify), response: c.response, score: v.score });
      }
    }
  }
  assert.ok(expected.length >= 8, `${expected.length} cases`);
  fs.writeFileSync(path.join(DIR, 'expected.json'), JSON.stringify(expected));
  const out = python([
    '-c',
    `
import json
from openai.types.graders import PythonGrader
d = ${JSON.stringify(DIR)}
g = PythonGrader.model_validate(json.load(open(d + "/rft.grader.json")))
scope = {}
exec(g.source, scope)
bad = []
for e in json.load(open(d + "/expected.json")):
    got = scope["grade"]({"output_text": e["response"]}, {"vtask_verifier": e["verifier"]})
    if abs(got - e["score"]) > 1e-9:
        bad.append((e["task"], e["response"][:40], got, e["score"]))
print(json.dumps({"checked": len(json.load(open(d + "/expected.json"))), "bad": bad}))
`,
  ]);
  const res = JSON.parse(out.trim()) as { checked: number; bad: unknown[] };
  assert.deepEqual(res.bad, []);
  assert.equal(res.checked, expected.length);
});

test('serve: /health, verdicts in order for a task or an inline verifier, JSON errors', async () => {
  const health = (await (await fetch(url + '/health')).json()) as {
    ok: boolean;
    tasks: number;
    verify_requests: number;
  };
  assert.deepEqual({ ok: health.ok, tasks: health.tasks }, { ok: true, tasks: 22 });
  assert.equal(typeof health.verify_requests, 'number');
  const byTask = await post('/verify', {
    task: 'gsm8k/clips',
    responses: ['so \\boxed{72}', '\\boxed{71}', 'The answer is 72.'],
  });
  assert.equal(byTask.status, 200);
  assert.deepEqual(
    (byTask.json.results as { pass: boolean }[]).map((r) => r.pass),
    [true, false, true],
  );
  const inline = await post('/verify', {
    verifier: { constraints: ['punctuation:no_comma'] },
    prompt: 'p',
    responses: ['no commas here', 'a, b'],
  });
  assert.deepEqual(
    (inline.json.results as { score: number }[]).map((r) => r.score),
    [1, 0],
  );
  assert.equal((await post('/verify', { task: 'nope', responses: ['x'] })).status, 404);
  const malformed = await post('/verify', '{"task": ');
  assert.deepEqual([malformed.status, malformed.json.error], [400, 'the body is not valid JSON']);
  const invalid = await post('/verify', { verifier: { math: { answr: '1' } }, responses: ['1'] });
  assert.equal(invalid.status, 400);
  assert.match(String(invalid.json.error), /invalid verifier: .*answr.*did you mean/);
  const notStrings = await post('/verify', { task: 'gsm8k/clips', responses: [1] });
  assert.equal(notStrings.status, 400);
  const tooMany = await post('/verify', { task: 'gsm8k/clips', responses: Array(5000).fill('x') });
  assert.equal(tooMany.status, 413);
  assert.equal((await fetch(url + '/nowhere')).status, 404);
});

test('serve: a token, when set, is required; bodies over the limit are refused', async () => {
  const { child, url: u } = await startServe(['examples/math.vtask', '--max-body-mb', '1'], {
    VTASK_SERVE_TOKEN: 's3cret',
  });
  try {
    assert.equal((await post('/verify', { task: 'gsm8k/clips', responses: ['72'] }, {}, u)).status, 401);
    assert.equal(
      (await post('/verify', { task: 'gsm8k/clips', responses: ['72'] }, { authorization: 'Bearer wrong' }, u)).status,
      401,
    );
    const ok = await post('/verify', { task: 'gsm8k/clips', responses: ['72'] }, { authorization: 'Bearer s3cret' }, u);
    assert.equal(ok.status, 200);
    const big = await post(
      '/verify',
      { task: 'gsm8k/clips', responses: ['x'.repeat(2 * 1024 * 1024)] },
      { authorization: 'Bearer s3cret' },
      u,
    );
    assert.equal(big.status, 413);
  } finally {
    child.kill('SIGTERM');
  }
});

test('serve --workers 2 shares one port', async () => {
  const { child, url: u } = await startServe(['examples/math.vtask', '--workers', '2']);
  try {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post('/verify', { task: 'gsm8k/clips', responses: ['\\boxed{72}'] }, {}, u)),
    );
    assert.ok(answers.every((a) => a.status === 200 && (a.json.results as { pass: boolean }[])[0]?.pass === true));
  } finally {
    child.kill('SIGTERM');
  }
});

test('the Python package scores through vtask serve as vtask does: verl, TRL, open-instruct', (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  const out = python(
    [
      '-c',
      `
import json
from vtask_reward import compute_score, compute_score_batch, vtask_reward
from vtask_reward.open_instruct import VtaskVerifier
from vtask_reward.client import VtaskError, Client
math = json.dumps({"math": {"answer": "72"}})
extra = {"vtask_verifier": math}
scores = {
  "verl": [compute_score("vtask", r, "72", extra)["score"] for r in ["\\\\boxed{72}", "\\\\boxed{71}"]],
  "verl_batch": [r["score"] for r in compute_score_batch(["vtask"] * 3, ["72", "71", "no"], ["72", "72", "x"], [extra, extra, {}])],
  "trl_plain": vtask_reward(["p", "p"], ["\\\\boxed{72}", "71"], vtask_verifier=[math, math]),
  "trl_chat": vtask_reward([[{"role": "user", "content": "p"}]], [[{"role": "assistant", "content": "72"}]], solution=["72"]),
  "open_instruct": [VtaskVerifier()([], r, json.dumps({"task": "x", "verifier": {"constraints": ["punctuation:no_comma"]}})).score for r in ["a b", "a, b"]],
}
try:
    Client(url="http://127.0.0.1:9").health()
except VtaskError as e:
    scores["unreachable"] = "cannot be reached" in str(e)
print(json.dumps(scores))
`,
    ],
    { VTASK_URL: url },
  );
  assert.deepEqual(JSON.parse(out.trim()), {
    verl: [1, 0],
    verl_batch: [1, 0, 0],
    trl_plain: [1, 0],
    trl_chat: [1],
    open_instruct: [1, 0],
    unreachable: true,
  });
});

test('import: a row that cannot be mapped is reported with its line, and the exit code says so', () => {
  const input = path.join(DIR, 'mixed.jsonl');
  fs.writeFileSync(
    input,
    JSON.stringify({ question: 'What is 2+2?', answer: '#### 4' }) +
      '\nnot json\n' +
      JSON.stringify({ question: 'q' }) +
      '\n',
  );
  const out = path.join(DIR, 'mixed.vtask');
  const r = vtask(['import', input, '-o', out]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /mixed\.jsonl:line 2: not imported: not JSON/);
  assert.match(r.stderr, /mixed\.jsonl:line 3: not imported: no `answer`/);
  assert.match(r.stdout, /: 1 task from qa rows; 2 rows not imported\n/);
  assert.equal(vtask(['check', out]).status, 0);
  assert.equal(vtask(['import', input, '-o', out]).status, 2, 'an existing output is not overwritten without --force');
});

test('export: a file that is not a task file and a task with errors are reported with their place; the rest is written', () => {
  const good = path.join(DIR, 'partly.vtask');
  fs.writeFileSync(
    good,
    'vtask: 1\ntasks:\n  - id: ok\n    prompt: "2+2?"\n    verify: { math: { answer: "4" } }\n  - id: bad\n    promt: "typo"\n    verify: { math: { answer: "4" } }\n',
  );
  const notTasks = path.join(DIR, 'notes.vtask');
  fs.writeFileSync(notTasks, 'title: my notes\nbody: nothing here\n');
  const out = path.join(DIR, 'partly.jsonl');
  const r = vtask(['export', good, notTasks, '--format', 'trl', '-o', out, '--no-runs']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /partly\.vtask:6: task 'bad' has errors and is not exported/);
  assert.match(r.stderr, /notes\.vtask:1: error: not a task file/);
  assert.deepEqual(
    fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { task_id: string }).task_id),
    ['ok'],
  );
  assert.match(r.stdout, /1 invalid task skipped; 1 file with errors outside the tasks/);
});

test('export of a large file (tasks parsed in worker threads) writes every row in file order', () => {
  const n = 2_000;
  const big = path.join(DIR, 'big.vtask');
  const tasks = Array.from(
    { length: n },
    (_, i) =>
      `  - id: q${i}\n    prompt: "What is ${i} + 1?"\n    verify: { math: { answer: "${i + 1}" } }\n    cases:\n      - { response: "\\\\boxed{${i + 1}}", expect: pass }\n`,
  );
  fs.writeFileSync(
    big,
    `vtask: 1\ntasks:\n${tasks.join('')}  - id: q5\n    prompt: "repeated id"\n    verify: { math: { answer: "1" } }\n`,
  );
  const out = path.join(DIR, 'big.json');
  const r = vtask(['export', big, '--format', 'verl', '-o', out, '--no-runs']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /big\.vtask:\d+: task 'q5' has errors/);
  const rows = fs
    .readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as { extra_info: { task_id: string; index: number }; reward_model: { ground_truth: string } },
    );
  assert.equal(rows.length, n);
  assert.deepEqual(
    rows.map((x) => x.extra_info.task_id),
    Array.from({ length: n }, (_, i) => `q${i}`),
  );
  assert.deepEqual(
    rows.map((x) => x.extra_info.index),
    Array.from({ length: n }, (_, i) => i),
  );
  assert.equal(rows[1234]?.reward_model.ground_truth, '1235');
});

test('export reads cached runs (no request): rows carry pass rate, band and model; --band and pass-rate filters', () => {
  const cacheDir = path.join(DIR, 'runs-cache');
  const ran = vtask(['run', 'examples/arithmetic.vtask', '--cache-dir', cacheDir, '--json']);
  assert.equal(ran.status, 0, ran.stderr);
  const runs = (JSON.parse(ran.stdout) as { tasks: { task: string; pass_rate: number; band: string; model: string }[] })
    .tasks;
  const out = path.join(DIR, 'with-runs.jsonl');
  const r = vtask(['export', 'examples/arithmetic.vtask', '--format', 'trl', '-o', out, '--cache-dir', cacheDir]);
  assert.equal(r.status, 0, r.stderr);
  const rows = fs
    .readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_id: string; pass_rate: number; band: string; model: string });
  assert.equal(rows.length, runs.length);
  for (const run of runs) {
    const row = rows.find((x) => x.task_id === run.task);
    assert.deepEqual([row?.pass_rate, row?.band, row?.model], [run.pass_rate, run.band, run.model], run.task);
  }
  const band = runs[0]!.band;
  const filtered = path.join(DIR, 'band.jsonl');
  assert.equal(
    vtask([
      'export',
      'examples/arithmetic.vtask',
      '--format',
      'trl',
      '-o',
      filtered,
      '--cache-dir',
      cacheDir,
      '--band',
      band,
    ]).status,
    0,
  );
  const kept = fs
    .readFileSync(filtered, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { task_id: string }).task_id);
  assert.deepEqual(
    kept.sort(),
    runs
      .filter((x) => x.band === band)
      .map((x) => x.task)
      .sort(),
  );
  const high = path.join(DIR, 'high.jsonl');
  const min = vtask([
    'export',
    'examples/arithmetic.vtask',
    '--format',
    'trl',
    '-o',
    high,
    '--cache-dir',
    cacheDir,
    '--min-pass-rate',
    '0.5',
    '--json',
  ]);
  assert.equal(min.status, 0, min.stderr);
  const rowsHigh = fs.readFileSync(high, 'utf8').split('\n').filter(Boolean).length;
  assert.equal(rowsHigh, runs.filter((x) => x.pass_rate >= 0.5).length);
  assert.equal(vtask(['export', 'examples', '--format', 'trl', '-o', high, '--band', 'easy']).status, 2);
  const none = vtask([
    'export',
    'examples/math.vtask',
    '--format',
    'trl',
    '-o',
    high,
    '--cache-dir',
    path.join(DIR, 'empty-cache'),
    '--band',
    'learnable',
  ]);
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /0 rows/, 'tasks without a cached run are left out by the run filters');
});

test('import: Tulu 3 instruction rows in the func_name layout become constraints; a check IFEval cannot say is refused with the reason', () => {
  // open-instruct's old layout: every function argument present, null when unused.
  const gt = (args: Record<string, unknown>): string =>
    JSON.stringify({
      func_name: null,
      N: null,
      quantifier: null,
      end_phrase: null,
      keyword_list: null,
      word: null,
      forbidden_words: null,
      letter: null,
      i: null,
      first_word: null,
      postscript_marker: null,
      options: null,
      section_splitter: null,
      original_prompt: null,
      ...args,
    });
  const rows = [
    { id: 'lower', ground_truth: gt({ func_name: 'validate_lowercase' }) },
    { id: 'words', ground_truth: gt({ func_name: 'validate_word_constraint', N: 50, quantifier: 'at most' }) },
    { id: 'end', ground_truth: gt({ func_name: 'validate_end', end_phrase: 'Any other questions?' }) },
    { id: 'around', ground_truth: gt({ func_name: 'validate_word_constraint', N: 50, quantifier: 'around' }) },
    { id: 'freq', ground_truth: gt({ func_name: 'verify_keyword_frequency', word: 'sea', N: 3 }) },
  ].map((r) =>
    JSON.stringify({
      messages: [{ role: 'user', content: `Write a poem (${r.id}).` }],
      ground_truth: r.ground_truth,
      dataset: 'ifeval',
      task_id: r.id,
    }),
  );
  const input = path.join(DIR, 'tulu-if.jsonl');
  fs.writeFileSync(input, rows.join('\n') + '\n');
  const out = path.join(DIR, 'tulu-if.vtask');
  const r = vtask(['import', input, '--format', 'open-instruct', '-o', out]);
  assert.equal(r.status, 1, 'two rows are not imported');
  assert.match(
    r.stderr,
    /line 4: not imported: `validate_word_constraint` with quantifier `around` has no IFEval instruction/,
  );
  assert.match(r.stderr, /line 5: not imported: `verify_keyword_frequency` checks an exact count/);
  assert.doesNotMatch(r.stderr, /Python literal/);
  const tasks = (YAML.parse(fs.readFileSync(out, 'utf8')) as { tasks: { id: string; verify: unknown }[] }).tasks;
  assert.deepEqual(Object.fromEntries(tasks.map((x) => [x.id, x.verify])), {
    lower: { constraints: ['change_case:english_lowercase'] },
    words: { constraints: [{ 'length_constraints:number_words': { num_words: 51, relation: 'less than' } }] },
    end: { constraints: [{ 'startend:end_checker': { end_phrase: 'Any other questions?' } }] },
  });
  assert.equal(vtask(['check', out]).status, 0);
});

test(
  'import: an open-instruct string_f1 row with a list ground truth scores as open-instruct scores several answers (its own list-label tests)',
  { skip: needsConformance },
  async () => {
    const rows = readJsonl<{ class: string; prediction: string; labels?: string[]; expected_score: number }>(
      'open_instruct_verifier_tests.jsonl',
    ).filter((r) => r.class === 'TestF1Verifier' && r.labels);
    assert.ok(rows.length >= 5, 'the list-label tests are there');
    const input = path.join(DIR, 'f1-lists.jsonl');
    fs.writeFileSync(
      input,
      rows
        .map((r, i) =>
          JSON.stringify({
            messages: [{ role: 'user', content: `q${i}` }],
            ground_truth: r.labels,
            dataset: 'string_f1',
            task_id: `f1/${i}`,
          }),
        )
        .join('\n') + '\n',
    );
    const out = path.join(DIR, 'f1-lists.vtask');
    const r = vtask(['import', input, '--format', 'open-instruct', '-o', out]);
    assert.equal(r.status, 0, r.stderr);
    const tasks = runnableTasks(parseTaskFile(fs.readFileSync(out, 'utf8'))).tasks;
    const scores = await Promise.all(
      tasks.map((t, i) =>
        verify(t.verify, rows[i]!.prediction, {
          task: { id: t.id, prompt: t.prompt, messages: t.messages, meta: t.meta, dir: DIR },
        }),
      ),
    );
    assert.deepEqual(
      scores.map((s) => Number(s.score.toFixed(9))),
      rows.map((x) => Number(x.expected_score.toFixed(9))),
    );
  },
);
