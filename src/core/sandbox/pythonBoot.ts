/**
 * The Python programs of pre-started sandboxes. `PYTHON_BOOT` runs in a pre-started sandbox of the
 * pool while it waits for its answer: it starts the interpreter (the costly part: about half of a
 * run), says it is ready on fd 3, then blocks on stdin. Its run begins when a job arrives there:
 * an 8-byte length and the program's fields (see `programFields` in frames.ts), then the answer's
 * own stdin. It writes the files into its empty folder, lowers its rlimits (CPU time counted
 * from now), makes `__main__` what `python FILE` or `python -c CODE` would have made it, and runs
 * the program in this same process. The sandbox serves this one run and exits with the program.
 * It imports nothing the interpreter has not loaded at start (`resource` aside): each import
 * would be paid by every sandbox.
 */

/** Reading a job: helpers shared with the zygote (zygoteBoot.ts). */
export const PY_JOB_HELPERS = String.raw`def _vtask_fields(blob):
    # A list of byte strings, each after its 4-byte length.
    out, i = [], 0
    while i < len(blob):
        n = int.from_bytes(blob[i:i + 4], "big")
        out.append(blob[i + 4:i + 4 + n])
        i += 4 + n
    return out
def _vtask_job(f, used_cpu):
    # The argument count and arguments, the file count and (name, content) pairs, the rlimits.
    import os
    argc = int(f[0])
    argv = [a.decode("utf-8", "surrogateescape") for a in f[1:1 + argc]]
    i = 2 + argc
    for k in range(int(f[1 + argc])):
        target = os.path.join("/box", f[i].decode("utf-8", "surrogateescape"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(f[i + 1])
        i += 2
    words = f[i].decode().split()
    if words:
        import resource
        limits = dict((k, int(v)) for k, v in (w.split("=") for w in words))
        for key, res in (("core", resource.RLIMIT_CORE), ("fsize", resource.RLIMIT_FSIZE), ("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC), ("as", resource.RLIMIT_AS)):
            if key in limits:
                resource.setrlimit(res, (limits[key], limits[key]))
        # The CPU already used (the pool's interpreter start) is not the program's.
        cpu = used_cpu + limits["cpu"]
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    return argv
def _vtask_main(argv):
    # Runs the program as python FILE or python -c CODE would, in this process.
    import os, sys, builtins, __main__
    loaders = sys.modules["_frozen_importlib_external"]
    g = __main__.__dict__
    g.clear()
    g.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None, __annotations__={}, __builtins__=builtins)
    if argv[0] == "-c":
        source, filename = argv[1], "<string>"
        sys.argv = ["-c"] + argv[2:]
        sys.path[0] = ""
        g["__loader__"] = sys.modules["_frozen_importlib"].BuiltinImporter
    else:
        filename = os.path.join(os.getcwd(), argv[0])
        with open(filename, "rb") as f:
            source = f.read()
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(filename)
        g.update(__file__=filename, __cached__=None, __loader__=loaders.SourceFileLoader("__main__", filename))
    del argv, loaders
    try:
        exec(compile(source, filename, "exec", dont_inherit=True), g)
    except SystemExit:
        raise
    except BaseException as e:
        # As the interpreter reports an uncaught error: without this frame, exit status 1.
        e = e.with_traceback(e.__traceback__.tb_next)
        sys.excepthook(type(e), e, e.__traceback__)
        raise SystemExit(1)
`;

export const PYTHON_BOOT = String.raw`${PY_JOB_HELPERS}def _vtask_boot():
    import os
    try:
        os.write(3, b"R")
    finally:
        os.close(3)
    def take(n):
        got = b""
        while len(got) < n:
            chunk = os.read(0, n - len(got))
            if not chunk:
                os._exit(0)
            got += chunk
        return got
    return _vtask_job(_vtask_fields(take(int.from_bytes(take(8), "big"))), int(sum(os.times()[:2])) + 1)
_vtask_main(_vtask_boot())
`;
