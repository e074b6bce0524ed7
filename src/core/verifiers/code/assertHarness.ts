/**
 * Harnesses for `asserts`, built so that a wrong answer cannot pass. The answer's process never
 * decides: it evaluates what each assert needs from the answer and sends the values out as plain
 * data (exact builtin types, serialised by the harness's own code, never by the values' own
 * methods); vtask compares them in its own process (`assertJudge.ts`), where the answer cannot
 * reach. Each result line starts with a random marker so that what the answer prints does not get
 * in the way.
 *
 * Python asserts are planned first, in a separate sandboxed run without the answer: every
 * `assert` (nested ones too) becomes a call that evaluates its operands, and the operands that are
 * literals (`assert add(1, 2) == 3`: the `3`) are taken out of the program the answer's process
 * gets, so an answer that forges the result lines still has to know the expected values.
 * JavaScript asserts get a recording `assert` whose calls send their arguments out; there the
 * marker arrives on stdin (it is in no file) and the run has Node's permission model on (files
 * outside its folder, its own memory under /proc, the inspector, child processes and workers are
 * refused), so that the result lines cannot be forged.
 */

export const PY_ASSERT_HARNESS = '_vtask_assert.py';
export const PY_ASSERTS_FILE = '_vtask_asserts.py';
export const PY_ASSERT_PLANNER = '_vtask_plan.py';
export const JS_ASSERT_PRELOAD = '_vtask_assert.cjs';
/** The name the rewritten Python asserts call; the JavaScript checks get `assert` as a parameter. */
const PY_CHECK = '__vtask_check__';

/**
 * Python: plain data, the same in the planner and the harness. `encode` turns a value into
 * JSON-ready lists (`["int", hex]`, `["float", repr]`, `["list", [...]]`...; None, bools and
 * strings as themselves; Counter, OrderedDict and defaultdict as dicts) checking each type with
 * `type(x) is ...`, and raises NotPlain for
 * anything else (a subclass, a custom `__eq__`, a generator). `decode` builds fresh builtin values
 * back; `ser` writes an encoded value as JSON. Builtins are bound here, before the answer runs.
 */
const PY_PLAIN = String.raw`def _vtask_plain():
    try:
        from _json import encode_basestring_ascii as _esc
    except ImportError:
        from json.encoder import encode_basestring_ascii as _esc
    import collections
    tname = type.__dict__["__name__"].__get__
    # Dicts the standard library makes (a Counter built by the checks) compare as dicts.
    dicts = (dict, collections.Counter, collections.OrderedDict, collections.defaultdict)
    _type, _fmt, _frepr, _hex, _items, _join = type, int.__format__, float.__repr__, bytes.hex, dict.items, str.join
    _int, _float, _fromhex, _tuple, _frozenset = int, float, bytes.fromhex, tuple, frozenset
    class NotPlain(TypeError):
        pass
    def encode(x):
        budget = [200000]
        def enc(x, depth):
            budget[0] -= 1
            if budget[0] < 0:
                raise NotPlain("the value is too large to check")
            t = _type(x)
            if x is None or t is bool or t is str:
                return x
            if t is int:
                return ["int", _fmt(x, "x")]
            if t is float:
                return ["float", _frepr(x)]
            if depth > 100:
                raise NotPlain("the value is nested too deeply")
            if t is bytes:
                return ["bytes", _hex(x)]
            if t is list or t is tuple or t is set or t is frozenset:
                return [tname(t), [enc(v, depth + 1) for v in x]]
            if t is dict or t is dicts[1] or t is dicts[2] or t is dicts[3]:
                return ["dict", [[enc(k, depth + 1), enc(v, depth + 1)] for k, v in _items(x)]]
            raise NotPlain("the value is not plain data (" + tname(t) + ")")
        return enc(x, 0)
    def decode(v):
        if v is None or _type(v) is bool or _type(v) is str:
            return v
        tag, body = v
        if tag == "int":
            return _int(body, 16)
        if tag == "float":
            return _float(body)
        if tag == "bytes":
            return _fromhex(body)
        if tag == "list":
            return [decode(x) for x in body]
        if tag == "tuple":
            return _tuple([decode(x) for x in body])
        if tag == "set":
            return {decode(x) for x in body}
        if tag == "frozenset":
            return _frozenset([decode(x) for x in body])
        return {decode(k): decode(w) for k, w in body}
    def ser(v):
        t = _type(v)
        if v is None:
            return "null"
        if t is bool:
            return "true" if v else "false"
        if t is str:
            return _esc(v)
        if t is int:
            return _fmt(v, "d")
        if t is list:
            return "[" + _join(",", [ser(x) for x in v]) + "]"
        return "null"
    return encode, decode, ser, NotPlain
`;

/**
 * Python planner (no answer present): reads the asserts on stdin and prints one JSON object:
 * `checks`, the asserts with every `assert` replaced by `__vtask_check__(i, (lambda: operand, ...))`,
 * and `asserts`, for each `i` its line, text and the shape of its test (and/or/not, comparisons
 * with their operators, `math.isclose`, other values) with the literal operands' values, and whether it may
 * not run (inside a `try`). Or `error`.
 */
export function pythonAssertPlanner(): string {
  return `${PY_PLAIN}
def _vtask_planner():
    import ast, json, sys
    encode, decode, ser, NotPlain = _vtask_plain()
    src = sys.stdin.read()
    try:
        tree = ast.parse(src, "asserts")
    except SyntaxError as e:
        sys.stdout.write(json.dumps({"error": "the asserts do not compile: SyntaxError: " + str(e.msg) + " (line " + str(e.lineno) + ")"}))
        return
    ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
    literal = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp, ast.expr_context, ast.operator, ast.unaryop)
    no = object()
    def constant(node):
        if not all(isinstance(n, literal) for n in ast.walk(node)):
            return no
        try:
            return encode(eval(compile(ast.fix_missing_locations(ast.Expression(body=node)), "asserts", "eval"), {"__builtins__": {}}))
        except Exception:
            return no
    plan = []
    # An assert inside a try (its body, handlers or else) may rightly never run: "this must raise".
    optional = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            for part in node.body + node.handlers + node.orelse:
                optional.update(id(n) for n in ast.walk(part) if isinstance(n, ast.Assert))
    class Rewrite(ast.NodeTransformer):
        def visit_Assert(self, node):
            thunks = []
            def leaf(e):
                thunks.append(ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=e))
                return len(thunks) - 1
            def slot(operand):
                c = constant(operand)
                return {"leaf": leaf(operand)} if c is no else {"const": c}
            def shape(e):
                # math.isclose is compared in vtask too: the answer could have replaced it.
                if isinstance(e, ast.Call) and ast.unparse(e.func) in ("math.isclose", "isclose") and len(e.args) == 2 and not any(isinstance(a, ast.Starred) for a in e.args) and all(k.arg in ("rel_tol", "abs_tol") for k in e.keywords):
                    kw = {k.arg: k.value for k in e.keywords}
                    parts = [e.args[0], e.args[1], kw.get("rel_tol", ast.Constant(1e-09)), kw.get("abs_tol", ast.Constant(0.0))]
                    return {"k": "isclose", "of": [slot(p) for p in parts]}
                if isinstance(e, ast.BoolOp):
                    return {"k": "and" if isinstance(e.op, ast.And) else "or", "of": [shape(v) for v in e.values]}
                if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
                    return {"k": "not", "of": shape(e.operand)}
                if isinstance(e, ast.Compare):
                    return {"k": "cmp", "ops": [ops[type(o)] for o in e.ops], "of": [slot(o) for o in [e.left] + e.comparators]}
                return {"k": "value", "leaf": leaf(e)}
            test = shape(node.test)
            text = ast.get_source_segment(src, node.test) or ast.unparse(node.test)
            plan.append({"line": node.lineno, "text": text[:300], "test": test, "optional": id(node) in optional})
            call = ast.Call(func=ast.Name(id="${PY_CHECK}", ctx=ast.Load()), args=[ast.Constant(len(plan) - 1), ast.Tuple(elts=thunks, ctx=ast.Load())], keywords=[])
            return ast.copy_location(ast.Expr(value=call), node)
    tree = ast.fix_missing_locations(Rewrite().visit(tree))
    sys.stdout.write(json.dumps({"checks": ast.unparse(tree), "asserts": plan}))
_vtask_planner()
`;
}

/**
 * Python harness: runs the answer (`main.py`, as `__main__`), then the planned checks in a
 * namespace of their own: the builtins as they were before the answer ran, and the answer's
 * names, its functions wrapped so that what they return reaches the checks as a fresh plain copy
 * (a function they return is wrapped alike)
 * (a custom object never gets into a comparison). Each assert run prints one result line:
 * `[i, [["v", value] | ["x", why it is not plain data] | ["e", the exception], ...]]`; the last
 * line is `done`. An audit hook refuses what would tamper with the harness (gc object lists,
 * tracing, ctypes, the process's own memory, replacing a function's code).
 */
export function pythonAssertHarness(marker: string): string {
  return `${PY_PLAIN}
def _vtask_main():
    import os, sys, threading, builtins, types, functools
    encode, decode, ser, NotPlain = _vtask_plain()
    write, exit_now, tname, _type, _callable, _isinstance, _str, _s = os.write, os._exit, type.__dict__["__name__"].__get__, type, callable, isinstance, BaseException.__str__, str
    generator = types.GeneratorType
    functions = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)
    mark = b"\\n" + ${JSON.stringify(marker)}.encode()
    def emit(text):
        b = mark + text.encode("utf-8", "surrogatepass") + b"\\n"
        while b:
            try:
                b = b[write(1, b):]
            except InterruptedError:
                continue
            except OSError:
                return
    def describe(e):
        try:
            msg = _str(e)
        except BaseException:
            msg = ""
        msg = msg if _type(msg) is str else ""
        return (tname(_type(e)) + (": " + msg if msg else ""))[:300]
    def check(i, thunks):
        out = []
        for th in thunks:
            try:
                out.append(["v", encode(th())])
            except NotPlain as e:
                out.append(["x", _str(e)])
            except Exception as e:
                out.append(["e", describe(e)])
        emit(ser([i, out]))
    def plain_items(g, name):
        for value in g:
            yield plain(value, name)
    def plain(value, name):
        t = _type(value)
        if t is functions[0] or t is functions[1] or t is functions[2] or t is functions[3]:
            return plain_call(value, name + "(...)")
        try:
            return decode(encode(value))
        except NotPlain:
            raise NotPlain(name + " returned a value that is not plain data (" + tname(_type(value)) + ")") from None
    def plain_call(f, name):
        def called(*args, **kwargs):
            value = f(*args, **kwargs)
            return plain_items(value, name) if _type(value) is generator else plain(value, name)
        return called
    def guard():
        pid = str(os.getpid())
        blocked = {"sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile", "sys.remote_exec"}
        realpath, fsdecode, owns = os.path.realpath, os.fsdecode, ("/proc/" + pid + "/", "/proc/thread-self", "/dev/fd", "/dev/stdin")
        def hook(event, args):
            if event in blocked or (event == "object.__setattr__" and args[1] in ("__code__", "__closure__", "__globals__")):
                raise RuntimeError("vtask: " + event + " is not available to answers checked by asserts")
            if event == "import" and args and _s(args[0]).split(".")[0] in ("ctypes", "_ctypes"):
                raise ImportError("vtask: ctypes is not available to answers checked by asserts")
            if event == "open" and args and _isinstance(args[0], (str, bytes)):
                p = realpath(fsdecode(args[0]))
                if p in ("/proc", "/proc/" + pid) or p.startswith(owns):
                    raise PermissionError("vtask: " + p + " is not available to answers checked by asserts")
        sys.addaudithook(hook)
    pristine = dict(builtins.__dict__)
    real_stdout = sys.stdout
    with open("main.py", encoding="utf-8") as f:
        answer = compile(f.read(), "main.py", "exec")
    with open(${JSON.stringify(PY_ASSERTS_FILE)}, encoding="utf-8") as f:
        checks = compile(f.read(), "asserts", "exec")
    def fail(text):
        try:
            real_stdout.flush()
        except BaseException:
            pass
        write(2, text.encode("utf-8", "replace"))
        exit_now(1)
    def run():
        ns = {"__name__": "__main__", "__file__": "main.py", "__builtins__": builtins}
        try:
            exec(answer, ns)
            names = {}
            for k, v in dict.items(ns):
                names[k] = plain_call(v, k) if _callable(v) and not _isinstance(v, type) else v
            names.update(__name__="__main__", __builtins__=dict(pristine), ${PY_CHECK}=check)
            exec(checks, names)
        except SystemExit as e:
            fail("SystemExit: the program called exit(" + describe(e).partition(": ")[2] + ") before every assert ran\\n")
        except BaseException as e:
            fail(describe(e) + "\\n")
        try:
            real_stdout.flush()
        except BaseException:
            pass
        emit(ser("done"))
        exit_now(0)
    guard()
    threading.stack_size(64 * 1024 * 1024)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join()
    fail("vtask: the program ended before every assert ran\\n")
_vtask_main()
`;
}

/** The assert methods whose arguments go out as data, and what each becomes under `assert.strict`. */
const JS_RECORDED: Readonly<Record<string, readonly [args: number, strict: string]>> = {
  ok: [1, 'ok'],
  equal: [2, 'strictEqual'],
  notEqual: [2, 'notStrictEqual'],
  strictEqual: [2, 'strictEqual'],
  notStrictEqual: [2, 'notStrictEqual'],
  deepEqual: [2, 'deepStrictEqual'],
  notDeepEqual: [2, 'notDeepStrictEqual'],
  deepStrictEqual: [2, 'deepStrictEqual'],
  notDeepStrictEqual: [2, 'notDeepStrictEqual'],
};
export const JS_RECORDED_METHODS = Object.keys(JS_RECORDED);

/**
 * JavaScript: preloaded with --require before the answer, whose file ends with
 * `globalThis.__vtask_checks__(async (__vtask_assert__, process) => { ... })`. The preload accepts
 * one call whose function's source is exactly that wrapper and passes it a recording `assert`
 * (also what `require('node:assert')` gives during the checks): `assert(x)`, `ok`, `equal`,
 * `strictEqual`, `deepStrictEqual` and their `not` forms print one result line
 * `[method, [["v", value] | ["x", why it is not plain data], ...], same object]` and throw nothing;
 * the other methods are node:assert's own. Values are serialised by the preload's own code, bound
 * before the answer ran (no prototype method, iterator, getter or proxy of the answer's is used),
 * and only plain data passes: primitives, and arrays, plain objects, sets and maps of them. `process.exit` in the
 * checks ends the run as a failure. The marker is read from stdin; heap snapshots are disabled.
 */
export function jsAssertPreload(wrapper: string): string {
  const recorded = JSON.stringify(Object.entries(JS_RECORDED));
  return `'use strict';
(() => {
  const { apply, ownKeys, getOwnPropertyDescriptor: ownDesc, getPrototypeOf: protoOf, defineProperty } = Reflect;
  const fs = require('node:fs');
  const Module = require('node:module');
  const real = require('node:assert');
  const { isProxy, isSet, isMap } = require('node:util').types;
  const SetProto = Set.prototype, MapProto = Map.prototype, setValues = Set.prototype.values, mapEntries = Map.prototype.entries;
  const setNext = protoOf(new Set().values()).next, mapNext = protoOf(new Map().entries()).next;
  const { isArray } = Array;
  const ArrayProto = Array.prototype, ObjectProto = Object.prototype, objToString = Object.prototype.toString;
  const quote = JSON.stringify, freeze = Object.freeze, is = Object.is, create = Object.create;
  const writeSync = fs.writeSync, reallyExit = process.reallyExit, proc = process, toBuffer = Buffer.from, then = Promise.prototype.then;
  const exitCode = ownDesc(process, 'exitCode')?.get;
  const toSource = Function.prototype.toString;
  const write = (fd, s) => {
    const b = apply(toBuffer, Buffer, [s, 'utf8']);
    for (let off = 0; off < b.length; ) {
      try { off += writeSync(fd, b, off); } catch (e) { if (!e || e.code !== 'EAGAIN') return; }
    }
  };
  const mark = '\\n' + fs.readFileSync(0, 'utf8').trim();
  const emit = (s) => write(1, mark + s + '\\n');
  const exit = (code) => apply(reallyExit, proc, [code]);
  const text = (e) => { try { return '' + (e && e.stack ? e.stack : e); } catch { return 'an error'; } };
  const fail = (e) => { write(2, text(e) + '\\n'); exit(1); };
  const refuse = (what) => function () { throw new Error('vtask: ' + what + ' is not available to answers checked by asserts'); };
  const seal = (o, name, value) => { try { defineProperty(o, name, { value, writable: false, configurable: false }); } catch {} };
  const inspector = require('node:inspector');
  for (const S of [inspector.Session, require('node:inspector/promises').Session]) for (const m of ['connect', 'connectToMainThread', 'post']) seal(S.prototype, m, refuse('the inspector'));
  for (const m of ['open', 'url', 'waitForDebugger']) seal(inspector, m, refuse('the inspector'));
  const v8 = require('node:v8');
  for (const m of ['writeHeapSnapshot', 'getHeapSnapshot', 'setFlagsFromString']) seal(v8, m, refuse('v8.' + m));
  for (const m of ['binding', '_linkedBinding', '_debugProcess']) seal(process, m, refuse('process.' + m));

  class NotPlain extends Error {}
  const kind = (x) => { try { return apply(objToString, x, []).slice(8, -1); } catch { return 'object'; } };
  const enc = (x, depth, budget) => {
    if (--budget.n < 0) throw new NotPlain('the value is too large to check');
    const t = typeof x;
    if (x === null) return 'null';
    if (t === 'boolean') return x ? 'true' : 'false';
    if (t === 'string') return quote(x);
    if (t === 'undefined') return '["undefined"]';
    if (t === 'number') return '["number",' + quote(x !== x ? 'NaN' : x === 0 && 1 / x < 0 ? '-0' : '' + x) + ']';
    if (t === 'bigint') return '["bigint",' + quote('' + x) + ']';
    if (t !== 'object') throw new NotPlain('the value is not plain data (' + t + ')');
    if (depth > 100) throw new NotPlain('the value is nested too deeply');
    if (isProxy(x)) throw new NotPlain('the value is not plain data (Proxy)');
    const proto = protoOf(x);
    // Sets and maps are read with their iterators as they were before the answer ran.
    if ((proto === SetProto && isSet(x)) || (proto === MapProto && isMap(x))) {
      const set = proto === SetProto;
      const it = apply(set ? setValues : mapEntries, x, []);
      const next = set ? setNext : mapNext;
      let s = set ? '["set",[' : '["map",[';
      for (let r = apply(next, it, []), first = true; !r.done; r = apply(next, it, []), first = false) {
        s += (first ? '' : ',') + (set ? enc(r.value, depth + 1, budget) : '[' + enc(r.value[0], depth + 1, budget) + ',' + enc(r.value[1], depth + 1, budget) + ']');
      }
      return s + ']]';
    }
    const array = isArray(x) && proto === ArrayProto;
    if (!array && proto !== ObjectProto && proto !== null) throw new NotPlain('the value is not plain data (' + kind(x) + ')');
    const keys = ownKeys(x);
    let s = array ? '["array",[' : '["object",[';
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (typeof k !== 'string') throw new NotPlain('the value is not plain data (an object with symbol keys)');
      if (array && k === 'length') continue;
      const d = ownDesc(x, k);
      if (!d.enumerable) continue;
      if (d.get !== undefined || d.set !== undefined || !('value' in d)) throw new NotPlain('the value is not plain data (a getter)');
      s += (first ? '' : ',') + '[' + quote(k) + ',' + enc(d.value, depth + 1, budget) + ']';
      first = false;
    }
    return s + (array ? '],' + x.length + ']' : ']]');
  };
  const value = (x) => {
    try { return '["v",' + enc(x, 0, { n: 200000 }) + ']'; } catch (e) { return '["x",' + quote(e instanceof NotPlain ? e.message : 'the value could not be read') + ']'; }
  };
  let active = false;
  const recorder = (method, n) => function (a, b) {
    if (!active) return apply(real[method], real, n === 1 ? [a] : [a, b]);
    const both = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null;
    emit('[' + quote(method) + ',[' + value(a) + (n === 2 ? ',' + value(b) : '') + '],' + (both && is(a, b) ? 'true' : 'false') + ']');
  };
  const make = (strict) => {
    const a = function assert(value) { ok(value); };
    let ok;
    for (const [name, [n, strictName]] of ${recorded}) {
      const f = recorder(strict ? strictName : name, n);
      if (name === 'ok') ok = f;
      a[name] = f;
    }
    for (const name of ['throws', 'doesNotThrow', 'rejects', 'doesNotReject', 'match', 'doesNotMatch', 'fail', 'ifError', 'AssertionError']) a[name] = real[name];
    return a;
  };
  const checks = make(false);
  checks.strict = make(true);
  checks.strict.strict = checks.strict;
  freeze(checks.strict);
  freeze(checks);
  const load = Module._load;
  Module._load = function (request, ...rest) {
    // Compared as they are: a string method of the answer's must not choose which assert the checks get.
    if (active && (request === 'assert' || request === 'node:assert')) return checks;
    if (active && (request === 'assert/strict' || request === 'node:assert/strict')) return checks.strict;
    return apply(load, this, [request, ...rest]);
  };
  const facade = create(process, { exit: { value: (code) => fail(new Error('the checks called process.exit(' + (code === undefined ? '' : code) + ')')) } });
  const expected = ${JSON.stringify(wrapper)};
  let called = false;
  defineProperty(globalThis, '__vtask_checks__', {
    value: (fn) => {
      if (called || typeof fn !== 'function' || apply(toSource, fn, []) !== expected) fail(new Error('vtask: the answer called the checks itself'));
      called = true;
      active = true;
      let run;
      try { run = fn(checks, facade); } catch (e) { fail(e); }
      apply(then, run, [() => {
        active = false;
        const code = exitCode ? apply(exitCode, proc, []) : undefined;
        if (code) fail(new Error('the checks set process.exitCode = ' + code));
        emit('"done"');
        exit(0);
      }, fail]);
    },
    writable: false,
    configurable: false,
    enumerable: false,
  });
})();
`;
}

/**
 * The wrapper appended to a JavaScript answer; its source text is what the preload accepts. The
 * asserts sit in a block of their own, so they may declare `const assert = require('node:assert')`.
 */
export function jsAssertWrapper(asserts: string): string {
  return `async (__vtask_assert__, process) => {\nconst assert = __vtask_assert__;\n{\n${asserts}\n}\n}`;
}
