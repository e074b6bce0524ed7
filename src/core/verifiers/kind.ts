import * as z from 'zod';
import { field, type Fields, type ValuesOf } from '../schema/fields';
import type { IssueCode, Fix } from '../base/issues';
import type { YNode, YMap } from '../base/ynode';
import { regexProblem } from './text/regex';
import type { Verdict, VerifyContext } from './verdict';

/** Options every verifier accepts next to its own parameters. */
export const COMMON_VERIFIER_FIELDS = {
  final_only: field(
    z.boolean(),
    'Check only the text after the last `</think>` (default `true`; `format` sees the whole response unless set).',
    false,
  ),
} satisfies Fields;

/** The parameters a kind's checker receives: its own fields and the common ones, as their schemas infer them. */
export type KindParams<F extends Fields> = ValuesOf<F> & ValuesOf<typeof COMMON_VERIFIER_FIELDS>;

/** What a kind's extra validation can see and report, beyond its field schemas. */
export interface ParamsContext {
  /** The parameters as a mapping (the list shorthand is presented as `{[listField]: list}`). */
  readonly params: YMap | null;
  /** The parameter node for a key, or undefined when absent. */
  param(key: string): YNode | null | undefined;
  /** True when an unknown key was reported as a likely typo of this one (so it is not "missing"). */
  misspelt(key: string): boolean;
  /** The node of the kind's key (`math:`), where "missing" problems are reported. */
  readonly kindKey: YNode;
  report(code: IssueCode, at: YNode | readonly [number, number], message: string, fixes?: readonly Fix[]): void;
  /**
   * Validates a mapping against a field table; `at` is where missing keys are reported and
   * `what` names the mapping in messages (`\`relation\` of \`keywords:frequency\``).
   */
  fields(node: YNode | null, fields: Fields, at: YNode, what: string): void;
  /** Validates a nested verifier (for `all`, `any`, `weighted`). */
  verifier(node: YNode | null, at: YNode): void;
}

/**
 * A verifier kind: its schema, documentation and (once it can run) its checker, registered
 * once. Validation, completion and hover read these definitions; nothing switches on kinds.
 */
export interface VerifierKind<F extends Fields = Fields> {
  readonly kind: string;
  /** One line: when the verifier passes. */
  readonly summary: string;
  /** Markdown shown on hover, after the summary. */
  readonly doc: string;
  /** The parameters in mapping form; their types are what `check` receives. */
  readonly fields: F;
  /** When set, a list value is shorthand for a mapping with this one key (`all: [...]`). */
  readonly listField?: string;
  /** What the items of the list field are, for completion and hover inside the list. */
  readonly listItems?: 'verifiers' | 'instructions' | Fields;
  /** Checks that need more than one field's schema, such as "exactly one of". */
  validate?(ctx: ParamsContext): void;
  /** Snippet text for the value when completing the kind, in VS Code snippet syntax. */
  readonly snippet: string;
  /**
   * Checks a response. It receives the final answer (text after the last `</think>`) unless
   * the parameters say `final_only: false` or `wholeResponse` is set; parameters arrive in
   * mapping form, already validated against `fields`, which is why their type is inferred from it.
   * (A method, so that a kind with its own fields is a `VerifierKind` of the registry.)
   */
  check?(response: string, params: KindParams<F>, ctx: VerifyContext): Verdict | Promise<Verdict>;
  /** True for kinds that see the whole response by default (`format`). */
  readonly wholeResponse?: boolean;
}

/** A verifier kind, its parameters' type inferred from its fields (so `check` needs no cast). */
export function defineKind<F extends Fields>(kind: VerifierKind<F>): VerifierKind<F> {
  return kind;
}

/** Reports unless exactly one of the keys is present (both `answer` and `answers`, or neither). */
export function exactlyOneOf(ctx: ParamsContext, keys: readonly string[], what: string): void {
  const present = keys.filter((k) => ctx.param(k) !== undefined);
  const list = keys.map((k) => `\`${k}\``).join(' or ');
  if (present.length === 0 && keys.some((k) => ctx.misspelt(k))) return;
  if (present.length === 0) ctx.report('missing-key', ctx.kindKey, `${what} needs ${list}`);
  else if (present.length > 1 && ctx.params) {
    const second = ctx.params.items.find((p) => String(p.key.value) === present[1]);
    if (second) ctx.report('bad-value', second.key, `give either ${list}, not both`);
  }
}

/** Reports a pattern that is not valid JavaScript or cannot run in linear time, at the pattern's value. */
export function checkRegex(ctx: ParamsContext, key: string): void {
  reportRegex(ctx, ctx.param(key), `\`${key}\``);
}

/** Reports what is wrong with the pattern in `node`, if anything (see text/regex.ts). */
export function reportRegex(ctx: ParamsContext, node: YNode | undefined | null, what: string): void {
  if (node && node.type === 'scalar' && typeof node.value === 'string') {
    const problem = regexProblem(node.value);
    if (problem) ctx.report('bad-value', node, `${what} ${problem}`);
  }
}
