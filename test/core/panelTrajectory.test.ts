// Agent samples in the panel's core: a trajectory laid out by turn (calls with results or
// errors, the stop reason, the state), cut where huge; and "add as case" writing the
// trajectory's calls into the task file, read back by the YAML parser and valid as a case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Trajectory } from '../../src/core/agent/types';
import { sampleView as sampleSchema } from '../../src/core/base/panelProtocol';
import { toJS } from '../../src/core/base/ynode';
import { addCase, applyEdit } from '../../src/core/edit/taskEdits';
import { sampleView } from '../../src/core/panel/samples';
import { failedTurn, trajectoryCalls, trajectoryView } from '../../src/core/panel/trajectory';
import type { SampleResult } from '../../src/core/run/sampleTasks';
import { parseTaskFile, parseWholeFile } from '../../src/core/taskfile/parse';

const TRAJECTORY: Trajectory = {
  messages: [
    {
      role: 'assistant',
      content: 'Looking up two keys.',
      tool_calls: [
        { id: 'a', name: 'get', arguments: '{"key": "fr"}' },
        { id: 'b', name: 'get', arguments: '{"key": 7' },
      ],
    },
    { role: 'tool', tool_call_id: 'a', name: 'get', content: '"Paris"' },
    { role: 'tool', tool_call_id: 'b', name: 'get', content: '{"error": "arguments are not JSON"}' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c', name: 'put', arguments: '{"key": "x: y", "value": {"n": [1, 2]}}' }],
    },
    { role: 'tool', tool_call_id: 'c', name: 'put', content: 'true' },
    { role: 'assistant', content: '<answer>Paris</answer>' },
  ],
  steps: [
    {
      turn: 1,
      call: { id: 'a', name: 'get', arguments: '{"key": "fr"}' },
      args: { key: 'fr' },
      outcome: { result: 'Paris' },
    },
    { turn: 1, call: { id: 'b', name: 'get', arguments: '{"key": 7' }, outcome: { error: 'arguments are not JSON' } },
    {
      turn: 2,
      call: { id: 'c', name: 'put', arguments: '{"key": "x: y", "value": {"n": [1, 2]}}' },
      args: { key: 'x: y', value: { n: [1, 2] } },
      outcome: { result: true },
    },
  ],
  final: '<answer>Paris</answer>',
  turns: 3,
  state: { lookups: 1, big: 'z'.repeat(50_000) },
  stop: 'final',
};

test('a trajectory as the panel shows it: per turn the text and the calls, results and errors, the stop and the state', () => {
  const v = trajectoryView(TRAJECTORY);
  assert.deepEqual(
    v.turns.map((t) => ({ turn: t.turn, text: t.text, calls: t.calls })),
    [
      {
        turn: 1,
        text: 'Looking up two keys.',
        calls: [
          { tool: 'get', args: '{"key":"fr"}', result: '"Paris"' },
          { tool: 'get', args: '{"key": 7', error: 'arguments are not JSON' },
        ],
      },
      { turn: 2, text: '', calls: [{ tool: 'put', args: '{"key":"x: y","value":{"n":[1,2]}}', result: 'true' }] },
      { turn: 3, text: '<answer>Paris</answer>', calls: [] },
    ],
  );
  assert.equal(v.stop, 'final');
  assert.equal(v.calls, 3);
  // The state is cut for display, and says how much is not shown.
  assert.ok(v.state !== undefined && v.state.length < 21_000, String(v.state?.length));
  assert.match(v.state ?? '', /more characters\]$/);
  // Without a readable state there is none to show; a failed environment says why.
  const failed = trajectoryView({ ...TRAJECTORY, state: undefined, stop: 'error', error: 'exited with code 1' });
  assert.equal(failed.state, undefined);
  assert.equal(failed.error, 'exited with code 1');
});

test('a sample with a trajectory carries it to the panel, and the message is valid', () => {
  const s: SampleResult = {
    index: 0,
    text: TRAJECTORY.final,
    cached: false,
    finishReason: 'stop',
    truncated: false,
    verdict: { pass: true, score: 1, reason: 'ok', details: {} },
    model: 'm',
    takenAt: '2026-01-01T00:00:00.000Z',
    verifiedBy: 'test',
    trajectory: TRAJECTORY,
  };
  const view = sampleView(s);
  assert.equal(view.trajectory?.turns.length, 3);
  assert.ok(sampleSchema.safeParse(view).success);
  assert.equal(sampleView({ ...s, trajectory: undefined }).trajectory, undefined);
});

const FILE = `vtask: 1
tasks:
  - id: kv/1
    prompt: "Which capital is under 'fr'?"
    environment: { run: ./kv.py }
    verify:
      match: { answer: Paris, tag: answer }
  - id: kv/2
    prompt: "Again."
    environment: { run: ./kv.py }
    verify:
      match: { answer: Paris, tag: answer }
    cases:
      - response: "<answer>Paris</answer>"
        expect: pass
`;

test('add as case writes the calls, then the response and the verdict; the YAML reads back and validates', () => {
  const calls = trajectoryCalls(TRAJECTORY);
  // One item per turn (a list for the turn of two parallel calls); arguments that were not JSON
  // are kept as the text the model wrote, so the replayed call fails as the sampled one did.
  assert.deepEqual(calls, [
    [{ get: { key: 'fr' } }, { get: '{"key": 7' }],
    { put: { key: 'x: y', value: { n: [1, 2] } } },
  ]);
  for (const task of [0, 1]) {
    const r = addCase(parseTaskFile(FILE), task, TRAJECTORY.final, 'pass', calls);
    if ('error' in r) assert.fail(r.error);
    const text = applyEdit(FILE, r.edit);
    const file = parseWholeFile(text);
    assert.deepEqual(
      file.issues.filter((i) => i.severity === 'error'),
      [],
      text,
    );
    const cases = (toJS(file.tasks[task]?.node) as { cases: unknown[] }).cases;
    assert.deepEqual(cases.at(-1), { calls, response: '<answer>Paris</answer>', expect: 'pass' });
    assert.deepEqual(
      Object.keys(cases.at(-1) as object),
      ['calls', 'response', 'expect'],
      'calls come first, as the format writes them',
    );
  }
  // A sample without a trajectory gets the case it always got.
  const r = addCase(parseTaskFile(FILE), 0, 'x', 'fail');
  if ('error' in r) assert.fail(r.error);
  assert.deepEqual((toJS(parseWholeFile(applyEdit(FILE, r.edit)).tasks[0]?.node) as { cases: unknown[] }).cases, [
    { response: 'x', expect: 'fail' },
  ]);
});

test('a failed verdict points the panel at the earliest turn its failing checks name, inside composites too', () => {
  assert.equal(failedTurn({ turn: 3 }), 3);
  const composite = {
    children: [
      { pass: true, details: { turn: 1 } },
      {
        pass: false,
        details: {
          children: [
            { pass: false, details: { turn: 4 } },
            { pass: false, details: { turn: 2 } },
          ],
        },
      },
      { pass: false, details: {} },
    ],
  };
  assert.equal(failedTurn(composite), 2, 'a passing child names no failure');
  assert.equal(failedTurn({ reason: 'no turn' }), undefined);
  assert.equal(trajectoryView(TRAJECTORY, { pass: false, details: composite }).failedTurn, 2);
  assert.equal(
    trajectoryView(TRAJECTORY, { pass: true, details: { turn: 2 } }).failedTurn,
    undefined,
    'a pass highlights nothing',
  );
});
