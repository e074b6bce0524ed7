import type { Issue } from '../base/issues';
import type { LineIndex } from './text';

/** `file:line:col: error: message`, one-based, as compilers print it and editors link it. */
export function formatIssue(file: string, lines: LineIndex, issue: Issue): string {
  const p = lines.position(issue.start);
  return `${file}:${p.line + 1}:${p.character + 1}: ${issue.severity}: ${issue.message}`;
}
