/**
 * The program a pre-started Python sandbox runs while it waits for its answer. It starts the
 * interpreter (the costly part: about half of a run), says it is ready on fd 3, then blocks on
 * stdin. Its run begins when a job arrives there: an 8-byte length and a JSON job (the files,
 * the command after the interpreter, the rlimits), then the answer's own stdin. It writes the
 * files into its empty folder, lowers its rlimits (CPU time counted from now), makes `__main__`
 * what `python FILE` or `python -c CODE` would have made it, and runs the program in this same
 * process. The sandbox serves this one run and exits with the program.
 */
export const PYTHON_BOOT = String.raw`def _vtask_boot():
    import os, sys, json, binascii, builtins, __main__
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
    job = json.loads(take(int.from_bytes(take(8), "big")))
    for name, text, b64 in job["files"]:
        target = os.path.join("/box", name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(text.encode("utf-8") if text is not None else binascii.a2b_base64(b64))
    limits = job["rlimits"]
    if limits is not None:
        import resource
        for key, res in (("core", resource.RLIMIT_CORE), ("fsize", resource.RLIMIT_FSIZE), ("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC), ("as", resource.RLIMIT_AS)):
            if key in limits:
                resource.setrlimit(res, (limits[key], limits[key]))
        cpu = int(sum(os.times()[:2])) + 1 + limits["cpu"]
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    argv = job["argv"]
    del job, limits
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
_vtask_boot()
`;
