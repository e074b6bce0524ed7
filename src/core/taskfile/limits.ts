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
  const scan = new LimitScanner();
  for (let l = 0; l < lines.lineCount; l++) {
    const start = lines.lineStart(l);
    scan.line(l, start, l + 1 < lines.lineCount ? lines.lineStart(l + 1) - 1 : text.length);
  }
  scan.text(text, 0);
  return scan.issue(text.length);
}

/**
 * The limits of the raw text checked a piece at a time, so that a file read a block at a time
 * (fileStream.ts) is refused as its whole text would be: the length first, then the first line
 * too long, then the first bracket too deep.
 */
export class LimitScanner {
  private longLine: Issue | undefined;
  private deep: Issue | undefined;
  private depth = 0;

  /** Line `l` (0-based) spans `start` to `end`, its line break left out. */
  line(l: number, start: number, end: number): void {
    if (!this.longLine && end - start > LIMITS.lineChars)
      this.longLine = limitIssue(
        start + LIMITS.lineChars,
        `line ${l + 1} has ${end - start} characters, over the limit of ${LIMITS.lineChars}: break it up (a block scalar \`|\` keeps long text readable)`,
      );
  }

  /** The next piece of the text, at `offset` in the file. */
  text(piece: string, offset: number): void {
    // Counting brackets anywhere (even in strings) over-counts only for text with a thousand
    // unclosed brackets, which no real file has; the exact depth is checked after parsing.
    if (this.deep) return;
    let depth = this.depth;
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (c === 0x5b || c === 0x7b) {
        if (++depth > FLOW_BRACKETS) {
          this.deep = limitIssue(
            offset + i,
            `more than ${FLOW_BRACKETS} nested brackets: the file nests deeper than ${LIMITS.depth} levels`,
          );
          return;
        }
      } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
    }
    this.depth = depth;
  }

  /** The first limit broken by a text of `length` characters, as read. */
  issue(length: number): Issue | undefined {
    if (length > LIMITS.fileBytes)
      return limitIssue(
        0,
        `the file has ${length} characters, over the limit of ${LIMITS.fileBytes}: split it into several task files`,
      );
    return this.longLine ?? this.deep;
  }
}

export function limitIssue(at: number, message: string, end = at + 1): Issue {
  return { code: 'too-large', severity: 'error', message, start: at, end };
}
