/** What kind of problem an issue is; front ends may key quick fixes and docs on it. */
export type IssueCode =
  | 'yaml-syntax'
  | 'unknown-key'
  | 'duplicate-key'
  | 'duplicate-id'
  | 'missing-key'
  | 'wrong-type'
  | 'bad-value'
  | 'unknown-verifier'
  | 'not-one-verifier'
  | 'unknown-instruction'
  | 'missing-kwarg'
  | 'bad-expect'
  | 'literal-credential'
  /** A task file's model profile names secrets that its endpoint is not allowed to receive. */
  | 'withheld-secret'
  | 'unsupported-version'
  | 'too-large'
  | 'not-a-task-file'
  /** A file the task file names (an environment's `run`, a script's `path`) is not there. */
  | 'missing-file'
  /** A dataset row (JSONL) that cannot be read as a task. */
  | 'bad-row';

export type Severity = 'error' | 'warning' | 'info';

/** A text replacement that resolves an issue ("did you mean"), offsets as in its issue. */
export interface Fix {
  readonly title: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A problem in a task file, at [start, end) offsets. Issues are values: parsing never throws. */
export interface Issue {
  readonly code: IssueCode;
  readonly severity: Severity;
  readonly message: string;
  readonly start: number;
  readonly end: number;
  readonly fixes?: readonly Fix[];
}

export function shiftIssue(issue: Issue, by: number): Issue {
  if (by === 0) return issue;
  return {
    ...issue,
    start: issue.start + by,
    end: issue.end + by,
    fixes: issue.fixes?.map((f) => ({ ...f, start: f.start + by, end: f.end + by })),
  };
}
