// A JUnit XML report of `vtask test`, written as the cases come: one suite per task file, one
// test case per regression case. The totals head the report, so the suites wait in a spool
// (memory, then a temporary file) until the last file is done: memory stays bounded at any size.
import fs from 'node:fs';
import { Spool } from '../util/spool';
import { caseOutcome, type CaseResult } from './cases';

const escape = (s: string): string =>
  s
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

function label(e: CaseResult['expected']): string {
  return typeof e === 'string' ? e : `score ${e.score}`;
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

const zero = (): Counts => ({ tests: 0, failures: 0, errors: 0, skipped: 0 });

/**
 * The report being made: `begin(file)`, its validation `error`s and case `result`s in any
 * order (validation errors are listed first), `end()`; then `write(path)` once, and `close()`.
 * A case whose verifier could not give a verdict (`undecided`) is an error, not a skip: CI must
 * not pass it. Validation errors are failed test cases, so CI shows them.
 */
export class JunitReport {
  private readonly suites = new Spool();
  private readonly validation = new Spool();
  private readonly cases = new Spool();
  /** The report's totals count cases only; validation errors add to its failures. */
  private readonly total = zero();
  private suite = zero();
  private file = '';

  begin(file: string): void {
    this.file = file;
    this.suite = zero();
  }

  error(message: string): void {
    this.validation.add(
      `    <testcase classname="${escape(this.file)}" name="validation"><failure message="${escape(message)}"/></testcase>\n`,
    );
    this.suite.tests++;
    this.suite.failures++;
    this.total.failures++;
  }

  result(r: CaseResult): void {
    const name = `${r.task} case ${r.case}${r.name ? ` (${r.name})` : ''}`;
    const head = `    <testcase classname="${escape(this.file)}" name="${escape(name)}" time="0">`;
    const outcome = caseOutcome(r);
    this.suite.tests++;
    this.total.tests++;
    if (outcome === 'skipped') {
      this.suite.skipped++;
      this.cases.add(`${head}<skipped message="${escape(r.verdict.reason)}"/></testcase>\n`);
    } else if (outcome === 'undecided') {
      this.suite.errors++;
      this.total.errors++;
      this.cases.add(
        `${head}<error type="${escape(r.verdict.error ?? 'error')}" message="${escape(`no verdict: ${r.verdict.reason}`)}"/></testcase>\n`,
      );
    } else if (outcome === 'passed') this.cases.add(`${head}</testcase>\n`);
    else {
      this.suite.failures++;
      this.total.failures++;
      this.cases.add(
        `${head}<failure message="${escape(`expected ${label(r.expected)}, got ${label(r.actual)}: ${r.verdict.reason}`)}"/></testcase>\n`,
      );
    }
  }

  async end(): Promise<void> {
    const s = this.suite;
    this.suites.add(
      `  <testsuite name="${escape(this.file)}" tests="${s.tests}" failures="${s.failures}" errors="${s.errors}" skipped="${s.skipped}">\n`,
    );
    const into = { write: (text: string) => this.suites.add(text) };
    await this.validation.drainTo(into);
    await this.cases.drainTo(into);
    this.suites.add('  </testsuite>\n');
  }

  /** Writes the whole report to `file`; throws what the file system says when it cannot. */
  async write(file: string): Promise<void> {
    const fd = fs.openSync(file, 'w');
    try {
      const out = { write: (text: string) => fs.writeSync(fd, text) };
      out.write(
        `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="vtask" tests="${this.total.tests}" failures="${this.total.failures}" errors="${this.total.errors}">\n`,
      );
      await this.suites.drainTo(out);
      out.write('</testsuites>\n');
    } finally {
      fs.closeSync(fd);
    }
  }

  close(): void {
    for (const s of [this.suites, this.validation, this.cases]) s.close();
  }
}
