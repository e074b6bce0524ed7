import { caseOutcome, type CaseResult } from './cases';

export interface JunitFile {
  readonly file: string;
  readonly results: readonly CaseResult[];
  /** Validation errors, reported as failed test cases so CI shows them. */
  readonly errors: readonly string[];
}

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

function label(e: CaseResult['expected']): string {
  return typeof e === 'string' ? e : `score ${e.score}`;
}

/**
 * A JUnit XML report: one suite per task file, one test case per regression case. A case whose
 * verifier could not give a verdict (`undecided`) is an error, not a skip: CI must not pass it.
 */
export function junitXml(files: readonly JunitFile[]): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = files.flatMap((f) => f.results);
  const count = (rs: readonly CaseResult[], o: ReturnType<typeof caseOutcome>): number => rs.filter((r) => caseOutcome(r) === o).length;
  const failures = count(all, 'failed') + files.reduce((a, f) => a + f.errors.length, 0);
  out.push(`<testsuites name="vtask" tests="${all.length}" failures="${failures}" errors="${count(all, 'undecided')}">`);
  for (const f of files) {
    const fails = count(f.results, 'failed') + f.errors.length;
    out.push(`  <testsuite name="${escape(f.file)}" tests="${f.results.length + f.errors.length}" failures="${fails}" errors="${count(f.results, 'undecided')}" skipped="${count(f.results, 'skipped')}">`);
    for (const e of f.errors) out.push(`    <testcase classname="${escape(f.file)}" name="validation"><failure message="${escape(e)}"/></testcase>`);
    for (const r of f.results) {
      const name = `${r.task} case ${r.case}${r.name ? ` (${r.name})` : ''}`;
      const head = `    <testcase classname="${escape(f.file)}" name="${escape(name)}" time="0">`;
      const outcome = caseOutcome(r);
      if (outcome === 'skipped') out.push(`${head}<skipped message="${escape(r.verdict.reason)}"/></testcase>`);
      else if (outcome === 'undecided') out.push(`${head}<error type="${escape(r.verdict.error ?? 'error')}" message="${escape(`no verdict: ${r.verdict.reason}`)}"/></testcase>`);
      else if (outcome === 'passed') out.push(`${head}</testcase>`);
      else out.push(`${head}<failure message="${escape(`expected ${label(r.expected)}, got ${label(r.actual)}: ${r.verdict.reason}`)}"/></testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
