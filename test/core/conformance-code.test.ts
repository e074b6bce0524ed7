// Conformance with the code-execution tests of open-instruct and verl
// (../shared/conformance/code_exec_cases.jsonl): each peer test runs through the `code` verifier
// and the agreement is printed and asserted (test/support/conformance.ts); a missing file fails in
// CI and skips (`needs:`) elsewhere. Python asserts rows run each assert separately, as the peer
// does; verl's rows compare the pass rate over the first 10 tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeKind } from '../../src/core/verifiers/code';
import type { VerifierKind } from '../../src/core/verifiers/kind';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';
import { assertAgreement, needsConformance, readJsonl, rowId, type Outcome } from '../support/conformance';

const FILE = 'code_exec_cases.jsonl';

interface Row {
  readonly source: string;
  readonly mode: 'python_asserts' | 'stdio';
  readonly program: string;
  readonly tests: readonly (string | { input: string; output: string })[];
  readonly per_test_timeout_s: number;
  readonly expected_per_test?: readonly number[];
  readonly expected_score_continuous_first10?: number;
}

function ctx(): VerifyContext {
  return {
    task: { id: 'conformance', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal: new AbortController().signal,
    trusted: true,
    child: () => Promise.reject(new Error('no children here')),
  };
}

function check(answer: string, params: Record<string, unknown>): Promise<Verdict> {
  // The cases' parameters are data, as a task file gives them: checked the way the registry checks them.
  const kind: VerifierKind = codeKind;
  assert.ok(kind.check);
  return Promise.resolve(kind.check(answer, params, ctx()));
}

void test('code execution agrees with open-instruct and verl', { skip: needsConformance }, async () => {
  const rows = readJsonl<Row>(FILE, 6);
  const outcomes: Outcome[] = [];
  const started = Date.now();
  for (const [i, row] of rows.entries()) {
    // At least 3 s, so that a loaded CI machine does not turn a pass into a timeout; the peers'
    // timeout tests sleep 10 s, so they still time out.
    const timeout_ms = Math.round(Math.max(row.per_test_timeout_s, 3) * 1000);
    if (row.mode === 'python_asserts' && row.expected_per_test) {
      const verdicts = await Promise.all(
        row.tests.map((a) => check(row.program, { language: 'python', asserts: a as string, timeout_ms })),
      );
      verdicts.forEach((v, j) => {
        outcomes.push({
          id: rowId(FILE, i, j),
          agree: Number(v.pass) === row.expected_per_test?.[j],
          note: `expected ${row.expected_per_test?.[j]}, got ${v.reason}`,
        });
      });
    } else if (row.mode === 'stdio') {
      const tests = (row.tests as { input: string; output: string }[]).map((x) => ({
        stdin: x.input,
        stdout: x.output,
      }));
      if (row.expected_per_test) {
        const v = await check(row.program, { language: 'python', tests, timeout_ms });
        const got = (v.details.tests as { status: string }[]).map((x) => Number(x.status === 'passed'));
        got.forEach((g, j) =>
          outcomes.push({
            id: rowId(FILE, i, j),
            agree: g === row.expected_per_test?.[j],
            note: `expected ${row.expected_per_test?.[j]}, got ${g}`,
          }),
        );
      } else if (row.expected_score_continuous_first10 !== undefined) {
        const v = await check(row.program, { language: 'python', tests: tests.slice(0, 10), timeout_ms });
        outcomes.push({
          id: rowId(FILE, i),
          agree: Math.abs(v.score - row.expected_score_continuous_first10) < 1e-6,
          note: `expected score ${row.expected_score_continuous_first10}, got ${v.score} (${v.reason})`,
        });
      }
    }
  }
  assertAgreement(`code_exec conformance (${Date.now() - started} ms)`, outcomes, { total: 20 });
});
