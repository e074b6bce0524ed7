import type * as z from 'zod';
import { fieldLabel, keysAtPath, schemaAtPath, strictObjectOf, typeLabel, type Fields } from '../schema/fields';
import { CASE_FIELDS, DEFAULTS_FIELDS, FILE_FIELDS, MODEL_FIELDS, TASK_FIELDS } from '../schema/taskFields';
import type { ParamsContext } from '../verifiers/kind';
import { COMMON_VERIFIER_FIELDS, VERIFIERS } from '../verifiers/registry';
import type { Fix, Issue, IssueCode } from '../base/issues';
import { cutQuoted } from '../util/cut';
import { closest, didYouMean } from '../base/suggest';
import {
  describe,
  getPair,
  keyName,
  resolvePath,
  toJS,
  type Span,
  type YMap,
  type YNode,
  type YPair,
  type YScalar,
} from '../base/ynode';

/**
 * A file a task file names, to be found next to it: an environment's `run`, a `script`
 * verifier's `path`; with where the name is written (offsets as the issues').
 */
export interface FileRef {
  readonly kind: 'environment' | 'script';
  readonly path: string;
  readonly start: number;
  readonly end: number;
}

/** What the file-level checks need to know of a task without looking at it again. */
export interface TaskSummary {
  readonly id?: string;
  /** Where the task is named in messages: its `id` value, or its first key. */
  readonly anchor: Span;
  readonly hasPrompt: boolean;
  readonly hasVerify: boolean;
  readonly caseCount: number;
  /** The files the task names (checked against the disk by `missingFileIssues`, not here). */
  readonly files?: readonly FileRef[];
}

const withCommon = new Map<string, Fields>();
function verifierFields(kind: string, fields: Fields): Fields {
  let f = withCommon.get(kind);
  if (!f) withCommon.set(kind, (f = { ...fields, ...COMMON_VERIFIER_FIELDS }));
  return f;
}

const EXPECT_WORDS = ['pass', 'fail'];

/**
 * Validates parts of one chunk of a task file and collects issues with chunk-relative
 * offsets. It only reads the tree, so a chunk's result can be cached by its text.
 */
export class ChunkValidator {
  readonly issues: Issue[] = [];
  /** Files named by what was validated: checking they exist needs the file's folder and the disk. */
  readonly files: FileRef[] = [];
  private listAlias: [string, string] | undefined;

  constructor(private readonly text: string) {}

  report(
    code: IssueCode,
    at: YNode | Span,
    message: string,
    fixes?: readonly Fix[],
    severity: Issue['severity'] = 'error',
  ): void {
    const span = Array.isArray(at) ? (at as Span) : (at as YNode).span;
    // Keys, ids and names in messages come from the file: a huge one must not flood the line.
    const issue: Issue = {
      code,
      severity,
      message: cutQuoted(message),
      start: span[0],
      end: Math.max(span[1], span[0]),
    };
    this.issues.push(fixes && fixes.length ? { ...issue, fixes } : issue);
  }

  /** The top level of a file (or of the part after `tasks:` when `partial`). */
  file(node: YNode | null, partial: boolean): void {
    if (!node || node.type !== 'map') {
      if (!partial) this.report('wrong-type', node ?? [0, 0], 'a task file is a mapping that starts with `vtask: 1`');
      return;
    }
    const first = node.items[0]?.key ?? node;
    this.fields(node, FILE_FIELDS, first, 'the file', partial);
    const defaults = getPair(node, 'defaults');
    if (defaults?.value?.type === 'map') {
      this.fields(defaults.value, DEFAULTS_FIELDS, defaults.key, '`defaults`');
      const v = getPair(defaults.value, 'verify');
      if (v) this.verifier(v.value, v.key);
    }
    const models = getPair(node, 'models');
    if (models?.value?.type === 'map') {
      for (const p of models.value.items) {
        if (p.value?.type === 'map') this.fields(p.value, MODEL_FIELDS, p.key, `model \`${keyName(p)}\``);
        else
          this.report(
            'wrong-type',
            p.value ?? p.key,
            `model \`${keyName(p)}\` is a mapping such as \`{ base_url: ..., model: ... }\``,
          );
      }
    }
  }

  /** One task: its keys, verifier and cases. */
  task(node: YNode | null, itemSpan: Span): TaskSummary {
    if (!node || node.type !== 'map') {
      this.report('wrong-type', node ?? itemSpan, 'a task is a mapping with `id`, `prompt` and `verify`');
      // Not a mapping at all: that one error says it; "no prompt" and "no verify" would not help.
      return { anchor: node?.span ?? itemSpan, hasPrompt: true, hasVerify: true, caseCount: 0 };
    }
    const first = node.items[0]?.key ?? node;
    // A misspelt `prompt` or `verify` is reported once, as the typo, not again as missing.
    const typoFor = this.fields(node, TASK_FIELDS, first, 'a task');
    const idPair = getPair(node, 'id');
    const idValue = idPair?.value;
    const id = idValue?.type === 'scalar' && idValue.value !== null ? String(idValue.value) : undefined;
    const prompt = getPair(node, 'prompt');
    const messages = getPair(node, 'messages');
    if (prompt && messages) this.report('bad-value', messages.key, 'give either `prompt` or `messages`, not both');
    const verify = getPair(node, 'verify');
    if (verify) this.verifier(verify.value, verify.key);
    const environment = getPair(node, 'environment')?.value;
    if (environment?.type === 'map') this.fileRef('environment', getPair(environment, 'run')?.value);
    const cases = getPair(node, 'cases');
    let caseCount = 0;
    if (cases?.value?.type === 'seq') {
      caseCount = cases.value.items.length;
      for (const c of cases.value.items) this.case(c);
    }
    return {
      id,
      anchor: idValue && id !== undefined ? idValue.span : first.span,
      hasPrompt: Boolean(prompt || messages || typoFor.has('prompt') || typoFor.has('messages')),
      hasVerify: Boolean(verify || typoFor.has('verify')),
      caseCount,
      ...(this.files.length ? { files: [...this.files] } : {}),
    };
  }

  /** Notes a file name written as text (anything else is a type error reported elsewhere). */
  private fileRef(kind: FileRef['kind'], node: YNode | null | undefined): void {
    if (node?.type === 'scalar' && typeof node.value === 'string' && node.value)
      this.files.push({ kind, path: node.value, start: node.span[0], end: node.span[1] });
  }

  /** A verifier: a mapping with exactly one key, the kind, whose value are its parameters. */
  verifier(node: YNode | null, at: YNode): void {
    if (!node || (node.type === 'scalar' && node.value === null)) {
      this.report(
        'missing-key',
        at,
        'the verifier is missing: write its kind and parameters, such as `math: { answer: "72" }`',
      );
      return;
    }
    if (node.type !== 'map' || node.items.length === 0) {
      this.report(
        'wrong-type',
        node,
        'a verifier is a mapping with one key, the kind, such as `math: { answer: "72" }`',
      );
      return;
    }
    for (const extra of node.items.slice(1)) {
      const name = keyName(extra);
      const msg =
        name in COMMON_VERIFIER_FIELDS
          ? `\`${name}\` goes inside the verifier's parameters, next to its other options`
          : 'a verifier has exactly one kind: combine several with `all: [...]`, `any: [...]` or `weighted: [...]`';
      this.report('not-one-verifier', extra.key, msg);
    }
    const kindPair = node.items[0] as YPair;
    const name = keyName(kindPair);
    const kind = VERIFIERS.get(name);
    if (!kind) {
      const s = closest(name, VERIFIERS.keys());
      const hint = name.includes(':') ? '; instruction ids go in a list under `constraints:`' : '';
      this.report(
        'unknown-verifier',
        kindPair.key,
        `unknown verifier kind \`${name}\`${didYouMean(s)}${hint}`,
        s ? [replaceWith(kindPair.key, s)] : undefined,
      );
      return;
    }
    let params: YMap | null = null;
    const v = kindPair.value;
    if (v === null || (v.type === 'scalar' && v.value === null))
      params = { type: 'map', items: [], span: kindPair.key.span, flow: true };
    else if (v.type === 'map') params = v;
    else if (v.type === 'seq' && kind.listField) {
      const key: YScalar = { ...kindPair.key, value: kind.listField };
      params = { type: 'map', items: [{ key, value: v, span: kindPair.span }], span: v.span, flow: false };
    } else {
      const shape = kind.listField ? `a list, or a mapping with \`${kind.listField}\`` : 'a mapping of its parameters';
      this.report('wrong-type', v, `\`${name}\` takes ${shape}, not ${describe(v)}`);
      return;
    }
    // In the list shorthand the author never wrote the list's key: messages name the kind.
    this.listAlias = v?.type === 'seq' && kind.listField ? [kind.listField, name] : undefined;
    const typos = this.fields(params, verifierFields(name, kind.fields), kindPair.key, `\`${name}\``);
    this.listAlias = undefined;
    if (name === 'script') this.fileRef('script', getPair(params, 'path')?.value);
    if (kind.validate) {
      const ctx: ParamsContext = {
        params,
        kindKey: kindPair.key,
        param: (k) => (params ? getPair(params, k)?.value : undefined),
        misspelt: (k) => typos.has(k),
        report: (code, where, message, fixes) => this.report(code, where as YNode | Span, message, fixes),
        fields: (n, f, where, what) => void this.fields(n, f, where, what, false, 'missing-kwarg'),
        verifier: (n, where) => this.verifier(n, where),
      };
      kind.validate(ctx);
    }
  }

  /** One regression case. */
  case(node: YNode): void {
    if (node.type !== 'map') {
      this.report('wrong-type', node, 'a case is a mapping such as `{ response: "...", expect: pass }`');
      return;
    }
    this.fields(node, CASE_FIELDS, node.items[0]?.key ?? node, 'a case');
    const e = getPair(node, 'expect');
    if (e) this.expect(e);
  }

  private expect(pair: YPair): void {
    const v = pair.value;
    if (!v || isEmpty(v)) {
      this.report('bad-expect', pair.key, '`expect` has no value: it must be `pass`, `fail` or `{ score: 0.5 }`');
      return;
    }
    if (v?.type === 'scalar' && typeof v.value === 'string' && EXPECT_WORDS.includes(v.value)) return;
    if (v?.type === 'map') {
      const score = getPair(v, 'score');
      const extra = v.items.find((p) => keyName(p) !== 'score');
      if (extra) {
        this.report(
          'bad-expect',
          extra.key,
          `unknown key \`${keyName(extra)}\` in \`expect\`: only \`score\` can be given`,
        );
        return;
      }
      const s = score?.value;
      if (s?.type === 'scalar' && typeof s.value === 'number' && s.value >= 0 && s.value <= 1) return;
      this.report('bad-expect', s ?? v, `\`expect: {score}\` takes a number from 0 to 1, not ${describe(s)}`);
      return;
    }
    let suggestion: string | undefined;
    if (v?.type === 'scalar') {
      if (v.value === true) suggestion = 'pass';
      else if (v.value === false) suggestion = 'fail';
      else if (typeof v.value === 'string')
        suggestion =
          closest(v.value, EXPECT_WORDS) ??
          (/^pass/i.test(v.value) ? 'pass' : /^fail/i.test(v.value) ? 'fail' : undefined);
    }
    this.report(
      'bad-expect',
      v ?? pair.key,
      `\`expect\` must be \`pass\`, \`fail\` or \`{ score: 0.5 }\`, not ${describe(v)}${didYouMean(suggestion)}`,
      suggestion && v ? [replaceWith(v, suggestion)] : undefined,
    );
  }

  /**
   * Checks a mapping against a field table with zod and turns zod's issues into messages at
   * the exact key or value. With `partial`, required keys may be absent (they are elsewhere).
   */
  fields(
    node: YNode | null,
    fields: Fields,
    at: YNode,
    what: string,
    partial = false,
    missingCode: IssueCode = 'missing-key',
  ): ReadonlySet<string> {
    const typos = new Set<string>();
    if (node === null || (node.type === 'scalar' && node.value === null))
      node = { type: 'map', items: [], span: at.span, flow: true };
    if (node.type !== 'map') {
      this.report('wrong-type', node, `${what} takes a mapping, not ${describe(node)}`);
      return typos;
    }
    this.duplicateKeys(node, what);
    const result = strictObjectOf(fields).safeParse(toJS(node));
    if (result.success) return typos;
    // Unknown keys first: a misspelt required key is reported once, as the typo, not again as missing.
    const issues = [...result.error.issues].sort(
      (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
    );
    for (const issue of issues) {
      const absent = issue.code !== 'unrecognized_keys' && resolvePath(node, issue.path).rest.length > 0;
      if (absent && partial) continue;
      if (absent && typos.has(issue.path.map(String).join('.'))) continue;
      this.zodIssue(node, fields, at, what, issue, missingCode, typos);
    }
    return typos;
  }

  private duplicateKeys(node: YMap, what: string): void {
    if (node.items.length < 2) return;
    const seen = new Set<string>();
    for (const p of node.items) {
      const k = keyName(p);
      if (seen.has(k)) this.report('duplicate-key', p.key, `\`${k}\` is given twice in ${what}`);
      seen.add(k);
    }
  }

  private zodIssue(
    root: YMap,
    fields: Fields,
    at: YNode,
    what: string,
    issue: z.core.$ZodIssue,
    missingCode: IssueCode,
    typos: Set<string>,
  ): void {
    const path = issue.path;
    const { node, pair, rest } = resolvePath(root, path);
    const name = path.length ? String(path[path.length - 1]) : what;
    const schema = strictObjectOf(fields);
    const top = typeof path[0] === 'string' ? fields[path[0]] : undefined;
    const at1 = path.length === 1 && top ? top : undefined;
    const sub = schemaAtPath(schema, path);
    const label = at1 ? fieldLabel(at1) : sub ? typeLabel(sub) : expectedLabel(issue);
    if (issue.code === 'unrecognized_keys') {
      const known = keysAtPath(schema, path).filter((k) => !(node.type === 'map' && getPair(node, k)));
      for (const k of issue.keys) {
        const p = node.type === 'map' ? getPair(node, k) : undefined;
        const s = closest(k, known);
        if (s !== undefined) typos.add([...path.map(String), s].join('.'));
        const where = path.length ? ownerName(path, this.listAlias) : what;
        this.report(
          'unknown-key',
          p?.key ?? node,
          `unknown key \`${k}\` in ${where}${didYouMean(s)}`,
          s && p ? [replaceWith(p.key, s)] : undefined,
        );
      }
      return;
    }
    if (rest.length > 0) {
      // The key is absent: whatever zod says about `undefined`, the problem is that it is missing.
      const missing = String(rest[0]);
      const where = rest.length === path.length ? at : (pair?.key ?? node);
      const owner =
        rest.length === path.length ? what : ownerName(path.slice(0, path.length - rest.length), this.listAlias);
      const l = label === 'a value' ? '' : ` (${label})`;
      this.report(missingCode, where, `${owner} needs \`${missing}\`${l}`);
      return;
    }
    // An alias without an anchor is reported as such, not again as a value of the wrong type.
    if (node.type === 'scalar' && node.style === 'alias') return;
    if (pair && (!pair.value || isEmpty(pair.value))) {
      this.report('wrong-type', pair.key, `\`${name}\` has no value: it takes ${label}`);
      return;
    }
    switch (issue.code) {
      case 'invalid_type': {
        const fix =
          label === 'text' && node.type === 'scalar' && node.style === 'plain' ? quoteFix(this.text, node) : undefined;
        const hint = fix ? `; quote it: ${fix.text}` : '';
        this.report(
          'wrong-type',
          node,
          `\`${name}\` must be ${label}, not ${describe(node)}${hint}`,
          fix ? [fix] : undefined,
        );
        return;
      }
      case 'invalid_value': {
        const values = issue.values.map(String);
        const s = node.type === 'scalar' && typeof node.value === 'string' ? closest(node.value, values) : undefined;
        const list = values.map((v) => `\`${v}\``).join(', ');
        const message = values.length === 1 ? `\`${name}\` must be ${list}` : `\`${name}\` must be one of ${list}`;
        this.report(
          'bad-value',
          node,
          `${message}, not ${describe(node)}${didYouMean(s)}`,
          s ? [replaceWith(node, s)] : undefined,
        );
        return;
      }
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
        const word =
          issue.code === 'too_small'
            ? issue.inclusive === false
              ? 'more than'
              : 'at least'
            : issue.inclusive === false
              ? 'less than'
              : 'at most';
        const what2 =
          issue.origin === 'array'
            ? `${bound} item${Number(bound) === 1 ? '' : 's'}`
            : issue.origin === 'string'
              ? `${bound} character${Number(bound) === 1 ? '' : 's'}`
              : String(bound);
        const verb = issue.origin === 'array' || issue.origin === 'string' ? 'have' : 'be';
        this.report('bad-value', node, `\`${name}\` must ${verb} ${word} ${what2}`);
        return;
      }
      case 'invalid_union':
        this.report('wrong-type', node, `\`${name}\` must be ${label}, not ${describe(node)}`);
        return;
      default:
        this.report(
          issue.message.includes('credential') ? 'literal-credential' : 'bad-value',
          node,
          `\`${name}\`: ${humanMessage(issue)}`,
        );
    }
  }
}

/** How a nested mapping is named in messages: `item 2 of \`of\``, `\`call\``. */
function ownerName(path: readonly PropertyKey[], listAlias?: [string, string]): string {
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    let parent = String(path[path.length - 2] ?? 'the list');
    if (listAlias && path.length === 2 && parent === listAlias[0]) parent = listAlias[1];
    return `item ${last + 1} of \`${parent}\``;
  }
  return `\`${String(last)}\``;
}

/** `key:` with nothing after it: YAML reads null, the author wrote nothing. */
function isEmpty(node: YNode): boolean {
  return node.type === 'scalar' && node.value === null && node.span[0] === node.span[1];
}

function expectedLabel(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type') return 'a valid value';
  const e = String(issue.expected);
  const map: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping',
    record: 'a mapping',
  };
  return map[e] ?? e;
}

function humanMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_format') {
    if (issue.format === 'url') return 'must be an http(s) URL';
    if (issue.format === 'regex' && !issue.message.startsWith('Invalid'))
      return /^must\b/.test(issue.message) ? issue.message : `must be ${issue.message}`;
    return `has the wrong format (${issue.format})`;
  }
  return issue.message;
}

function replaceWith(node: YNode, text: string): Fix {
  return { title: `Change to \`${text}\``, start: node.span[0], end: node.span[1], text };
}

function quoteFix(text: string, node: YScalar): Fix | undefined {
  const source = text.slice(node.span[0], node.span[1]);
  if (!source || source.includes('\n')) return undefined;
  const quoted = JSON.stringify(source);
  return { title: `Quote as ${quoted}`, start: node.span[0], end: node.span[1], text: quoted };
}
