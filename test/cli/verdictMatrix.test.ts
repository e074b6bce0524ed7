// One verdict on every path: each case of every task in examples/ and of a fixture with one task
// of every verifier kind is scored by `vtask test`, then through `vtask serve` (by task id, and
// with the inline verifier and prompt each export format writes) and through each Python shim
// exactly as its trainer calls it (verl's compute_score per sample and batch, TRL's reward
// function with its environments, open-instruct's verifier, the OpenAI RFT python grader, the
// Ray scorer). Every score must equal `vtask test`'s, or the row must have been refused (or
// warned about) at export with the reason. Real processes throughout: one `vtask serve` on the
// dataset, one Python process per shim; the matrix is printed.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks, type CaseSpec } from '../../src/core/taskfile/resolve';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { PYTHON_PATH, pythonMissing } from '../support/python';
import { startServe } from '../support/serveProcess';

const ROOT = process.cwd();
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-matrix-'));
// Scripts and environments run as an unprivileged user of their own, which must read the dataset.
fs.chmodSync(DIR, 0o755);
const OUT = path.join(DIR, 'out');
const QUESTION = 'What is the capital of France?';

/** One task of every verifier kind the examples lack, with cases; the judge gets its own file. */
const KINDS = `vtask: 1
tasks:
  - id: kinds/choice
    prompt: "Which number is prime? A) 4 B) 7 C) 9. Answer with the letter."
    verify: { choice: { answer: B, options: [A, B, C] } }
    cases:
      - { response: "B", expect: pass }
      - { response: "The answer is C.", expect: fail }
  - id: kinds/script
    prompt: Greet me.
    verify: { script: { path: ./verify.mjs } }
    cases:
      - { response: "Hello there", expect: pass }
      - { response: "Go away", expect: { score: 0.25 } }
  - id: kinds/script-in-all
    prompt: Greet me without commas.
    verify: { all: [ { script: { path: ./verify.mjs } }, { constraints: [punctuation:no_comma] } ] }
    cases:
      - { response: "Hello there", expect: pass }
      - { response: "Go, away", expect: { score: 0.125 } }
  - id: kinds/any
    prompt: "Say yes, or give the number one."
    verify: { any: [ { match: { answer: "yes" } }, { math: { answer: "1" } } ] }
    cases:
      - { response: "Yes", expect: pass }
      - { response: "\\\\boxed{1}", expect: pass }
      - { response: "no", expect: fail }
  - id: kinds/f1-answers
    prompt: Name a primary colour.
    verify: { match: { answers: ["red", "blue"], mode: f1, threshold: 0.5 } }
    cases:
      - { response: "blue", expect: pass }
      - { response: "dark red paint", expect: fail }
  - id: kinds/repeat
    prompt: Repeat this request word for word, then answer it.
    verify: { constraints: [ { combination:repeat_prompt: { prompt_to_repeat: "Repeat this request word for word, then answer it." } } ] }
    cases:
      - { response: "Repeat this request word for word, then answer it. Done.", expect: pass }
      - { response: "Done.", expect: fail }
`;

const SCRIPT = `export function verify(response) {
  const ok = /hello/i.test(response);
  return { pass: ok, score: ok ? 1 : 0.25, reason: ok ? 'greets' : 'no greeting' };
}
`;

const JUDGE = `vtask: 1
tasks:
  - id: judge/capital
    system: Answer in one sentence.
    prompt: "${QUESTION}"
    verify: { judge: { rubric: Names the capital the question asks about } }
    cases:
      - { response: "It is Paris.", expect: pass }
      - { response: "It is Lyon.", expect: fail }
`;

interface Row extends Record<string, unknown> {
  readonly task_id?: string;
  readonly extra_info?: { task_id: string; vtask_verifier: string; prompt_text?: string };
}

interface Export {
  readonly rows: Map<string, Row>;
  readonly file: string;
  /** Task id → why the export refused it, or warned that its reward differs there. */
  readonly refused: Map<string, string>;
  readonly warned: Map<string, string>;
}

interface Case {
  readonly key: string;
  readonly task: string;
  readonly response: string;
  readonly calls?: CaseSpec['calls'];
  readonly agent: boolean;
}

/** What a path says of a case: a score, or why it has none. */
type Cell = { score: number } | { refused: string } | { warned: string; score?: number } | { skipped: string };

const PATHS = [
  'serve by id',
  'serve inline (verl row)',
  'serve inline (trl row)',
  'serve inline (open-instruct row)',
  'serve inline (openai-rft row)',
  'verl compute_score',
  'verl compute_score_batch',
  'trl vtask_reward',
  'open-instruct VtaskVerifier',
  'open-instruct native',
  'openai-rft grader',
  'ray score_dataset',
] as const;
type PathName = (typeof PATHS)[number];

const children: ChildProcess[] = [];
let judge: OpenAIServer;
let serveUrl = '';
let why: string | undefined;

before(async () => {
  why = pythonMissing(['pyarrow', 'pandas', 'ray']);
  fs.cpSync(path.join(ROOT, 'examples'), path.join(DIR, 'examples'), { recursive: true });
  fs.mkdirSync(path.join(DIR, 'kinds'));
  fs.writeFileSync(path.join(DIR, 'kinds/kinds.vtask'), KINDS);
  fs.writeFileSync(path.join(DIR, 'kinds/verify.mjs'), SCRIPT);
  fs.mkdirSync(path.join(DIR, 'judge'));
  fs.writeFileSync(path.join(DIR, 'judge/judge.vtask'), JUDGE);
  fs.mkdirSync(OUT);
  // The judge meets the criterion when it is shown the question and the response names Paris.
  judge = new OpenAIServer({
    answer: (ctx) =>
      `{"criteria": [{"id": 1, "met": ${ctx.prompt.includes(JSON.stringify(QUESTION)) && /"response":"[^"]*Paris/.test(ctx.prompt)}}]}`,
  });
  await judge.listen();
});

after(async () => {
  for (const c of children) c.kill('SIGTERM');
  await judge?.close();
});

const SOURCES = (): string[] => ['examples', 'kinds', 'judge'].map((d) => path.join(DIR, d));
const JUDGE_FLAGS = (): string[] => ['--base-url', judge.url, '--model', 'test-model'];

async function exportRows(format: string, sources: string[], extra: string[] = []): Promise<Export> {
  // JSON lines, in the file name each trainer reads them from (verl: .json).
  const file = path.join(
    OUT,
    `${format}${extra.includes('--via-vtask') ? '-vtask' : ''}${format === 'verl' ? '.json' : '.jsonl'}`,
  );
  const r = await runCliProcess(
    ['export', ...sources, '--format', format, '-o', file, '--lossy', '--no-runs', '--json', ...extra],
    {},
    120_000,
  );
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as {
    unexpressible: { task: string; reason: string }[];
    warnings: { task: string; reason: string }[];
  };
  const rows = new Map<string, Row>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const row = JSON.parse(line) as Row;
    rows.set(row.task_id ?? row.extra_info?.task_id ?? '', row);
  }
  return {
    rows,
    file,
    refused: new Map(report.unexpressible.map((u) => [u.task, u.reason])),
    warned: new Map(report.warnings.map((w) => [w.task, w.reason])),
  };
}

/** Every case of the task files, keyed `task#index`, with what `vtask test` scored it. */
async function testedCases(): Promise<{ cases: Case[]; scores: Map<string, number> }> {
  const r = await runCliProcess(['test', ...SOURCES(), '--json', ...JUDGE_FLAGS()], {}, 300_000);
  const report = JSON.parse(r.stdout) as {
    results: { task: string; case: number; score: number; skipped?: boolean; error?: string }[];
  };
  const scores = new Map<string, number>();
  for (const x of report.results) {
    assert.equal(x.error, undefined, `vtask test decided ${x.task}#${x.case}`);
    if (!x.skipped) scores.set(`${x.task}#${x.case}`, x.score);
  }
  const cases: Case[] = [];
  const ids = new Set<string>();
  for (const dir of SOURCES()) {
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.vtask'))) {
      for (const t of runnableTasks(parseTaskFile(fs.readFileSync(path.join(dir, f), 'utf8'))).tasks) {
        assert.ok(!ids.has(t.id), `task ids are unique across the dataset: ${t.id}`);
        ids.add(t.id);
        for (const c of t.cases) {
          const key = `${t.id}#${c.index}`;
          if (scores.has(key))
            cases.push({ key, task: t.id, response: c.response, calls: c.calls, agent: t.environment !== undefined });
        }
      }
    }
  }
  return { cases, scores };
}

/** Runs the shim script for one path in its own Python process (async: the judge answers meanwhile). */
function runShim(
  shim: string,
  entries: unknown[],
  extra: string[],
  env: NodeJS.ProcessEnv,
): Promise<Record<string, Record<string, unknown>>> {
  const input = path.join(OUT, `${shim}.entries.json`);
  const output = path.join(OUT, `${shim}.scores.json`);
  fs.writeFileSync(input, JSON.stringify(entries));
  const child = spawn('python3', [path.join(ROOT, 'test/python/verdict_matrix.py'), shim, input, output, ...extra], {
    env: {
      ...process.env,
      PYTHONPATH: PYTHON_PATH,
      VTASK_CLI: `${process.execPath} ${path.join(ROOT, 'out/cli.js')}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(fs.readFileSync(output, 'utf8')) as Record<string, Record<string, unknown>>)
        : reject(new Error(`${shim}: exit ${code}\n${err}`)),
    );
  });
}

async function post(body: unknown): Promise<{ score: number; error?: string }[]> {
  const res = await fetch(serveUrl + '/verify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { results?: { score: number; error?: string }[]; error?: string };
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.results ?? [];
}

/** Whether a verifier runs a program (then shims score its rows by id, never inline). */
function runsProgram(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(runsProgram);
  return !!v && typeof v === 'object' && Object.entries(v).some(([k, x]) => k === 'script' || runsProgram(x));
}

const lastUser = (messages: { role: string; content: string }[]): string =>
  [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';

test('verdict matrix: every case scores the same through vtask test, vtask serve and every trainer shim, or is refused at export with the reason', async (t) => {
  if (why) return t.skip(why);
  const { cases, scores } = await testedCases();
  const [verl, trl, oiNative, oiVtask, rft] = await Promise.all([
    exportRows('verl', SOURCES()),
    exportRows('trl', SOURCES()),
    exportRows('open-instruct', SOURCES()),
    exportRows('open-instruct', SOURCES(), ['--via-vtask']),
    // One job has one grader: the judge task goes to a score_model job of its own.
    exportRows(
      'openai-rft',
      SOURCES().filter((s) => !s.endsWith('judge')),
    ),
  ]);
  const served = await startServe([...SOURCES(), ...JUDGE_FLAGS()]);
  children.push(served.child);
  serveUrl = served.url;
  const env = { VTASK_URL: serveUrl };
  const matrix = new Map<string, Map<PathName, Cell>>(cases.map((c) => [c.key, new Map()]));
  const put = (key: string, p: PathName, cell: Cell): void => void matrix.get(key)?.set(p, cell);
  const entries = (
    exp: Export,
    pick: (c: Case) => boolean = () => true,
  ): { key: string; row: Row; response: string; calls?: unknown }[] =>
    cases
      .filter((c) => exp.rows.has(c.task) && pick(c))
      .map((c) => ({ key: c.key, row: exp.rows.get(c.task) as Row, response: c.response, calls: c.calls }));

  // TRL first: its environments replay the agent cases' calls, and their trajectories go to serve too.
  const trlOut = await runShim('trl', entries(trl), [trl.file], env);
  for (const c of cases)
    put(
      c.key,
      'trl vtask_reward',
      trl.refused.has(c.task)
        ? { refused: trl.refused.get(c.task) as string }
        : { score: trlOut[c.key]?.score as number },
    );
  const trajectory = (c: Case): unknown => (c.agent ? trlOut[c.key]?.trajectory : null);

  // vtask serve, by id (trajectories beside agent responses) and inline as each format's row carries the verifier.
  for (const c of cases) {
    const [byId] = await post({
      task: c.task,
      responses: [c.response],
      ...(c.agent ? { trajectories: [trajectory(c)] } : {}),
    });
    put(c.key, 'serve by id', { score: (byId as { score: number }).score });
    const inline: [PathName, Export, (r: Row) => { verifier: unknown; prompt: string }][] = [
      [
        'serve inline (verl row)',
        verl,
        (r) => ({
          verifier: JSON.parse(r.extra_info?.vtask_verifier ?? 'null'),
          prompt: r.extra_info?.prompt_text ?? '',
        }),
      ],
      [
        'serve inline (trl row)',
        trl,
        (r) => ({
          verifier: JSON.parse(r.vtask_verifier as string),
          prompt: lastUser(r.prompt as { role: string; content: string }[]),
        }),
      ],
      [
        'serve inline (open-instruct row)',
        oiVtask,
        (r) => JSON.parse(r.ground_truth as string) as { verifier: unknown; prompt: string },
      ],
      [
        'serve inline (openai-rft row)',
        rft,
        (r) => ({
          verifier: JSON.parse(r.vtask_verifier as string),
          prompt: lastUser(r.messages as { role: string; content: string }[]),
        }),
      ],
    ];
    for (const [name, exp, read] of inline) {
      const row = exp.rows.get(c.task);
      if (!row) {
        put(
          c.key,
          name,
          exp.refused.has(c.task) ? { refused: exp.refused.get(c.task) as string } : { skipped: 'not in this export' },
        );
        continue;
      }
      const { verifier, prompt } = read(row);
      if (runsProgram(verifier)) {
        put(c.key, name, { skipped: 'runs a program: the shims score it by task id' });
        continue;
      }
      const [v] = await post({
        verifier,
        prompt,
        responses: [c.response],
        ...(c.agent ? { trajectories: [trajectory(c)] } : {}),
      });
      put(c.key, name, { score: (v as { score: number }).score });
    }
  }

  // The shims whose trainers give the reward function the final answer alone: agent tasks with
  // trajectory or state checks are warned about at export; their cells say so.
  const finalOnly = (exp: Export, p: PathName, out: Record<string, Record<string, unknown>>, field = 'score'): void => {
    for (const c of cases) {
      if (exp.refused.has(c.task)) put(c.key, p, { refused: exp.refused.get(c.task) as string });
      else if (!exp.rows.has(c.task)) put(c.key, p, { skipped: 'not in this export' });
      else if (exp.warned.has(c.task))
        put(c.key, p, { warned: exp.warned.get(c.task) as string, score: out[c.key]?.[field] as number });
      else put(c.key, p, { score: out[c.key]?.[field] as number });
    }
  };
  const verlOut = await runShim('verl', entries(verl), [], env);
  finalOnly(verl, 'verl compute_score', verlOut);
  finalOnly(verl, 'verl compute_score_batch', verlOut, 'batch');
  finalOnly(oiVtask, 'open-instruct VtaskVerifier', await runShim('open-instruct', entries(oiVtask), [], env));
  // open-instruct's own verifiers are not installed here: a native row is checked by its refusal only.
  for (const c of cases)
    put(
      c.key,
      'open-instruct native',
      oiNative.refused.has(c.task)
        ? { refused: oiNative.refused.get(c.task) as string }
        : { skipped: "scored by open-instruct's own verifier" },
    );
  const rftOut = await runShim('openai-rft', entries(rft), [rft.file.replace(/\.jsonl$/, '.grader.json')], {});
  for (const c of cases) {
    if (c.task.startsWith('judge/'))
      put(c.key, 'openai-rft grader', { skipped: "a score_model grader: OpenAI's model grades it" });
    else if (rft.refused.has(c.task)) put(c.key, 'openai-rft grader', { refused: rft.refused.get(c.task) as string });
    else put(c.key, 'openai-rft grader', { score: rftOut[c.key]?.score as number });
  }
  // Ray scores TRL rows with a server of its own on the dataset; like verl it sends no trajectory.
  const rayOut = await runShim('ray', entries(trl), [DIR, ...JUDGE_FLAGS()], {});
  finalOnly({ ...trl, warned: verl.warned }, 'ray score_dataset', rayOut);

  // The matrix: per path, how many cases agree with `vtask test`, and every disagreement.
  const lines: string[] = [];
  const wrong: string[] = [];
  for (const p of PATHS) {
    let agree = 0;
    let refused = 0;
    let warned = 0;
    let skipped = 0;
    for (const c of cases) {
      const cell = matrix.get(c.key)?.get(p);
      const want = scores.get(c.key) as number;
      if (!cell) wrong.push(`${p} ${c.key}: no cell`);
      else if ('refused' in cell) refused++;
      else if ('warned' in cell) warned++;
      else if ('skipped' in cell) skipped++;
      else if (typeof cell.score === 'number' && Math.abs(cell.score - want) < 1e-9) agree++;
      else wrong.push(`${p} ${c.key}: ${String(cell.score)}, vtask test ${want}`);
    }
    lines.push(
      `${p.padEnd(34)} ${String(agree).padStart(3)} agree  ${String(refused).padStart(3)} refused  ${String(warned).padStart(3)} warned  ${String(skipped).padStart(3)} not run`,
    );
  }
  console.log(
    `verdict matrix over ${cases.length} cases of ${new Set(cases.map((c) => c.task)).size} tasks:\n${lines.join('\n')}`,
  );
  assert.deepEqual(wrong, [], 'every path scores every case as vtask test does');

  // Refusals and warnings carry their reason; the kinds that must be scored everywhere are.
  assert.match(oiNative.refused.get('kinds/f1-answers') ?? '', /several answers only as a list/);
  assert.match(rft.refused.get('kinds/script') ?? '', /no OpenAI grader checks `script`/);
  for (const key of ['kinds/script#0', 'kinds/script#1', 'judge/capital#0', 'judge/capital#1']) {
    for (const p of [
      'serve by id',
      'verl compute_score',
      'verl compute_score_batch',
      'trl vtask_reward',
      'open-instruct VtaskVerifier',
      'ray score_dataset',
    ] as const) {
      assert.ok('score' in (matrix.get(key)?.get(p) ?? {}), `${p} scores ${key}`);
    }
  }
  for (const c of cases.filter((x) => x.agent))
    assert.ok(
      verl.warned.has(c.task) ||
        !/trajectory|state/.test(JSON.stringify(verl.rows.get(c.task)?.extra_info?.vtask_verifier)),
      `${c.task}: warned at export`,
    );
});

test('an undecided verdict is never a quiet 0: each shim logs it and counts it where its trainer shows metrics, and VTASK_UNDECIDED=raise stops the run', async (t) => {
  if (why) return t.skip(why);
  const judgeDir = [path.join(DIR, 'judge')];
  const [verl, trl] = await Promise.all([exportRows('verl', judgeDir), exportRows('trl', judgeDir)]);
  // A server without a judge model: the judge task's verdicts are `unavailable`.
  const served = await startServe(judgeDir);
  children.push(served.child);
  const script = `
import json, sys
from vtask_reward.verl import compute_score, compute_score_batch
from vtask_reward.trl import vtask_reward
from vtask_reward.client import undecided_count
verl = json.loads(sys.argv[1]); trl = json.loads(sys.argv[2])
metrics = []
out = {
  "verl": compute_score(verl["data_source"], "It is Paris.", verl["reward_model"]["ground_truth"], verl["extra_info"]),
  "verl_batch": compute_score_batch(data_sources=["vtask"], solution_strs=["It is Paris."], ground_truths=[verl["reward_model"]["ground_truth"]], extra_infos=[verl["extra_info"]]),
  "trl": vtask_reward(prompts=[trl["prompt"]], completions=["It is Paris."], vtask_verifier=[trl["vtask_verifier"]], task_id=[trl["task_id"]], log_metric=lambda k, v: metrics.append([k, v])),
}
out["metrics"] = metrics
out["count"] = undecided_count()
print(json.dumps(out))
`;
  const rows = [verl.rows.get('judge/capital'), trl.rows.get('judge/capital')].map((r) => JSON.stringify(r));
  const run = (env: NodeJS.ProcessEnv): ReturnType<typeof spawnSync> =>
    spawnSync('python3', ['-c', script, ...rows], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: PYTHON_PATH, VTASK_URL: served.url, ...env },
      timeout: 120_000,
    });
  const warned = run({});
  assert.equal(warned.status, 0, String(warned.stderr));
  assert.deepEqual(JSON.parse(String(warned.stdout)), {
    verl: { score: 0, vtask_undecided: 1 },
    verl_batch: [{ score: 0, vtask_undecided: 1 }],
    trl: [0],
    metrics: [['vtask/undecided', 1]],
    count: { count: 3, by_error: { unavailable: 3 } },
  });
  assert.match(
    String(warned.stderr),
    /vtask: undecided verdict \(unavailable\) scored 0: task 'judge\/capital': no judge model is configured/,
  );
  const raised = run({ VTASK_UNDECIDED: 'raise' });
  assert.notEqual(raised.status, 0);
  assert.match(
    String(raised.stderr),
    /UndecidedVerdict: vtask: undecided verdict \(unavailable\)[^\n]*VTASK_UNDECIDED=raise/,
  );
});
