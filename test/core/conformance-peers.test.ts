// TRL and open-instruct verifier tests that map onto vtask's format, match and math kinds.
// Each peer reward is expressed as the vtask verifier an author would write for it; the
// agreement is printed and asserted exactly, known disagreements pinned by row
// (test/support/conformance.ts).
import { test } from 'node:test';
import { verify } from '../../src/core/verifiers/verify';
import { assertAgreement, needsConformance, readJsonl, rowId, type Outcome } from '../support/conformance';
const task = { id: 'conformance', prompt: '', messages: [], meta: {}, dir: '.' };

const TRL = 'trl_reward_tests.jsonl';
const OI = 'open_instruct_verifier_tests.jsonl';

/** The rows of a file that `keep` selects, each with its id (its line in the whole file). */
function rowsOf<R>(file: string, rows: number, keep: (r: R) => boolean): { id: string; r: R }[] {
  return readJsonl<R>(file, rows)
    .map((r, i) => ({ id: rowId(file, i), r }))
    .filter(({ r }) => keep(r));
}

/** Runs each row through vtask: an outcome per row, in order. */
async function compare<R>(
  rows: readonly { id: string; r: R }[],
  run: (r: R) => Promise<{ ok: boolean; note: string }>,
): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const { id, r } of rows) {
    const { ok, note } = await run(r);
    out.push({ id, agree: ok, note });
  }
  return out;
}

interface TrlRow {
  reward: string;
  completion: string;
  solution?: string;
  expected: number | null;
}

void test('TRL think_format_reward = format: { think: required }', { skip: needsConformance }, async () => {
  const rows = rowsOf<TrlRow>(TRL, 30, (r) => r.reward === 'think_format_reward' && r.expected !== null);
  const outcomes = await compare(rows, async (r) => {
    const v = await verify({ format: { think: 'required' } }, r.completion, { task });
    return {
      ok: (v.pass ? 1 : 0) === r.expected,
      note: `${JSON.stringify(r.completion)} expected ${r.expected}: ${v.reason}`,
    };
  });
  assertAgreement('trl think_format_reward', outcomes, { total: 14 });
});

void test(
  'TRL reasoning_accuracy_reward = all: [format regex </think>, math]',
  { skip: needsConformance },
  async () => {
    // TRL scores 0 when there is no reasoning delimiter (chat templates often open <think> in
    // the prompt, so only the closing tag is required): in vtask, a format regex for the closing
    // tag together with the math check of the final answer.
    const rows = rowsOf<TrlRow>(TRL, 30, (r) => r.reward.startsWith('reasoning_accuracy') && r.expected !== null);
    const outcomes = await compare(rows, async (r) => {
      const v = await verify(
        { all: [{ format: { regex: '</think>' } }, { math: { answer: r.solution ?? '' } }] },
        r.completion,
        { task },
      );
      return {
        ok: (v.pass ? 1 : 0) === r.expected,
        note: `${JSON.stringify(r.completion.slice(0, 80))} expected ${r.expected}: ${v.reason}`,
      };
    });
    assertAgreement('trl reasoning_accuracy_reward', outcomes, {
      total: 8,
      pinned: {
        [rowId(TRL, 23)]:
          "closes a custom delimiter (</REASONING_END>) that TRL is configured for; vtask's final-answer rule reads </think> only, by design",
      },
    });
  },
);

interface OiRow {
  class: string;
  name?: string;
  _name?: string;
  prediction?: string;
  label?: string;
  labels?: string[];
  expected_score?: number;
}

void test('open-instruct PuzzleMatcher = any: [match with tag answer, match]', { skip: needsConformance }, async () => {
  const rows = rowsOf<OiRow>(OI, 66, (r) => r.class === 'TestPuzzleMatcherVerifier');
  const outcomes = await compare(rows, async (r) => {
    const answer = r.label ?? '';
    const v = await verify({ any: [{ match: { answer, tag: 'answer' } }, { match: { answer } }] }, r.prediction ?? '', {
      task,
    });
    return {
      ok: v.score === r.expected_score,
      note: `${r.name}: ${JSON.stringify(r.prediction)} vs ${JSON.stringify(answer)} expected ${r.expected_score}, got ${v.score}`,
    };
  });
  assertAgreement('open-instruct PuzzleMatcherVerifier', outcomes, { total: 29 });
});

void test(
  'open-instruct F1Verifier = match: { mode: f1 } (answer tag read when present)',
  { skip: needsConformance },
  async () => {
    const rows = rowsOf<OiRow>(OI, 66, (r) => r.class === 'TestF1Verifier');
    const outcomes = await compare(rows, async (r) => {
      const answers = r.labels ?? [r.label ?? ''];
      const v = await verify(
        { any: [{ match: { answers, tag: 'answer', mode: 'f1' } }, { match: { answers, mode: 'f1' } }] },
        r.prediction ?? '',
        { task },
      );
      return {
        ok: Math.abs(v.score - (r.expected_score ?? -1)) < 1e-9,
        note: `${r.name}: expected ${r.expected_score}, got ${v.score}`,
      };
    });
    assertAgreement('open-instruct F1Verifier', outcomes, { total: 13 });
  },
);

void test('open-instruct GSM8KVerifier = math', { skip: needsConformance }, async () => {
  const rows = rowsOf<OiRow>(OI, 66, (r) => r.class === 'TestGSM8KVerifier');
  const outcomes = await compare(rows, async (r) => {
    // The rows are Python source literals: `\\\\boxed` there is one backslash in the string.
    const prediction = (r.prediction ?? '').replace(/\\\\/g, '\\');
    const v = await verify({ math: { answer: r.label ?? '' } }, prediction, { task });
    return {
      ok: (v.pass ? 1 : 0) === r.expected_score,
      note: `${r._name}: ${JSON.stringify(prediction)} expected ${r.expected_score}: ${v.reason}`,
    };
  });
  assertAgreement('open-instruct GSM8KVerifier', outcomes, { total: 5 });
});
