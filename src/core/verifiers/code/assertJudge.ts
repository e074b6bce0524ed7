/**
 * The decision on `asserts`, made in vtask's own process from the values an answer's run sent out
 * as plain data (see assertHarness.ts). Python values are compared with Python's semantics for
 * plain data (`3 == 3.0`, `(1, 2) != [1, 2]`, sets and dicts order-free); JavaScript values are
 * rebuilt and checked with node:assert here. Whatever the answer did to its own process, only
 * these values reach the comparison, and only plain data passes.
 */
import assert from 'node:assert';
import { JS_RECORDED_METHODS } from './assertHarness';
import { show } from './compare';
import * as z from 'zod';
import { isList, parseJson } from '../../base/record';
import { at, must } from '../../util/must';

/** An operand: a literal the planner kept, or the value of the run's `leaf`-th thunk. */
type Slot = { readonly leaf: number } | { readonly const: PyEnc };
/** An encoded Python value: None, a bool, a str, or `[tag, body]`. */
type PyEnc = null | boolean | string | readonly unknown[];
type PyNode =
  | { readonly k: 'and' | 'or'; readonly of: readonly PyNode[] }
  | { readonly k: 'not'; readonly of: PyNode }
  | { readonly k: 'cmp'; readonly ops: readonly string[]; readonly of: readonly Slot[] }
  | { readonly k: 'isclose'; readonly of: readonly Slot[] }
  | { readonly k: 'value'; readonly leaf: number };

/** What the planner made of a task's Python asserts. */
export interface PyPlan {
  /** The asserts as the answer's run gets them: each `assert` a call, literal operands taken out. */
  readonly checks: string;
  /** `optional`: inside a `try`, where not running is right ("this must raise"); every other assert must run. */
  readonly asserts: readonly {
    readonly line: number;
    readonly text: string;
    readonly test: PyNode;
    readonly optional?: boolean;
  }[];
}

function isPyEnc(v: unknown): v is PyEnc {
  return v === null || typeof v === 'boolean' || typeof v === 'string' || Array.isArray(v);
}

const pyEnc = z.custom<PyEnc>(isPyEnc);
const slot: z.ZodType<Slot> = z.union([z.object({ leaf: z.number().int().nonnegative() }), z.object({ const: pyEnc })]);
const pyNode: z.ZodType<PyNode> = z.lazy(() =>
  z.discriminatedUnion('k', [
    z.object({ k: z.enum(['and', 'or']), of: z.array(pyNode) }),
    z.object({ k: z.literal('not'), of: pyNode }),
    z.object({ k: z.literal('cmp'), ops: z.array(z.string()), of: z.array(slot) }),
    z.object({ k: z.literal('isclose'), of: z.array(slot) }),
    z.object({ k: z.literal('value'), leaf: z.number().int().nonnegative() }),
  ]),
);
/** The planner's output, read as what it says: an error, or the plan. */
const planOutput = z.union([
  z.object({ error: z.string() }),
  z.object({
    checks: z.string(),
    asserts: z.array(z.object({ line: z.number(), text: z.string(), test: pyNode, optional: z.boolean().optional() })),
  }),
]);

/** The planner's output: the plan, or why the asserts cannot be planned. */
export function parsePlan(stdout: string): PyPlan | { readonly error: string } {
  try {
    const v = planOutput.safeParse(parseJson(stdout));
    if (v.success) return v.data;
  } catch {
    // Reported below.
  }
  return { error: `the asserts could not be planned: ${show(stdout.trim() || 'no output', 200)}` };
}

/** The judgement of one asserts run, from its result lines. */
export interface AssertRecords {
  /** The run printed its last line: every statement of the checks ran. */
  readonly done: boolean;
  /** The first assert that failed, said for the user; undefined when none did. */
  readonly failure?: { readonly status: 'wrong_answer' | 'runtime_error'; readonly message: string };
}

/** A result that is no verdict on the values: an operand raised, is not plain data, or is missing. */
class Problem extends Error {}

/** The result lines after `marker`, parsed; a line that is not JSON is kept as undefined. */
function resultLines(stdout: string, marker: string): unknown[] {
  const out: unknown[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith(marker)) continue;
    try {
      out.push(parseJson(line.slice(marker.length)));
    } catch {
      out.push(undefined);
    }
  }
  return out;
}

// ---------------------------------------------------------------- Python

/**
 * Judges a Python run: every run of an assert must hold, and every assert outside a `try` must
 * have run (else a forged last line would pass checks that never ran).
 */
export function judgePythonAsserts(stdout: string, marker: string, plan: PyPlan): AssertRecords {
  let done = false;
  const ran = new Set<number>();
  for (const rec of resultLines(stdout, marker)) {
    if (rec === 'done') {
      done = true;
      continue;
    }
    const [i, leaves] = isList(rec) ? rec : [];
    const a = typeof i === 'number' ? plan.asserts[i] : undefined;
    if (typeof i !== 'number' || !a || !isList(leaves))
      return { done, failure: { status: 'wrong_answer', message: 'a result line of the checks is malformed' } };
    ran.add(i);
    const where = `assert on line ${a.line} (${a.text})`;
    try {
      if (!pyTruth(evalNode(a.test, leaves)))
        return { done, failure: { status: 'wrong_answer', message: `${where} failed: ${explain(a.test, leaves)}` } };
    } catch (e) {
      const why = e instanceof Problem ? e.message : String(e);
      return {
        done,
        failure: { status: /^raised /.test(why) ? 'runtime_error' : 'wrong_answer', message: `${where}: ${why}` },
      };
    }
  }
  if (done) {
    const missed = plan.asserts.findIndex((a, i) => !a.optional && !ran.has(i));
    if (missed !== -1) {
      const a = at(plan.asserts, missed);
      return {
        done,
        failure: {
          status: 'wrong_answer',
          message: `assert on line ${a.line} (${a.text}) never ran: every assert must run`,
        },
      };
    }
  }
  return { done };
}

/** A value or a bool per node (a comparison's result is a bool). */
function evalNode(n: PyNode, leaves: readonly unknown[]): PyEnc {
  switch (n.k) {
    case 'and':
    case 'or': {
      let last: PyEnc = n.k === 'and';
      for (const x of n.of) {
        last = evalNode(x, leaves);
        if (pyTruth(last) !== (n.k === 'and')) return last;
      }
      return last;
    }
    case 'not':
      return !pyTruth(evalNode(n.of, leaves));
    case 'value':
      return leaf(leaves, n.leaf);
    case 'isclose':
      return pyIsclose(n.of.map((s) => slotValue(s, leaves)));
    case 'cmp': {
      const operand = (i: number): PyEnc => slotValue(n.of[i], leaves);
      let left = operand(0);
      for (let i = 0; i < n.ops.length; i++) {
        const right = operand(i + 1);
        if (!pyCompare(at(n.ops, i), left, right)) return false;
        left = right;
      }
      return true;
    }
  }
}

function slotValue(s: Slot | undefined, leaves: readonly unknown[]): PyEnc {
  if (!s) throw new Problem('a malformed plan');
  return 'const' in s ? s.const : leaf(leaves, s.leaf);
}

/** math.isclose(a, b, rel_tol, abs_tol) on plain numbers. */
function pyIsclose([a, b, rel, abs]: readonly PyEnc[]): boolean {
  const f = (v: PyEnc | undefined): number => {
    const n = v === undefined ? undefined : num(v);
    if (!n) return fail(`raised TypeError: must be real number, not ${v === undefined ? 'nothing' : tagOf(v)}`);
    return 'int' in n ? Number(n.int) : n.float;
  };
  const [x, y, r, t] = [f(a), f(b), f(rel), f(abs)];
  if (x === y) return true;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  const d = Math.abs(x - y);
  return d <= Math.abs(r * y) || d <= Math.abs(r * x) || d <= t;
}

function leaf(leaves: readonly unknown[], i: number): PyEnc {
  const r = leaves[i];
  if (!isList(r)) throw new Problem('did not run completely');
  const [tag, body] = r;
  if (tag === 'v') return isPyEnc(body) ? body : fail('a malformed value');
  if (tag === 'x') return fail(String(body));
  if (tag === 'e') return fail(`raised ${String(body)}`);
  return fail('a malformed result');
}

function fail(why: string): never {
  throw new Problem(why);
}

/** Why a test that evaluated false is false, with the values. */
function explain(n: PyNode, leaves: readonly unknown[]): string {
  const [op, ...more] = n.k === 'cmp' ? n.ops : [];
  const [l, r] = n.k === 'cmp' ? n.of : [];
  if (op !== undefined && !more.length && l && r) {
    const lv = slotValue(l, leaves);
    const rv = slotValue(r, leaves);
    if (op === '==')
      return 'const' in l && !('const' in r)
        ? `got ${pyRepr(rv)}, expected ${pyRepr(lv)}`
        : `got ${pyRepr(lv)}, expected ${pyRepr(rv)}`;
    return `${pyRepr(lv)} ${op} ${pyRepr(rv)} is false`;
  }
  if (n.k === 'value') return `the value is ${pyRepr(leaf(leaves, n.leaf))}`;
  if (n.k === 'isclose')
    return `got ${pyRepr(slotValue(n.of[0], leaves))}, expected ${pyRepr(slotValue(n.of[1], leaves))}`;
  return 'it is false';
}

type Num = { readonly int: bigint } | { readonly float: number };

function tagOf(v: PyEnc): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return fail('a malformed value');
}

function bodyOf(v: PyEnc): unknown {
  return typeof v === 'object' && v !== null ? v[1] : undefined;
}

function items(v: PyEnc): readonly PyEnc[] {
  const b = bodyOf(v);
  return isList(b) && b.every(isPyEnc) ? b : fail('a malformed value');
}

function pairs(v: PyEnc): readonly (readonly [PyEnc, PyEnc])[] {
  return items(v).map((p) => {
    const [k, x] = typeof p === 'object' && p !== null && p.length === 2 ? p : [];
    return isPyEnc(k) && isPyEnc(x) ? [k, x] : fail('a malformed value');
  });
}

function num(v: PyEnc): Num | undefined {
  const t = tagOf(v);
  if (t === 'bool') return { int: v ? 1n : 0n };
  if (t === 'int') {
    const s = String(bodyOf(v));
    if (!/^-?[0-9a-f]+$/.test(s)) fail('a malformed value');
    return { int: s.startsWith('-') ? -BigInt(`0x${s.slice(1)}`) : BigInt(`0x${s}`) };
  }
  if (t === 'float') {
    const s = String(bodyOf(v));
    const f = s === 'inf' ? Infinity : s === '-inf' ? -Infinity : s === 'nan' ? NaN : Number(s);
    if (Number.isNaN(f) && s !== 'nan') fail('a malformed value');
    return { float: f };
  }
  return undefined;
}

/** Sign of a - b, or NaN when either is NaN. */
function numCompare(a: Num, b: Num): number {
  if ('int' in a && 'int' in b) return a.int === b.int ? 0 : a.int < b.int ? -1 : 1;
  const x = 'int' in a ? a.int : a.float;
  const y = 'int' in b ? b.int : b.float;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  // A bigint and a number compare exactly in JavaScript.
  return x == y ? 0 : x < y ? -1 : 1;
}

const kindOf = (t: string): string => (t === 'frozenset' ? 'set' : t);

/** Python's `==` on plain data. */
function pyEqual(a: PyEnc, b: PyEnc): boolean {
  const na = num(a);
  const nb = num(b);
  if (na || nb) return !!na && !!nb && numCompare(na, nb) === 0;
  const ta = kindOf(tagOf(a));
  const tb = kindOf(tagOf(b));
  if (ta !== tb) return false;
  if (ta === 'NoneType' || ta === 'str') return a === b;
  if (ta === 'bytes') return bodyOf(a) === bodyOf(b);
  if (ta === 'list' || ta === 'tuple') {
    const x = items(a);
    const y = items(b);
    return x.length === y.length && x.every((v, i) => pyEqual(v, at(y, i)));
  }
  if (ta === 'set') {
    const x = new Set(items(a).map(hashKey));
    const y = new Set(items(b).map(hashKey));
    return x.size === y.size && [...x].every((k) => y.has(k));
  }
  if (ta === 'dict') {
    const y = new Map(pairs(b).map(([k, v]) => [hashKey(k), v]));
    const x = pairs(a);
    return (
      new Set(x.map(([k]) => hashKey(k))).size === y.size &&
      x.every(([k, v]) => {
        const w = y.get(hashKey(k));
        return w !== undefined && pyEqual(v, w);
      })
    );
  }
  return fail('a malformed value');
}

/** A string equal for values Python's hash and `==` take as the same key (1, 1.0 and True alike). */
function hashKey(v: PyEnc): string {
  const n = num(v);
  if (n) {
    if ('int' in n) return `n${n.int}`;
    return Number.isInteger(n.float) ? `n${BigInt(n.float)}` : `f${n.float}`;
  }
  const t = tagOf(v);
  if (t === 'NoneType') return 'N';
  if (t === 'str') return `s${JSON.stringify(v)}`;
  if (t === 'bytes') return `b${String(bodyOf(v))}`;
  if (t === 'tuple') return `t(${items(v).map(hashKey).join(',')})`;
  if (t === 'frozenset') return `S(${items(v).map(hashKey).sort().join(',')})`;
  return fail(`raised TypeError: unhashable type: '${t}'`);
}

function codePoints(s: string): number[] {
  return Array.from(s, (c) => must(c.codePointAt(0), 'a character has a code point'));
}

/** Compares code points, as Python orders strings. */
function codePointCompare(a: string, b: string): number {
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return at(x, i) - at(y, i);
  return x.length - y.length;
}

function holds(op: string, sign: number): boolean {
  if (Number.isNaN(sign)) return false;
  return op === '<' ? sign < 0 : op === '<=' ? sign <= 0 : op === '>' ? sign > 0 : sign >= 0;
}

/** Python's `<`, `<=`, `>`, `>=` on plain data. */
function pyOrder(op: string, a: PyEnc, b: PyEnc): boolean {
  const na = num(a);
  const nb = num(b);
  if (na && nb) return holds(op, numCompare(na, nb));
  const ta = tagOf(a);
  const tb = tagOf(b);
  if (typeof a === 'string' && typeof b === 'string') return holds(op, codePointCompare(a, b));
  if (ta === 'bytes' && tb === 'bytes') return holds(op, codePointCompare(String(bodyOf(a)), String(bodyOf(b))));
  if ((ta === 'list' || ta === 'tuple') && ta === tb) {
    const x = items(a);
    const y = items(b);
    const i = x.findIndex((v, j) => j >= y.length || !pyEqual(v, at(y, j)));
    if (i === -1 || i >= y.length) return holds(op, x.length - y.length);
    return pyOrder(op, at(x, i), at(y, i));
  }
  if (kindOf(ta) === 'set' && kindOf(tb) === 'set') {
    const x = new Set(items(a).map(hashKey));
    const y = new Set(items(b).map(hashKey));
    const sub = (p: Set<string>, q: Set<string>): boolean => [...p].every((k) => q.has(k));
    if (op === '<=') return sub(x, y);
    if (op === '>=') return sub(y, x);
    if (op === '<') return x.size < y.size && sub(x, y);
    return y.size < x.size && sub(y, x);
  }
  return fail(`raised TypeError: '${op}' not supported between instances of '${ta}' and '${tb}'`);
}

/** Python's `in` on plain data. */
function pyContains(item: PyEnc, container: PyEnc): boolean {
  const t = tagOf(container);
  if (typeof container === 'string')
    return typeof item === 'string'
      ? container.includes(item)
      : fail(`raised TypeError: 'in <string>' requires string as left operand, not ${tagOf(item)}`);
  if (t === 'bytes')
    return (
      tagOf(item) === 'bytes' &&
      (String(bodyOf(container)).length === 0
        ? String(bodyOf(item)) === ''
        : hexIncludes(String(bodyOf(container)), String(bodyOf(item))))
    );
  if (t === 'list' || t === 'tuple') return items(container).some((v) => pyEqual(item, v));
  if (kindOf(t) === 'set') return items(container).map(hashKey).includes(hashKey(item));
  if (t === 'dict') return pairs(container).some(([k]) => hashKey(k) === hashKey(item));
  return fail(`raised TypeError: argument of type '${t}' is not iterable`);
}

/** Substring search on whole bytes of hex strings. */
function hexIncludes(hay: string, needle: string): boolean {
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) if (i % 2 === 0) return true;
  return false;
}

/** `is`: None, True and False are themselves; other plain values are the same when of one type and equal. */
function pyIs(a: PyEnc, b: PyEnc): boolean {
  return tagOf(a) === tagOf(b) && pyEqual(a, b);
}

function pyCompare(op: string, a: PyEnc, b: PyEnc): boolean {
  switch (op) {
    case '==':
      return pyEqual(a, b);
    case '!=':
      return !pyEqual(a, b);
    case 'in':
      return pyContains(a, b);
    case 'not in':
      return !pyContains(a, b);
    case 'is':
      return pyIs(a, b);
    case 'is not':
      return !pyIs(a, b);
    default:
      return pyOrder(op, a, b);
  }
}

/** Python's truth value of plain data. */
function pyTruth(v: PyEnc): boolean {
  const n = num(v);
  if (n) return 'int' in n ? n.int !== 0n : n.float !== 0;
  const t = tagOf(v);
  if (t === 'NoneType') return false;
  if (typeof v === 'string') return v.length > 0;
  if (t === 'bytes') return String(bodyOf(v)).length > 0;
  return items(v).length > 0;
}

/** Python's repr of plain data, for messages. */
function pyRepr(v: PyEnc): string {
  const s = repr(v, 0);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

function repr(v: PyEnc, depth: number): string {
  if (depth > 20) return '…';
  const t = tagOf(v);
  const inner = (xs: readonly PyEnc[]): string => xs.map((x) => repr(x, depth + 1)).join(', ');
  switch (t) {
    case 'NoneType':
      return 'None';
    case 'bool':
      return v ? 'True' : 'False';
    case 'str':
      return `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
    case 'int': {
      const n = num(v);
      return n && 'int' in n ? String(n.int) : '?';
    }
    case 'float':
      return String(bodyOf(v));
    case 'bytes':
      return `bytes.fromhex('${String(bodyOf(v))}')`;
    case 'list':
      return `[${inner(items(v))}]`;
    case 'tuple':
      return items(v).length === 1 ? `(${inner(items(v))},)` : `(${inner(items(v))})`;
    case 'set':
      return items(v).length ? `{${inner(items(v))}}` : 'set()';
    case 'frozenset':
      return `frozenset({${inner(items(v))}})`;
    case 'dict':
      return `{${pairs(v)
        .map(([k, x]) => `${repr(k, depth + 1)}: ${repr(x, depth + 1)}`)
        .join(', ')}}`;
    default:
      return '?';
  }
}

// ---------------------------------------------------------------- JavaScript

/** Judges a JavaScript run: every recorded assert call must hold, checked here with node:assert. */
export function judgeJsAsserts(stdout: string, marker: string): AssertRecords {
  let done = false;
  let n = 0;
  for (const rec of resultLines(stdout, marker)) {
    if (rec === 'done') {
      done = true;
      continue;
    }
    n++;
    const [method, args, same] = isList(rec) ? rec : [];
    const fn: unknown =
      typeof method === 'string' && JS_RECORDED_METHODS.includes(method) ? Reflect.get(assert, method) : undefined;
    if (typeof fn !== 'function' || !isList(args))
      return { done, failure: { status: 'wrong_answer', message: 'a result line of the checks is malformed' } };
    const where = `assert call ${n} (${method === 'ok' ? 'assert' : `assert.${method}`})`;
    try {
      const values = args.map(jsValue);
      const bothObjects = values.length === 2 && values.every((v) => typeof v === 'object' && v !== null);
      // Identity does not cross the process boundary: the run says whether two objects were one.
      if (bothObjects && (method === 'strictEqual' || method === 'equal')) {
        if (same !== true) assert.fail('Expected the same object');
      } else if (bothObjects && (method === 'notStrictEqual' || method === 'notEqual')) {
        if (same === true) assert.fail('Expected two different objects');
      } else Reflect.apply(fn, assert, values);
    } catch (e) {
      const why =
        e instanceof Problem ? e.message : e instanceof Error ? e.message.replace(/\s*\n\s*/g, ' ').trim() : String(e);
      return {
        done,
        failure: { status: 'wrong_answer', message: `${where} failed: ${show(why, 300).replace(/^"|"$/g, '')}` },
      };
    }
  }
  return { done };
}

function jsValue(r: unknown): unknown {
  if (!isList(r)) throw new Problem('a malformed result');
  const [tag, body] = r;
  if (tag === 'x') throw new Problem(String(body));
  if (tag !== 'v') throw new Problem('a malformed result');
  return jsDecode(body, 0);
}

/** Rebuilds a value the preload encoded: primitives, arrays, plain objects, sets and maps. */
function jsDecode(v: unknown, depth: number): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (!isList(v) || depth > 120) throw new Problem('a malformed value');
  const [tag, body, length] = v;
  if (tag === 'undefined') return undefined;
  if (tag === 'number') return body === 'NaN' ? NaN : body === '-0' ? -0 : Number(body);
  if (tag === 'bigint' && typeof body === 'string' && /^-?\d+$/.test(body)) return BigInt(body);
  if (tag === 'set' && Array.isArray(body)) return new Set(body.map((x) => jsDecode(x, depth + 1)));
  if (tag === 'map' && Array.isArray(body)) {
    return new Map(
      body.map((p) =>
        Array.isArray(p) && p.length === 2
          ? [jsDecode(p[0], depth + 1), jsDecode(p[1], depth + 1)]
          : fail('a malformed value'),
      ),
    );
  }
  if ((tag === 'array' || tag === 'object') && isList(body)) {
    const size = Number(length) || 0;
    if (tag === 'array' && (!Number.isInteger(size) || size < 0 || size > 1e7)) throw new Problem('a malformed value');
    const out: object = tag === 'array' ? new Array<unknown>(size) : {};
    for (const p of body) {
      if (!Array.isArray(p) || typeof p[0] !== 'string') throw new Problem('a malformed value');
      Object.defineProperty(out, p[0], {
        value: jsDecode(p[1], depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  throw new Problem('a malformed value');
}
