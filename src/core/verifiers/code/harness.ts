/**
 * Programs that wrap an answer for `asserts` and `call` tests. A call harness reads the
 * arguments from `_vtask_args.json`, calls the function and prints its result as JSON after a
 * marker line, so whatever the answer itself prints does not get in the way.
 */
import type { CodeLanguage } from './extract';

export const ARGS_FILE = '_vtask_args.json';
/** Non-finite floats travel as `{"__vtask_float__": "inf" | "-inf" | "nan"}`. */
const FLOAT_KEY = '__vtask_float__';

/** Python: imports the answer as module `main` (so `if __name__ == "__main__"` does not run). */
export function pythonCallHarness(fn: string, marker: string): string {
  return `import json, math, sys
with open(${JSON.stringify(ARGS_FILE)}, encoding="utf-8") as _f:
    _args = json.load(_f)
sys.argv = ["main.py"]
import main as _m
_fn = getattr(_m, ${JSON.stringify(fn)}, None)
if _fn is None and isinstance(getattr(_m, "Solution", None), type) and hasattr(_m.Solution, ${JSON.stringify(fn)}):
    _fn = getattr(_m.Solution(), ${JSON.stringify(fn)})
if not callable(_fn):
    sys.stderr.write("NameError: the answer defines no function named ${fn}\\n")
    sys.exit(1)
_r = _fn(*_args)
def _clean(o):
    if isinstance(o, bool) or o is None or isinstance(o, (int, str)):
        return o
    if isinstance(o, float):
        if math.isnan(o): return {${JSON.stringify(FLOAT_KEY)}: "nan"}
        if math.isinf(o): return {${JSON.stringify(FLOAT_KEY)}: "inf" if o > 0 else "-inf"}
        return o
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (set, frozenset)):
        try: o = sorted(o)
        except TypeError: o = list(o)
    if hasattr(o, "tolist"):
        return _clean(o.tolist())
    if isinstance(o, (list, tuple)) or hasattr(o, "__iter__"):
        return [_clean(x) for x in o]
    return str(o)
sys.stdout.flush()
sys.stdout.write("\\n" + ${JSON.stringify(marker)} + json.dumps(_clean(_r)) + "\\n")
sys.stdout.flush()
`;
}

/** JavaScript: appended to the answer, so it sees the answer's top-level bindings. */
export function jsCallHarness(fn: string, marker: string): string {
  return `
;(async () => {
  const __vtask_fs = await import('node:fs');
  const __vtask_args = JSON.parse(__vtask_fs.readFileSync(${JSON.stringify(ARGS_FILE)}, 'utf8'));
  let __vtask_fn;
  try { __vtask_fn = ${fn}; } catch { __vtask_fn = undefined; }
  if (typeof __vtask_fn !== 'function' && typeof module !== 'undefined' && module.exports) {
    __vtask_fn = typeof module.exports === 'function' ? module.exports : module.exports[${JSON.stringify(fn)}];
  }
  if (typeof __vtask_fn !== 'function') {
    try { if (typeof Solution === 'function') { const s = new Solution(); if (typeof s[${JSON.stringify(fn)}] === 'function') __vtask_fn = s[${JSON.stringify(fn)}].bind(s); } } catch { /* no class */ }
  }
  if (typeof __vtask_fn !== 'function') {
    process.stderr.write('ReferenceError: the answer defines no function named ${fn}\\n');
    process.exit(1);
  }
  const __vtask_clean = (o) => {
    if (o === undefined) return null;
    if (typeof o === 'number' && !Number.isFinite(o)) return { ${FLOAT_KEY}: Number.isNaN(o) ? 'nan' : o > 0 ? 'inf' : '-inf' };
    if (typeof o === 'bigint') return Number.isSafeInteger(Number(o)) ? Number(o) : String(o);
    if (o instanceof Set) return [...o].map(__vtask_clean);
    if (o instanceof Map) return Object.fromEntries([...o].map(([k, v]) => [String(k), __vtask_clean(v)]));
    if (Array.isArray(o) || ArrayBuffer.isView(o)) return Array.from(o, __vtask_clean);
    if (o && typeof o === 'object') return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, __vtask_clean(v)]));
    return o;
  };
  const __vtask_r = await __vtask_fn(...__vtask_args);
  process.stdout.write('\\n' + ${JSON.stringify(marker)} + JSON.stringify(__vtask_clean(__vtask_r)) + '\\n', () => process.exit(0));
})().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\\n'); process.exit(1); });
`;
}

/** Reads the value printed after the last marker; `undefined` when there is none or it is not JSON. */
export function parseCallResult(stdout: string, marker: string): { value: unknown } | undefined {
  const at = stdout.lastIndexOf(marker);
  if (at === -1) return undefined;
  const line = stdout.slice(at + marker.length).split('\n')[0] as string;
  try {
    return { value: revive(JSON.parse(line)) };
  } catch {
    return undefined;
  }
}

function revive(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(revive);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === FLOAT_KEY)
      return o[FLOAT_KEY] === 'nan' ? NaN : o[FLOAT_KEY] === '-inf' ? -Infinity : Infinity;
    return Object.fromEntries(keys.map((k) => [k, revive(o[k])]));
  }
  return v;
}

/** The file the answer is written to. */
export function mainFile(language: CodeLanguage, esm: boolean): string {
  return language === 'python' ? 'main.py' : esm ? 'main.mjs' : 'main.js';
}
