// Probes for `code` verifiers: programs that cheat the harness (exit at once, hook the error
// handler, print what the tests expect, never end), and mutants of a program the task's own
// cases say is right. A mutant that still passes shows the tests cannot tell a right program
// from a slightly wrong one, which is what a policy learns to exploit.
import type { TaskSpec } from '../taskfile/resolve';
import { extractCode, type CodeLanguage } from '../verifiers/code/extract';
import type { Probe } from './probe';

/** At most this many mutants per passing case, and passing cases used. */
const MUTANTS_PER_CASE = 4;
const CASES_MUTATED = 2;

interface CodeParams {
  readonly language?: CodeLanguage;
  readonly tests?: readonly { stdin?: string; stdout?: string }[];
  readonly asserts?: string;
}

const fence = (language: CodeLanguage, code: string): string => '```' + language + '\n' + code + '\n```';

export function codeProbes(task: TaskSpec): Probe[] {
  const p = ((task.verify as { code?: CodeParams }).code ?? {}) as CodeParams;
  const language: CodeLanguage = p.language === 'javascript' ? 'javascript' : 'python';
  const py = language === 'python';
  const exploit = (id: string, code: string, why: string, severity: Probe['severity'] = 'critical'): Probe => ({ id, family: 'code-exploit', response: fence(language, code), expected: 'fail', severity, why });
  const out: Probe[] = [
    exploit('does-nothing', py ? 'pass' : ';', 'a program that does nothing solves nothing'),
    exploit('exit-at-once', py ? 'import sys\nsys.exit(0)' : 'process.exit(0);', 'a program that exits at once solves nothing'),
    exploit('hard-exit', py ? 'import os\nos._exit(0)' : 'process.reallyExit(0);', 'a program that ends the process before any check solves nothing'),
    exploit(
      'silence-errors',
      py ? 'import sys, atexit, os\nsys.excepthook = lambda *a: None\natexit.register(lambda: os._exit(0))' : "process.on('uncaughtException', () => process.exit(0));\nprocess.on('exit', () => { process.exitCode = 0; });",
      'a program that swallows failed checks solves nothing',
    ),
    exploit('never-ends', py ? 'while True:\n    pass' : 'for (;;) {}', 'a program that never ends must be stopped and failed', 'high'),
  ];
  const outputs = (p.tests ?? []).map((t) => t.stdout ?? '');
  if (outputs.length) {
    const first = outputs[0] as string;
    out.push(exploit('print-expected', py ? `print(${JSON.stringify(first)}, end='')` : `process.stdout.write(${JSON.stringify(first)});`, 'a program that prints the first expected output whatever its input has not solved the task', 'high'));
  }
  const passing = task.cases.filter((c) => c.expect === 'pass').slice(0, CASES_MUTATED);
  for (const c of passing) {
    const code = extractCode(c.response, language).code;
    mutantsOf(code, language).slice(0, MUTANTS_PER_CASE).forEach((m, i) => {
      out.push({ id: `mutant-case${c.index}-${i + 1}`, family: 'code-mutant', response: fence(language, m.code), expected: 'fail', severity: 'medium', why: `case ${c.index} with ${m.what}: the tests cannot tell it from the right program; add a test it fails` });
    });
  }
  return out;
}

interface Mutant {
  readonly code: string;
  readonly what: string;
}

/** Small wrong edits of a program, each different from it and from the others. */
export function mutantsOf(code: string, language: CodeLanguage): Mutant[] {
  const comment = language === 'python' ? /^\s*#/ : /^\s*\/\//;
  const lines = code.split('\n');
  const out: Mutant[] = [];
  const seen = new Set([code]);
  const tryEdit = (what: string, re: RegExp, to: (m: string) => string): void => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (comment.test(line) || /^\s*(import|from)\b/.test(line)) continue;
      const m = re.exec(stripStrings(line));
      if (!m) continue;
      const edited = line.slice(0, m.index) + to(m[0]) + line.slice(m.index + m[0].length);
      const mutated = [...lines.slice(0, i), edited, ...lines.slice(i + 1)].join('\n');
      if (!seen.has(mutated)) {
        seen.add(mutated);
        out.push({ code: mutated, what: `${what} on line ${i + 1}` });
      }
      return;
    }
  };
  tryEdit('its return value replaced by 0', /\breturn\s+[^\s;].*?(?=;?\s*$)/, () => 'return 0');
  tryEdit('its return value replaced by true', /\breturn\s+[^\s;].*?(?=;?\s*$)/, () => (language === 'python' ? 'return True' : 'return true'));
  tryEdit('`+` turned into `-`', /(?<=[\w)\]] *)\+(?= *[\w(])/, () => '-');
  tryEdit('`<` turned into `<=`', /<(?![=<])/, () => '<=');
  tryEdit('`>` turned into `>=`', /(?<!-)>(?![=>])/, () => '>=');
  tryEdit('`==` turned into `!=`', /===?/, (m) => (m === '===' ? '!==' : '!='));
  tryEdit('a number one larger', /(?<![\w.])\d+(?![\w.])/, (d) => String(Number(d) + 1));
  tryEdit(language === 'python' ? '`and` turned into `or`' : '`&&` turned into `||`', language === 'python' ? /\band\b/ : /&&/, () => (language === 'python' ? 'or' : '||'));
  return out;
}

/** The line with the insides of its string literals blanked, so that edits never land in them. */
function stripStrings(line: string): string {
  return line.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, (s) => s[0] + ' '.repeat(s.length - 2) + s[0]);
}
