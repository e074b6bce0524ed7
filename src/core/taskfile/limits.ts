import type { Issue } from '../base/issues';
import { LIMITS } from '../base/limits';
import type { LineIndex } from './text';

export { LIMITS };

/** Net open flow brackets past which the YAML parser itself is not trusted with the text. */
const FLOW_BRACKETS = 1_000;

/**
 * The first limit the raw text breaks, as an issue, before any YAML parsing (which could
 * itself exhaust the stack or the heap on such text). Undefined when the text is within bounds.
 */
export function textLimitIssue(text: string, lines: LineIndex): Issue | undefined {
  if (text.length > LIMITS.fileBytes) {
    return limitIssue(
      0,
      `the file has ${text.length} characters, over the limit of ${LIMITS.fileBytes}: split it into several task files`,
    );
  }
  for (let l = 0; l < lines.lineCount; l++) {
    const start = lines.lineStart(l);
    const end = l + 1 < lines.lineCount ? lines.lineStart(l + 1) - 1 : text.length;
    if (end - start > LIMITS.lineChars) {
      return limitIssue(
        start + LIMITS.lineChars,
        `line ${l + 1} has ${end - start} characters, over the limit of ${LIMITS.lineChars}: break it up (a block scalar \`|\` keeps long text readable)`,
      );
    }
  }
  // Counting brackets anywhere (even in strings) over-counts only for text with a thousand
  // unclosed brackets, which no real file has; the exact depth is checked after parsing.
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > FLOW_BRACKETS)
        return limitIssue(
          i,
          `more than ${FLOW_BRACKETS} nested brackets: the file nests deeper than ${LIMITS.depth} levels`,
        );
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

export function limitIssue(at: number, message: string, end = at + 1): Issue {
  return { code: 'too-large', severity: 'error', message, start: at, end };
}
