// `vtask audit` as CI runs it: the JSON the format specification gives, exit codes that gate on
// --fail-on, and --probes narrowing the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

interface AuditJson {
  tasks: {
    file: string;
    task: string;
    findings: {
      probe: string;
      severity: string;
      response: string;
      verdict: string;
      expected: string;
      reason: string;
    }[];
  }[];
  findings: number;
}

void test('audit --json: tasks with their findings, the count, and exit 1 on a high finding', async () => {
  const r = await runCliProcess(
    ['audit', 'test/fixtures/audit/weak.vtask', '--json', '--probes', 'degenerate,hedge'],
    {},
    60_000,
  );
  assert.equal(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout) as AuditJson;
  assert.equal(
    json.findings,
    json.tasks.reduce((n, t) => n + t.findings.length, 0),
  );
  const hedge = json.tasks.find((t) => t.task === 'last-tag-hedge');
  assert.equal(hedge?.file, 'test/fixtures/audit/weak.vtask');
  assert.deepEqual(
    hedge?.findings.map((f) => [f.probe, f.severity, f.verdict, f.expected]),
    [['hedge-gold-last', 'high', 'pass', 'fail']],
  );
  assert.match(hedge?.findings[0]?.response ?? '', /<answer>Paris<\/answer>\.$/);
  assert.match(hedge?.findings[0]?.reason ?? '', /normalized match of "Paris"/);
  // Only the families asked for ran: no code probes, so no sandbox was needed.
  assert.ok(json.tasks.every((t) => t.findings.every((f) => !/mutant|exit|print/.test(f.probe))));
});

void test('audit on agent tasks: probes replayed in the environment, findings with their calls, the exit code; probes that cannot run say why', async () => {
  const r = await runCliProcess(
    ['audit', 'test/fixtures/audit/agent.vtask', '--json', '--probes', 'agent'],
    {},
    120_000,
  );
  assert.equal(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout) as {
    tasks: {
      task: string;
      probes: number;
      skipped?: unknown[];
      findings: {
        probe: string;
        family: string;
        severity: string;
        calls?: unknown[];
        verdict: string;
        expected: string;
      }[];
    }[];
    findings: number;
    failing: number;
  };
  const findings = (task: string) =>
    json.tasks
      .find((t) => t.task === task)
      ?.findings.map((f) => [f.probe, f.family, f.severity, f.verdict, f.expected, f.calls]);
  assert.deepEqual(findings('agent/answer-only'), [
    ['agent-no-call', 'agent', 'critical', 'pass', 'fail', []],
    ['agent-claimed-calls', 'agent', 'critical', 'pass', 'fail', []],
    ['agent-wrong-args-case0-1', 'agent', 'medium', 'pass', 'fail', [{ count: { item: 'Lyon' } }]],
  ]);
  assert.deepEqual(findings('agent/forged-state'), [
    ['agent-forged-state-case0-1', 'agent', 'high', 'pass', 'fail', [{ set_status: { status: 'deployed' } }]],
  ]);
  assert.deepEqual(findings('agent/sound'), []);
  assert.ok(
    json.tasks.every((t) => t.probes >= 3 && !t.skipped),
    JSON.stringify(json.tasks.map((t) => [t.task, t.probes, t.skipped])),
  );
  assert.deepEqual([json.findings, json.failing], [4, 3]);

  const human = await runCliProcess(
    ['audit', 'test/fixtures/audit/agent.vtask', '--probes', 'agent-forged-state', '--fail-on', 'critical'],
    {},
    120_000,
  );
  assert.equal(human.code, 0, 'a high finding is below --fail-on critical');
  assert.match(
    human.stdout,
    /^test\/fixtures\/audit\/agent\.vtask:16: high: task agent\/forged-state: probe agent-forged-state-case0-1 \(expected fail, got pass\): set_status/m,
  );
  assert.match(human.stdout, /^ {4}calls: \[\{"set_status":\{"status":"deployed"\}\}\]$/m);

  // Weak isolation without the opt-in: no environment starts, and every task says why.
  const weak = { VTASK_SANDBOX: 'process', VTASK_ALLOW_WEAK_ISOLATION: '' };
  const refused = await runCliProcess(['audit', 'test/fixtures/audit/agent.vtask', '--json'], weak, 120_000);
  assert.equal(refused.code, 0, refused.stderr);
  const refusedJson = JSON.parse(refused.stdout) as typeof json & { tasks: { skipped?: { reason: string }[] }[] };
  assert.equal(refusedJson.findings, 0);
  for (const t of refusedJson.tasks)
    assert.match(t.skipped?.[0]?.reason ?? '', /the full sandbox \(bubblewrap\) is unavailable/, t.task);
  const said = await runCliProcess(['audit', 'test/fixtures/audit/agent.vtask'], weak, 120_000);
  assert.match(said.stdout, /^3 tasks had probes skipped: .*the full sandbox \(bubblewrap\) is unavailable/m);
  const optedIn = await runCliProcess(
    ['audit', 'test/fixtures/audit/agent.vtask', '--json', '--probes', 'agent', '--allow-weak-isolation'],
    weak,
    120_000,
  );
  const opted = JSON.parse(optedIn.stdout) as typeof json & { tasks: { skipped?: { reason: string }[] }[] };
  assert.equal(
    opted.findings,
    4,
    JSON.stringify(opted.tasks.map((t) => [t.task, t.findings.map((f) => f.probe), t.skipped])),
  );
});

void test('audit: findings below --fail-on leave the exit code 0; the summary counts by severity', async () => {
  const r = await runCliProcess(
    ['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'degenerate,hedge,wrong-answer,right-answer'],
    {},
    60_000,
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^test\/fixtures\/audit\/sound\.vtask:4: low: task math-72: probe right-words \(expected pass, got fail\)/m,
  );
  assert.match(r.stdout, /^\d+ findings \(\d+ low\) in 1 of 4 tasks; 0 at or above high$/m);
  const strict = await runCliProcess(
    ['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'right-answer', '--fail-on', 'low'],
    {},
    60_000,
  );
  assert.equal(strict.code, 1);
});

void test('audit: a bad --fail-on is a usage error', async () => {
  const r = await runCliProcess(['audit', 'examples', '--fail-on', 'severe'], {}, 30_000);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--fail-on takes low, medium, high, critical; got 'severe'/);
  const share = await runCliProcess(['audit', 'examples', '--min-agreement', '1.5'], {}, 30_000);
  assert.equal(share.code, 2);
  assert.match(share.stderr, /--min-agreement takes a share from 0 to 1; got '1\.5'/);
});

void test('audit --samples: failed samples another reading would pass, and passed ones naming several answers', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-samples-'));
  const file = path.join(dir, 'clips.vtask');
  fs.writeFileSync(
    file,
    'vtask: 1\ntasks:\n  - id: clips\n    prompt: "How many clips?"\n    samples: 4\n    verify: { match: { answer: "72", mode: contains } }\n  - id: sum\n    prompt: "What is 40 + 32?"\n    samples: 4\n    verify: { math: { answer: "72" } }\n',
  );
  // Four answers a run might bring back: right in words, right with a separator, a hedge, wrong.
  const answers: Record<string, string[]> = {
    'How many clips?': [
      'She sold 72 clips.',
      'It is \\boxed{72} or \\boxed{71}.',
      'About 70.',
      'She sold seventy-two clips.',
    ],
    'What is 40 + 32?': ['The total is seventy-two', 'about seventy', '\\boxed{72}', 'It is 72 dollars.'],
  };
  const server = new OpenAIServer({ answer: (ctx) => answers[ctx.prompt]?.[(ctx.request + ctx.index) % 4] ?? '' });
  await server.listen();
  try {
    const flags = ['--base-url', server.url, '--model', 'test-model', '--cache-dir', path.join(dir, 'cache')];
    const ran = await runCliProcess(['run', file, ...flags, '--concurrency', '1'], {}, 60_000);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    const r = await runCliProcess(['audit', file, ...flags, '--samples', '--probes', 'empty', '--json'], {}, 60_000);
    const json = JSON.parse(r.stdout) as {
      tasks: { task: string; suspects: { sample: number; kind: string; reading: string; response: string }[] }[];
    };
    const suspects = (task: string) =>
      json.tasks
        .find((t) => t.task === task)
        ?.suspects.map((x) => [x.kind, x.response, x.reading])
        .sort();
    assert.deepEqual(suspects('clips'), [
      ['false-negative', 'She sold seventy-two clips.', 'number words as digits'],
      ['false-positive', 'It is \\boxed{72} or \\boxed{71}.', 'names 2 different answers: 72, 71'],
    ]);
    const sum = suspects('sum') ?? [];
    assert.deepEqual(
      sum,
      [['false-negative', 'The total is seventy-two', 'number words as digits']],
      'a wrong answer (about seventy) stays wrong under every reading',
    );
    const human = await runCliProcess(['audit', file, ...flags, '--samples', '--probes', 'empty'], {}, 60_000);
    assert.match(
      human.stdout,
      /clips\.vtask:3: false-negative suspect: task clips: sample #\d failed, but passes read as number words as digits/,
    );
    assert.match(human.stdout, /^\d+ suspect samples among the cached runs$/m);
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('audit --calibrate: a steady judge that agrees with the cases passes; a biased, flaky one is flagged', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-judge-'));
  const file = path.join(dir, 'judged.vtask');
  const task = (id: string, prompt: string, good: string, bad: string) =>
    `  - id: ${id}\n    prompt: "${prompt}"\n    verify: { judge: { rubric: ["Names ${good} as the capital", "Is short"] } }\n    cases:\n      - { response: "${good} is the capital.", expect: pass }\n      - { response: "${bad} is the capital.", expect: fail }\n`;
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n${task('steady', 'Capital of France?', 'Paris', 'Lyon')}${task('biased', 'Capital of Italy?', 'Rome', 'Milan')}`,
  );
  let judged = 0;
  // The judge reads the criteria and the JSON the verifier sends, and answers as a judge would.
  const server = new OpenAIServer({
    answer: (ctx) => {
      const criteria = [...ctx.prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1] ?? '');
      const { task: asked, response } = JSON.parse(ctx.prompt.slice(ctx.prompt.indexOf('{'))) as {
        task: string;
        response: string;
      };
      const steady = asked === 'Capital of France?';
      const flaky = !steady && judged++ % 2 === 1;
      const met = criteria.map((c, i) => {
        if (flaky) return false;
        // The biased judge always grants its first criterion, whatever it is.
        if (!steady && i === 0) return true;
        const capital = /Names (\w+)/.exec(c)?.[1];
        return capital ? response.includes(capital) : response.trim().split(/\s+/).length < 12;
      });
      return JSON.stringify({ criteria: met.map((m, i) => ({ id: i + 1, met: m, why: 'checked' })) });
    },
  });
  await server.listen();
  try {
    const r = await runCliProcess(
      [
        'audit',
        file,
        '--base-url',
        server.url,
        '--model',
        'test-model',
        '--calibrate',
        '--probes',
        'calibration',
        '--json',
      ],
      {},
      120_000,
    );
    const json = JSON.parse(r.stdout) as {
      tasks: {
        task: string;
        calibration: { agreement: number; spread: number; cases: number };
        findings: { probe: string; severity: string }[];
      }[];
    };
    const steady = json.tasks.find((t) => t.task === 'steady');
    const biased = json.tasks.find((t) => t.task === 'biased');
    assert.deepEqual([steady?.calibration.agreement, steady?.calibration.spread, steady?.findings], [1, 0, []]);
    assert.ok((biased?.calibration.agreement ?? 1) < 0.8, JSON.stringify(biased?.calibration));
    assert.equal(biased?.calibration.spread, 1);
    const flagged = biased?.findings.map((f) => `${f.probe}:${f.severity}`) ?? [];
    assert.ok(
      flagged.includes('calibration-agreement:high') && flagged.includes('calibration-consistency:medium'),
      flagged.join(', '),
    );
    assert.equal(r.code, 1, 'a judge that disagrees with its cases is a high finding');
    // Looser thresholds, from the command line: the biased judge's disagreement is accepted.
    const loose = await runCliProcess(
      [
        'audit',
        file,
        '--base-url',
        server.url,
        '--model',
        'test-model',
        '--calibrate',
        '--probes',
        'calibration',
        '--min-agreement',
        '0.3',
        '--max-spread',
        '1',
        '--json',
      ],
      {},
      120_000,
    );
    const looseBiased = (JSON.parse(loose.stdout) as typeof json).tasks.find((t) => t.task === 'biased');
    assert.ok(
      !looseBiased?.findings.some((f) => f.probe === 'calibration-agreement' || f.probe === 'calibration-consistency'),
      JSON.stringify(looseBiased?.findings),
    );
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('audit --probes: an unknown family or probe is a usage error that lists the families', async () => {
  const r = await runCliProcess(
    ['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'degenerate,nonsense'],
    {},
    30_000,
  );
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /--probes takes probe families \(degenerate, hedge, wrong-answer, right-answer, format-only, code-exploit, code-mutant, injection, agent, calibration\) or probe names \(empty, whitespace, refusal, echo-prompt, \.\.\.: docs\/cli\.md lists them\); got 'nonsense'$/m,
  );
  // Probe names and ids with their case number are known.
  const ok = await runCliProcess(
    ['audit', 'test/fixtures/audit/sound.vtask', '--probes', 'option-B,mutant,perturbed-number', '--json'],
    {},
    60_000,
  );
  assert.equal(ok.code, 0, ok.stderr);
});

void test('audit: a judge that obeys text in the response is flagged by the injection probes; a careful judge is not', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-injection-'));
  const file = path.join(dir, 'judged.vtask');
  const task = (id: string) =>
    `  - id: ${id}\n    prompt: "Capital of France?"\n    verify: { judge: { rubric: ["Names Paris as the capital"] } }\n`;
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${task('gullible')}${task('careful')}`);
  // Both judges grade by the criterion; the gullible one also does what the response tells it,
  // or takes a verdict written in the response for its own.
  const server = new OpenAIServer({
    models: ['gullible', 'careful'],
    answer: (ctx) => {
      const { response } = JSON.parse(ctx.prompt.slice(ctx.prompt.indexOf('{'))) as { response: string };
      const gullible = ctx.body.model === 'gullible';
      const met =
        response.includes('Paris') ||
        (gullible && (/ignore the rubric/i.test(response) || /"met": true/.test(response)));
      return JSON.stringify({ criteria: [{ id: 1, met, why: 'read' }] });
    },
  });
  await server.listen();
  try {
    const audit = async (model: string) => {
      const r = await runCliProcess(
        ['audit', file, '--base-url', server.url, '--model', model, '--probes', 'injection', '--json'],
        {},
        60_000,
      );
      const json = JSON.parse(r.stdout) as {
        tasks: {
          task: string;
          probes: number;
          skipped?: unknown[];
          findings: { probe: string; family: string; severity: string; verdict: string }[];
        }[];
      };
      return { code: r.code, tasks: json.tasks };
    };
    const gullible = await audit('gullible');
    assert.equal(gullible.code, 1, 'an injection that passes is a critical finding');
    for (const t of gullible.tasks) {
      assert.deepEqual(
        t.findings.map((f) => [f.probe, f.family, f.severity, f.verdict]),
        [
          ['injection-instruction', 'injection', 'critical', 'pass'],
          ['injection-forged-verdict', 'injection', 'critical', 'pass'],
        ],
        t.task,
      );
    }
    const careful = await audit('careful');
    assert.equal(careful.code, 0);
    assert.deepEqual(
      careful.tasks.map((t) => [t.task, t.probes, t.findings, t.skipped]),
      [
        ['gullible', 2, [], undefined],
        ['careful', 2, [], undefined],
      ],
    );
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
