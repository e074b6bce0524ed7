import type { CaseResult } from './cases';

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

/** A JUnit XML report: one suite per task file, one test case per regression case. */
export function junitXml(files: readonly JunitFile[]): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = files.flatMap((f) => f.results);
  const failures = all.filter((r) => !r.ok && !r.skipped).length + files.reduce((a, f) => a + f.errors.length, 0);
  out.push(`<testsuites name="vtask" tests="${all.length}" failures="${failures}">`);
  for (const f of files) {
    const fails = f.results.filter((r) => !r.ok && !r.skipped).length + f.errors.length;
    const skipped = f.results.filter((r) => r.skipped).length;
    out.push(`  <testsuite name="${escape(f.file)}" tests="${f.results.length + f.errors.length}" failures="${fails}" skipped="${skipped}">`);
    for (const e of f.errors) out.push(`    <testcase classname="${escape(f.file)}" name="validation"><failure message="${escape(e)}"/></testcase>`);
    for (const r of f.results) {
      const name = `${r.task} case ${r.case}${r.name ? ` (${r.name})` : ''}`;
      const head = `    <testcase classname="${escape(f.file)}" name="${escape(name)}" time="0">`;
      if (r.skipped) out.push(`${head}<skipped message="${escape(r.verdict.reason)}"/></testcase>`);
      else if (r.ok) out.push(`${head}</testcase>`);
      else out.push(`${head}<failure message="${escape(`expected ${label(r.expected)}, got ${label(r.actual)}: ${r.verdict.reason}`)}"/></testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
