// TRL and open-instruct verifier tests that map onto vtask's format, match and math kinds.
// Each peer reward is expressed as the vtask verifier an author would write for it; the
// agreement is printed as a figure and may not drop below what vtask reaches today.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verify } from '../../src/core/verifiers/verify';
import { readJsonl as read } from '../support/conformance';
const task = { id: 'conformance', prompt: '', messages: [], meta: {}, dir: '.' };

interface Tally {
  agree: number;
  total: number;
  disagreements: string[];
}

async function tally<R>(rows: readonly R[], run: (r: R) => Promise<{ ok: boolean; note: string }>): Promise<Tally> {
  const t: Tally = { agree: 0, total: 0, disagreements: [] };
  for (const r of rows) {
    const { ok, note } = await run(r);
    t.total++;
    if (ok) t.agree++;
    else t.disagreements.push(note);
  }
  return t;
}

function report(name: string, t: Tally): void {
  console.log(`${name}: ${t.agree}/${t.total} agree (${((100 * t.agree) / Math.max(1, t.total)).toFixed(1)}%)`);
  for (const d of t.disagreements) console.log(`  disagreement: ${d}`);
}

interface TrlRow {
  reward: string;
  completion: string;
  solution?: string;
  expected: number | null;
}

void test('TRL think_format_reward = format: { think: required }', async () => {
  const rows = read<TrlRow>('trl_reward_tests.jsonl').filter((r) => r.reward === 'think_format_reward' && r.expected !== null);
  const t = await tally(rows, async (r) => {
    const v = await verify({ format: { think: 'required' } }, r.completion, { task });
    return { ok: (v.pass ? 1 : 0) === r.expected, note: `${JSON.stringify(r.completion)} expected ${r.expected}: ${v.reason}` };
  });
  report('trl think_format_reward', t);
  assert.equal(t.agree, t.total);
});

void test('TRL reasoning_accuracy_reward = all: [format regex </think>, math]', async () => {
  // TRL scores 0 when there is no reasoning delimiter (chat templates often open <think> in
  // the prompt, so only the closing tag is required): in vtask, a format regex for the closing
  // tag together with the math check of the final answer.
  const rows = read<TrlRow>('trl_reward_tests.jsonl').filter((r) => r.reward.startsWith('reasoning_accuracy') && r.expected !== null);
  const t = await tally(rows, async (r) => {
    const v = await verify({ all: [{ format: { regex: '</think>' } }, { math: { answer: r.solution ?? '' } }] }, r.completion, { task });
    return { ok: (v.pass ? 1 : 0) === r.expected, note: `${JSON.stringify(r.completion.slice(0, 80))} expected ${r.expected}: ${v.reason}` };
  });
  report('trl reasoning_accuracy_reward', t);
  // One row closes a custom delimiter (</REASONING_END>) that TRL is configured for; vtask's
  // final-answer rule reads `</think>` only, so that row disagrees by design.
  assert.ok(t.agree >= t.total - 1, `agreement dropped to ${t.agree}/${t.total}`);
});

interface OiRow {
  class: string;
  name?: string;
  _name?: string;
  prediction?: string;
  label?: string;
  labels?: string[];
  expected_score?: number;
}

void test('open-instruct PuzzleMatcher = any: [match with tag answer, match]', async () => {
  const rows = read<OiRow>('open_instruct_verifier_tests.jsonl').filter((r) => r.class === 'TestPuzzleMatcherVerifier');
  const t = await tally(rows, async (r) => {
    const answer = r.label ?? '';
    const v = await verify({ any: [{ match: { answer, tag: 'answer' } }, { match: { answer } }] }, r.prediction ?? '', { task });
    return { ok: v.score === r.expected_score, note: `${r.name}: ${JSON.stringify(r.prediction)} vs ${JSON.stringify(answer)} expected ${r.expected_score}, got ${v.score}` };
  });
  report('open-instruct PuzzleMatcherVerifier', t);
  assert.ok(t.agree >= 28, `agreement dropped to ${t.agree}/${t.total}`);
});

void test('open-instruct F1Verifier = match: { mode: f1 } (answer tag read when present)', async () => {
  const rows = read<OiRow>('open_instruct_verifier_tests.jsonl').filter((r) => r.class === 'TestF1Verifier');
  const t = await tally(rows, async (r) => {
    const answers = r.labels ?? [r.label ?? ''];
    const v = await verify({ any: [{ match: { answers, tag: 'answer', mode: 'f1' } }, { match: { answers, mode: 'f1' } }] }, r.prediction ?? '', { task });
    return { ok: Math.abs(v.score - (r.expected_score ?? -1)) < 1e-9, note: `${r.name}: expected ${r.expected_score}, got ${v.score}` };
  });
  report('open-instruct F1Verifier', t);
  assert.equal(t.agree, t.total);
});

void test('open-instruct GSM8KVerifier = math', async () => {
  const rows = read<OiRow>('open_instruct_verifier_tests.jsonl').filter((r) => r.class === 'TestGSM8KVerifier');
  const t = await tally(rows, async (r) => {
    // The rows are Python source literals: `\\\\boxed` there is one backslash in the string.
    const prediction = (r.prediction ?? '').replace(/\\\\/g, '\\');
    const v = await verify({ math: { answer: r.label ?? '' } }, prediction, { task });
    return { ok: (v.pass ? 1 : 0) === r.expected_score, note: `${r._name}: ${JSON.stringify(prediction)} expected ${r.expected_score}: ${v.reason}` };
  });
  report('open-instruct GSM8KVerifier', t);
  assert.equal(t.agree, t.total);
});
