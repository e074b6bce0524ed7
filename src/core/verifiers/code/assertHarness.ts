/**
 * Harnesses for `asserts`, built so that an answer cannot pass by ending the program early or
 * by disarming the checks. Only a line `<marker><token>` on stdout counts as "every assert
 * ran": the token is random per run, reaches the harness on stdin (never through a file in the
 * program's folder) and is read before the answer starts, so an answer that exits early
 * (`os._exit(0)`, `sys.exit(0)`, `process.exit(0)`), hooks the exit (`atexit`,
 * `sys.excepthook`, `process.on('exit')`, `uncaughtException`) or crashes never prints it.
 * The checks see the real `assert` and builtins as they were before the answer ran, and the
 * harness ends the process itself (skipping exit hooks) once they are done.
 */

/** The stdin of an asserts run: the token, then nothing (the answer reads an empty stdin). */
export function assertStdin(token: string): string {
  return `${token}\n`;
}

export const PY_ASSERT_HARNESS = '_vtask_assert.py';
export const PY_ASSERTS_FILE = '_vtask_asserts.py';
export const JS_ASSERT_PRELOAD = '_vtask_assert.cjs';

/**
 * Python: the answer (`main.py`, as `__main__`) and then the asserts run in a worker thread,
 * so no frame holding the token is on the answer's stack; an audit hook (which cannot be
 * removed) refuses what would reach the main thread's frames or the process memory (frame
 * listing, the garbage collector's object lists, ctypes, /proc/self, tracing hooks).
 */
export function pythonAssertHarness(marker: string): string {
  return `import os, sys, threading, builtins, traceback
def _vtask_guard(harness_code):
    blocked = {"sys._current_frames", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.remote_exec"}
    owner = threading.get_ident()
    def hook(event, args):
        if threading.get_ident() == owner:
            return
        if event in blocked and not (event == "sys.settrace" and sys._getframe(1).f_code is harness_code):
            raise RuntimeError("vtask: " + event + " is not available to answers checked by asserts")
        if event == "import" and args and str(args[0]).split(".")[0] in ("ctypes", "_ctypes"):
            raise ImportError("vtask: ctypes is not available to answers checked by asserts")
        if event == "open" and args and isinstance(args[0], (str, bytes)):
            p = os.fsdecode(args[0])
            if p.startswith(("/proc/self", "/proc/thread-self", "/proc/" + str(os.getpid()), "/dev/fd", "/dev/stdin")):
                raise PermissionError("vtask: " + p + " is not available to answers checked by asserts")
    sys.addaudithook(hook)
def _vtask_main():
    write, exit_now, settrace = os.write, os._exit, sys.settrace
    token = b""
    while True:
        chunk = os.read(0, 4096)
        if not chunk: break
        token += chunk
    token = token.strip()
    pristine = dict(builtins.__dict__)
    real_stdout = sys.stdout
    with open("main.py", encoding="utf-8") as f: answer = compile(f.read(), "main.py", "exec")
    with open(${JSON.stringify(PY_ASSERTS_FILE)}, encoding="utf-8") as f: checks = compile(f.read(), "asserts", "exec")
    outcome = []
    def run():
        ns = {"__name__": "__main__", "__file__": "main.py", "__builtins__": builtins}
        try:
            exec(answer, ns)
            settrace(None)
            ns["__builtins__"] = dict(pristine)
            exec(checks, ns)
            outcome.append(None)
        except BaseException as e:
            outcome.append(e)
    _vtask_guard(run.__code__)
    threading.stack_size(64 * 1024 * 1024)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join()
    try: real_stdout.flush()
    except BaseException: pass
    if not outcome:
        write(2, b"vtask: the program ended before every assert ran\\n"); exit_now(1)
    e = outcome[0]
    if e is None:
        write(1, b"\\n" + ${JSON.stringify(marker)}.encode() + token + b"\\n"); exit_now(0)
    if isinstance(e, SystemExit):
        write(2, ("SystemExit: the program called exit(" + repr(e.code) + ") before every assert ran\\n").encode()); exit_now(1)
    write(2, "".join(traceback.format_exception(type(e), e, e.__traceback__)).encode("utf-8", "replace")); exit_now(1)
_vtask_main()
`;
}

/**
 * JavaScript: preloaded with --require before the answer, whose file ends with
 * `globalThis.__vtask_checks__(async (assert) => { ...asserts... })`. The preload keeps the
 * token in a closure, accepts one call whose function's source is exactly that wrapper, passes
 * a snapshot of node:assert taken before the answer ran (a shadowed or patched `assert` does
 * not reach the checks), and refuses the modules that could read its memory.
 */
export function jsAssertPreload(marker: string, wrapper: string): string {
  return `'use strict';
(() => {
  const fs = require('node:fs');
  const Module = require('node:module');
  const real = require('node:assert');
  const exit = process.reallyExit.bind(process);
  const toSource = Function.prototype.call.bind(Function.prototype.toString);
  const token = fs.readFileSync(0, 'utf8').trim();
  const write = (fd, s) => {
    const b = Buffer.from(s);
    for (let off = 0; off < b.length; ) {
      try { off += fs.writeSync(fd, b, off); } catch (e) { if (e.code !== 'EAGAIN') return; }
    }
  };
  const safe = Object.assign((...a) => real(...a), real);
  Object.freeze(safe);
  for (const name of ['inspector', 'inspector/promises', 'v8', 'worker_threads', 'trace_events']) {
    for (const id of [name, 'node:' + name]) {
      try { delete require.cache[id]; } catch {}
    }
  }
  const deny = new Set(['inspector', 'inspector/promises', 'v8', 'trace_events']);
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (deny.has(String(request).replace(/^node:/, ''))) throw new Error('vtask: ' + request + ' is not available to answers checked by asserts');
    return load.call(this, request, ...rest);
  };
  process.binding = () => { throw new Error('vtask: process.binding is not available to answers checked by asserts'); };
  const expected = ${JSON.stringify(wrapper)};
  let called = false;
  const fail = (e) => {
    write(2, (e && e.stack ? String(e.stack) : String(e)) + '\\n');
    exit(1);
  };
  Object.defineProperty(globalThis, '__vtask_checks__', {
    value: (fn) => {
      if (called || typeof fn !== 'function' || toSource(fn) !== expected) fail(new Error('vtask: the answer called the checks itself'));
      called = true;
      Promise.resolve().then(() => fn(safe)).then(() => {
        write(1, '\\n' + ${JSON.stringify(marker)} + token + '\\n');
        exit(0);
      }, fail);
    },
    writable: false,
    configurable: false,
    enumerable: false,
  });
})();
`;
}

/** The wrapper appended to a JavaScript answer; its source text is what the preload accepts. */
export function jsAssertWrapper(asserts: string): string {
  return `async (assert) => {\n${asserts}\n}`;
}
