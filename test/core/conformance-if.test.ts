import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strictObjectOf } from '../../src/core/schema/fields';
import { checkConstraints } from '../../src/core/verifiers/constraints/checkConstraints';
import { CHECKERS } from '../../src/core/verifiers/constraints/checkers';
import { INSTRUCTIONS, kwargConflicts } from '../../src/core/verifiers/constraints/instructions';
import { wordTokenize } from '../../src/core/verifiers/constraints/text/treebank';
import { isUpper } from '../../src/core/verifiers/constraints/text/py';
import type { InstructionCheck } from '../../src/core/verifiers/constraints/types';
import { assertAgreement, needsConformance, readJsonl, rowId, type Outcome } from '../support/conformance';

// The peers' own test rows, from ../shared beside the repository (test/support/conformance.ts).

interface Row {
  test: string;
  test_instruction_id: string;
  registry_id: string | null;
  kwargs: Record<string, unknown>;
  response: string;
  expected: boolean | 'raises';
}

/** Kwargs a task file may carry: the peers' tests pass none for kwarg-free ids, or nulls. */
function cleanKwargs(k: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(k ?? {}).filter(([, v]) => v !== null));
}

function validationProblems(id: string, kwargs: Record<string, unknown>): string[] {
  const def = INSTRUCTIONS.get(id);
  if (!def) return [`unknown id ${id}`];
  const r = strictObjectOf(def.kwargs).safeParse(kwargs);
  if (!r.success) return r.error.issues.map((i) => i.message);
  return kwargConflicts(id, kwargs);
}

/** An outcome per row with a registered id (rows without one have nothing to compare), per id counts printed. */
function run(file: string, rows: number): Outcome[] {
  const outcomes: Outcome[] = [];
  const perId = new Map<string, { rows: number; agree: number }>();
  let skipped = 0;
  for (const [i, row] of readJsonl<Row>(file, rows).entries()) {
    const rid = rowId(file, i);
    if (row.expected === 'raises') {
      // A kwarg error in the peer is a validation error in vtask.
      const ok = validationProblems(row.registry_id ?? row.test_instruction_id, cleanKwargs(row.kwargs)).length > 0;
      outcomes.push({ id: rid, agree: ok, note: `${row.test_instruction_id}: expected a validation error` });
      continue;
    }
    if (!row.registry_id) {
      skipped++;
      continue;
    }
    const id = row.registry_id;
    const kwargs = cleanKwargs(row.kwargs);
    assert.deepEqual(validationProblems(id, kwargs), [], `${row.test}: peer kwargs must validate for ${id}`);
    const check = CHECKERS.get(id) as InstructionCheck;
    assert.ok(check, `no checker for ${id}`);
    const o = check(row.response, kwargs, { prompt: '' });
    const per = perId.get(id) ?? { rows: 0, agree: 0 };
    per.rows++;
    const agree = o.error === undefined && o.pass === row.expected;
    if (agree) per.agree++;
    perId.set(id, per);
    outcomes.push({
      id: rid,
      agree,
      note:
        o.error === 'unavailable'
          ? `${id}: unavailable (${o.reason})`
          : `${id} expected ${row.expected}, got ${o.pass} (${o.reason}) for ${JSON.stringify(row.response.slice(0, 80))}`,
    });
    // Through the verdict too (strict mode), for non-empty responses, where IFEval's evaluation applies.
    if (row.response.trim() && o.error === undefined) {
      const v = checkConstraints(row.response, { instructions: [{ [id]: kwargs }] });
      assert.equal(v.pass, o.pass, `verdict and check disagree on ${id}`);
    }
  }
  console.log(`${file}: ${skipped} rows skipped (no registry id); per id:`);
  for (const [id, p] of [...perId].sort()) console.log(`  ${id}: ${p.agree}/${p.rows}`);
  return outcomes;
}

void test(
  'IFEval (google-research instructions_test.py): 100% agreement on every registered id',
  { skip: needsConformance },
  () => {
    assertAgreement('ifeval_google_tests.jsonl', run('ifeval_google_tests.jsonl', 96), { total: 83 });
  },
);

void test('IFBench (allenai instructions_test.py): agreement per implemented id', { skip: needsConformance }, () => {
  const file = 'ifbench_tests.jsonl';
  assertAgreement(file, run(file, 174), { total: 174 });
});

interface OiRow {
  class: string;
  _name?: string;
  text?: string;
  n?: number;
  quantifier?: string;
  expected?: boolean;
}

void test(
  'open-instruct IF rows: capital-word frequency maps onto change_case:capital_word_frequency',
  { skip: needsConformance },
  () => {
    // open-instruct's if_functions `validate_frequency_capital_words` counts words that are all
    // capitals; its `at least` matches IFEval's, `at most n` is IFEval's `less than n + 1`.
    // `around` (within 10%) and `validate_choice` have no registered id and are not applicable.
    const file = 'open_instruct_verifier_tests.jsonl';
    const outcomes: Outcome[] = [];
    let ifRows = 0;
    for (const [i, r] of readJsonl<OiRow>(file, 66).entries()) {
      if (r.class === 'TestValidateFrequencyCapitalWords' || r.class === 'TestValidateChoice') ifRows++;
      if (
        r.class !== 'TestValidateFrequencyCapitalWords' ||
        (r.quantifier !== 'at least' && r.quantifier !== 'at most')
      )
        continue;
      const kwargs =
        r.quantifier === 'at least'
          ? { capital_frequency: r.n, capital_relation: 'at least' }
          : { capital_frequency: (r.n as number) + 1, capital_relation: 'less than' };
      const o = (CHECKERS.get('change_case:capital_word_frequency') as InstructionCheck)(r.text as string, kwargs, {
        prompt: '',
      });
      outcomes.push({
        id: rowId(file, i),
        agree: o.pass === r.expected,
        note: `${r.quantifier} ${r.n}: expected ${r.expected}, got ${o.pass} (${o.reason})`,
      });
    }
    console.log(
      `${file}: ${ifRows - outcomes.length} of ${ifRows} IF rows have no registered id (validate_choice, quantifier "around")`,
    );
    assertAgreement(`${file} (IF rows with a registered id)`, outcomes, { total: 2 });
    // Sanity: the same all-capital tokens the peer counts.
    assert.equal(wordTokenize('AAA BBB CCC').filter(isUpper).length, 3);
  },
);
