// The audit of agent tasks: each probe is a trajectory replayed in the task's real environment
// (a JS module and a Python executable, under the real sandbox), the answer probes over the work
// of the first passing case, and the agent probes (no call, calls claimed in the text, wrong
// arguments, a call that writes the checked state) flag the verifiers that cannot tell them
// from the work. Probes that cannot run say why.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atLeast, auditTasks, type Finding, type TaskAudit } from '../../src/core/audit/audit';
import { wrongArgs } from '../../src/core/audit/wrongArgs';
import { ENV_UNTRUSTED_REASON } from '../../src/core/agent/environment';
import { addCase, applyEdit } from '../../src/core/edit/taskEdits';
import { runCases } from '../../src/core/run/cases';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

const ROOT = process.cwd();
const FIXTURE = path.join(ROOT, 'test/fixtures/audit/agent.vtask');
const EXAMPLE_ENVS = path.join(ROOT, 'examples/envs');
// Task files of the tests live in a temporary folder the sandbox's user can read.
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-audit-agent-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
fs.cpSync(EXAMPLE_ENVS, path.join(DIR, 'envs'), { recursive: true });
const LIMIT = { timeout: 120_000 };

function tasksOf(file: string) {
  return runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks;
}

async function auditFile(
  file: string,
  o: { trusted?: boolean; only?: ReadonlySet<string> } = {},
): Promise<TaskAudit[]> {
  return auditTasks(tasksOf(file), { file, ...o });
}

/** A task file in the temporary folder, beside a copy of the examples' environments. */
function taskFile(name: string, tasks: string): string {
  const file = path.join(DIR, name);
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${tasks}`);
  return file;
}

const at = (audits: readonly TaskAudit[], task: string, floor: Finding['severity'] = 'medium'): string[] =>
  (audits.find((a) => a.task === task)?.findings ?? [])
    .filter((f) => atLeast(f.severity, floor))
    .map((f) => `${f.probe}:${f.severity}`)
    .sort();

void test(
  'a verifier of the answer only is flagged: no call and claimed calls critical, calls with wrong arguments medium (Python environment)',
  LIMIT,
  async () => {
    const audits = await auditFile(FIXTURE);
    assert.deepEqual(at(audits, 'agent/answer-only'), [
      'agent-claimed-calls:critical',
      'agent-no-call:critical',
      'agent-wrong-args-case0-1:medium',
    ]);
    const a = audits.find((x) => x.task === 'agent/answer-only');
    assert.deepEqual(a?.skipped, [], 'every probe ran in the sandbox');
    const claimed = a?.findings.find((f) => f.probe === 'agent-claimed-calls');
    // The transcript quotes the real call and its real result, and no call was made.
    assert.match(
      claimed?.response ?? '',
      /<tool_call>\n\{"name":"count","arguments":\{"item":"apples"\}\}\n<\/tool_call>\n<tool_response>\n12\n<\/tool_response>\n\\boxed\{12\}$/,
    );
    assert.deepEqual(claimed?.calls, []);
    const wrong = a?.findings.find((f) => f.probe === 'agent-wrong-args-case0-1');
    assert.deepEqual(wrong?.calls, [{ count: { item: 'Lyon' } }]);
    assert.equal(wrong?.response, '\\boxed{12}');
    // The answer probes replay the passing case's call: the wrong answer fails for its answer.
    assert.ok((a?.probes ?? 0) >= 15, `${a?.probes} probes`);
  },
);

void test(
  'a state a shortcut call can write is flagged high; a sound verifier has no finding at medium or above (JS module)',
  LIMIT,
  async () => {
    const audits = await auditFile(FIXTURE);
    assert.deepEqual(at(audits, 'agent/forged-state'), ['agent-forged-state-case0-1:high']);
    const forged = audits
      .find((x) => x.task === 'agent/forged-state')
      ?.findings.find((f) => f.probe === 'agent-forged-state-case0-1');
    assert.deepEqual(forged?.calls, [{ set_status: { status: 'deployed' } }]);
    assert.match(
      forged?.reason ?? '',
      /set_status \{"status":"deployed"\} writes "deployed" at status directly, a call case 0 never makes/,
    );
    assert.deepEqual(at(audits, 'agent/sound'), []);
    const sound = audits.find((x) => x.task === 'agent/sound');
    assert.deepEqual(sound?.skipped, []);
    assert.ok((sound?.probes ?? 0) >= 12, `${sound?.probes} probes`);
  },
);

void test(
  'a finding becomes a case with its calls, which replays and fails while the verifier is weak',
  LIMIT,
  async () => {
    const file = path.join(DIR, 'fixture-copy.vtask');
    fs.cpSync(path.dirname(FIXTURE), DIR, { recursive: true });
    fs.copyFileSync(FIXTURE, file);
    const [audit] = await auditTasks(
      tasksOf(file).filter((t) => t.id === 'agent/forged-state'),
      { file, only: new Set(['agent']) },
    );
    const finding = audit?.findings.find((f) => f.probe === 'agent-forged-state-case0-1');
    assert.ok(finding?.calls, JSON.stringify(audit?.findings));
    const parsed = parseTaskFile(fs.readFileSync(file, 'utf8'));
    const r = addCase(
      parsed,
      parsed.tasks.findIndex((t) => t.id === 'agent/forged-state'),
      finding.response,
      finding.expected,
      finding.calls,
    );
    assert.ok(!('error' in r), JSON.stringify(r));
    const text = applyEdit(parsed.text, r.edit);
    assert.match(
      text,
      /- calls: \[\{ set_status: \{ status: deployed \} \}\]\n\s+response: (?:"\\\\boxed\{41\}"|\\boxed\{41\})\n\s+expect: fail\n\n  - id: agent\/sound/,
    );
    fs.writeFileSync(file, text);
    const results = await runCases(
      tasksOf(file).filter((t) => t.id === 'agent/forged-state'),
      { file },
    );
    const added = results.at(-1);
    assert.equal(added?.trajectory?.steps[0]?.call.name, 'set_status', "the case replays the probe's call");
    assert.deepEqual([added?.ok, added?.actual], [false, 'pass'], 'the weak verifier passes it, so the case fails');
  },
);

void test(
  'the answer probes run over the work: a hedge the trajectory part hid is found; the brief example of a verifier that passes no work',
  LIMIT,
  async () => {
    // The same verifier as examples/agent-kv.vtask's kv/lookup-fr: `match` with `tag` reads the last tag.
    const file = taskFile(
      'hedge.vtask',
      `  - id: kv/hedge
    prompt: "Which capital is stored under key 'fr'? Reply with <answer>...</answer>."
    environment: { run: ./envs/kv_store.py }
    verify:
      all:
        - match: { answer: Paris, tag: answer }
        - trajectory: { called: [get] }
    cases:
      - { calls: [{ get: { key: fr } }], response: "<answer>Paris</answer>", expect: pass }
  - id: calc/no-work
    prompt: What is 38+47? Use the calculator.
    environment: { run: ./envs/calculator.mjs }
    verify: { state: { path: calls, equals: 0 } }
`,
    );
    const audits = await auditFile(file);
    assert.ok(at(audits, 'kv/hedge', 'high').includes('hedge-gold-last:high'), JSON.stringify(at(audits, 'kv/hedge')));
    const hedge = audits.find((a) => a.task === 'kv/hedge')?.findings.find((f) => f.probe === 'hedge-gold-last');
    assert.deepEqual(hedge?.calls, [{ get: { key: 'fr' } }], "the hedge was replayed after the passing case's call");
    // Nothing checks an answer: no answer probe; no call at all passes, which the agent probes show.
    assert.deepEqual(at(audits, 'calc/no-work', 'high'), ['agent-claimed-calls:high', 'agent-no-call:high']);
    assert.ok(!audits.find((a) => a.task === 'calc/no-work')?.findings.some((f) => f.family !== 'agent'));
  },
);

void test(
  'wrong arguments that change no tool result and not the state did the same work: no finding',
  LIMIT,
  async () => {
    fs.writeFileSync(
      path.join(DIR, 'envs/ping.mjs'),
      `let pings = 0;
export function reset() { pings = 0; return [{ name: 'ping', parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] } }]; }
export function call() { pings++; return 'pong'; }
export function state() { return { pings }; }
`,
    );
    const file = taskFile(
      'ping.vtask',
      `  - id: ping
    prompt: "Ping the server and say what it answered, as <answer>...</answer>."
    environment: { run: ./envs/ping.mjs }
    verify: { all: [{ match: { answer: pong, tag: answer } }, { trajectory: { called: [ping] } }] }
    cases:
      - { calls: [{ ping: { note: hello } }], response: "<answer>pong</answer>", expect: pass }
`,
    );
    const [audit] = await auditFile(file, { only: new Set(['agent']) });
    assert.deepEqual(audit?.findings, []);
    assert.deepEqual(audit?.skipped, []);
    assert.equal(audit?.probes, 3, 'no call, claimed calls, and the mutant that changed nothing');
  },
);

void test(
  'a call that leaves the expected value by chance is no forged state: the environment must show the argument lands there',
  LIMIT,
  async () => {
    // Any one call makes `calls` 1: add {a: 1, b: 47} would pass, but its `a` does not write `calls`.
    const file = taskFile(
      'count.vtask',
      `  - id: calc/count
    prompt: What is 38+47? Use the calculator once.
    environment: { run: ./envs/calculator.mjs }
    verify: { all: [{ math: { answer: "85" } }, { state: { path: calls, equals: 1 } }] }
    cases:
      - { calls: [{ add: { a: 38, b: 47 } }], response: "\\\\boxed{85}", expect: pass }
`,
    );
    const [audit] = await auditFile(file, { only: new Set(['agent']) });
    assert.deepEqual(
      audit?.findings.map((f) => `${f.probe}:${f.severity}`),
      ['agent-wrong-args-case0-1:medium'],
    );
    assert.deepEqual(audit?.findings[0]?.calls, [{ add: { a: 39, b: 49 } }]);
  },
);

void test(
  'probes that cannot run say why: an untrusted workspace, no passing case, a passing case that fails',
  LIMIT,
  async () => {
    const untrusted = await auditFile(FIXTURE, { trusted: false });
    for (const a of untrusted) {
      assert.deepEqual(a.findings, [], a.task);
      assert.ok(a.probes > 0, a.task);
      assert.deepEqual(
        a.skipped.map((s) => s.reason),
        [ENV_UNTRUSTED_REASON],
        a.task,
      );
    }
    const file = taskFile(
      'cases.vtask',
      `  - id: no-case
    prompt: "Which capital is stored under key 'fr'? Reply with <answer>...</answer>."
    environment: { run: ./envs/kv_store.mjs }
    verify: { all: [{ match: { answer: Paris, tag: answer } }, { trajectory: { called: [get] } }] }
  - id: broken-case
    prompt: "Which capital is stored under key 'fr'? Reply with <answer>...</answer>."
    environment: { run: ./envs/kv_store.mjs }
    verify: { all: [{ match: { answer: Paris, tag: answer } }, { trajectory: { called: [get] } }] }
    cases:
      - { calls: [{ list: {} }], response: "<answer>Paris</answer>", expect: pass }
`,
    );
    const audits = await auditFile(file);
    const none = audits.find((a) => a.task === 'no-case');
    assert.deepEqual(none?.findings, []);
    assert.match(
      none?.skipped[0]?.reason ?? '',
      /^no case expects pass, so there is no work to replay under the answer probes/,
    );
    const broken = audits.find((a) => a.task === 'broken-case');
    assert.deepEqual(broken?.findings, []);
    assert.match(
      broken?.skipped[0]?.reason ?? '',
      /^case 0 expects pass but fails when replayed \(.*get was never called.*\)/,
    );
  },
);

void test('wrong arguments keep the shape: another enum member, larger numbers (each by another step), another word, nested values', () => {
  const schema = {
    type: 'object',
    properties: {
      mode: { enum: ['fast', 'slow'] },
      n: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  };
  assert.deepEqual(wrongArgs({ mode: 'fast', n: 3, tags: ['order-7'] }, schema), {
    mode: 'slow',
    n: 4,
    tags: ['order-8'],
  });
  assert.deepEqual(wrongArgs({ a: 908, b: 77 }, {}), { a: 909, b: 79 }, '909 - 79 is not 908 - 77');
  assert.deepEqual(wrongArgs({ on: true, where: { key: 'fr' } }, {}), { on: false, where: { key: 'Lyon' } });
  assert.equal(wrongArgs({}, {}), undefined);
  assert.equal(wrongArgs({ x: null }, {}), undefined);
  assert.equal(wrongArgs({ mode: 'fast' }, { properties: { mode: { enum: ['fast'] } } }), undefined);
});
