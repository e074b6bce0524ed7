/**
 * The Python program of a zygote (see zygote.ts), run once inside a long-lived bubblewrap sandbox
 * as `python -c ZYGOTE_BOOT SLOTS`. Its fds: 3, a control line per keeper that ended
 * (`exit SLOT STATUS`); 4.. one socket per slot, shared with vtask. It never reads a slot: for
 * each slot it forks a keeper ahead of any job, which unshares fresh user, mount, pid, network,
 * ipc and uts namespaces and forks the answer's init (pid 1 of the new pid namespace). The init
 * mounts its own /proc and /dev/shm, says `R` on the slot, and only then reads the slot: one test
 * frame at a time (`T`: index, CPU budget and wall-clock backstop in ms, resident-memory bound in
 * bytes or 0, `py` or `exec`, the program's fields, stdin), answered with the program's output
 * (`O`, `E`) and its end (`X`: wait status, CPU ms of the test's whole tree, peak resident KiB,
 * and what stopped it: 0 nothing, 1 the CPU budget, 2 the wall-clock backstop, 3 the resident
 * bound). The budget is the more of the CPU time of the test's tree (the live processes' from this
 * namespace's /proc, the reaped ones' from wait4) and the time its program ran or slept (elapsed
 * less the time it waited for a CPU, /proc/PID/schedstat): the machine's load counts in neither,
 * and a sleep past the budget is a timeout; the wall-clock backstop is the last resort. Each test runs in a fresh grandchild on a fresh tmpfs at /box, with its rlimits
 * and no capabilities; whatever it leaves behind is killed before the next test. `K INDEX` kills
 * the running test, `Q` (or the slot closing) ends the answer: its namespaces go with its init.
 * The zygote then forks a new keeper for that slot. An `exec` grandchild becomes its program
 * (`execv`, for Node, which cannot be forked warm); a `py` one returns from `_vtask_zygote` with
 * its program's arguments and runs it from the top level, as `python FILE` would.
 */
import { PY_JOB_HELPERS } from './pythonBoot';

export const ZYGOTE_BOOT = String.raw`${PY_JOB_HELPERS}def _vtask_zygote():
    import os, sys, signal, select, ctypes, time
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)
    libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
    NEWNS, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET = 0x20000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000
    NOSUID, NODEV, NOEXEC, REC, PRIVATE = 2, 4, 8, 0x4000, 0x40000
    SETUP_FAILED = 70
    slots, box_bytes = int(sys.argv[1]), int(sys.argv[2])
    first = 4
    uid, gid = os.getuid(), os.getgid()

    def check(r, what):
        if r != 0:
            e = ctypes.get_errno()
            raise OSError(e, "%s: %s" % (what, os.strerror(e)))

    def mount(src, target, fstype, flags, data=None):
        check(libc.mount(src, target, fstype, flags, data), "mount " + target.decode())

    def put(fd, kind, payload=b""):
        view = memoryview(kind + len(payload).to_bytes(4, "big") + payload)
        while view:
            view = view[os.write(fd, view):]

    def take(fd, n):
        got = b""
        while len(got) < n:
            chunk = os.read(fd, n - len(got))
            if not chunk:
                return None
            got += chunk
        return got

    def frame(fd):
        head = take(fd, 5)
        if head is None:
            return None, b""
        return head[:1], take(fd, int.from_bytes(head[1:], "big")) or b""

    def killall():
        # Every process of these namespaces but this one (from pid 1), or of the zygote's.
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass

    def wakeup():
        # SIGCHLD wakes select through a pipe.
        r, w = os.pipe()
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w)
        signal.signal(signal.SIGCHLD, lambda *a: None)
        return r, w

    def forget(*fds):
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in fds:
            os.close(fd)

    def keeper(slot, wake):
        fd = first + slot
        forget(*wake)
        for other in range(first, first + slots):
            if other != fd:
                os.close(other)
        os.close(3)
        null = os.open("/dev/null", os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        os.close(null)
        try:
            check(libc.unshare(NEWUSER | NEWNS | NEWPID | NEWNET | NEWIPC | NEWUTS), "unshare")
            for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
                with open("/proc/self/" + name, "w") as f:
                    f.write(text)
            mount(b"none", b"/", None, REC | PRIVATE)
        except OSError as e:
            put(fd, b"F", str(e).encode())
            os._exit(SETUP_FAILED)
        pid = os.fork()
        if pid == 0:
            return init(fd)
        os.close(fd)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)

    def init(fd):
        try:
            # No one in the answer's namespaces may trace or read this process.
            check(libc.prctl(4, 0, 0, 0, 0), "prctl")
            mount(b"proc", b"/proc", b"proc", NOSUID | NODEV | NOEXEC)
            mount(b"tmpfs", b"/dev/shm", b"tmpfs", NOSUID | NODEV, b"size=16m")
        except OSError as e:
            put(fd, b"F", str(e).encode())
            os._exit(SETUP_FAILED)
        wake = wakeup()
        put(fd, b"R")
        mounted = False
        while True:
            kind, payload = frame(fd)
            if kind is None or kind == b"Q":
                os._exit(0)
            if kind != b"T":
                continue
            if mounted:
                libc.umount2(b"/box", 2)
            mount(b"tmpfs", b"/box", b"tmpfs", NOSUID | NODEV, b"size=%d,mode=0755" % box_bytes)
            mounted = True
            os.chdir("/box")
            argv = run_test(fd, wake, _vtask_fields(payload))
            if argv is not None:
                return argv

    tick, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")

    def tree():
        # CPU seconds and resident bytes of the answer's live processes: all of this pid
        # namespace but init (its own /proc). CPU of the ones reaped is counted from wait4.
        cpu, rss = 0, 0
        for p in os.listdir("/proc"):
            if not p.isdigit() or p == "1":
                continue
            try:
                with open("/proc/%s/stat" % p, "rb") as f:
                    s = f.read()
                f = s[s.rindex(b")") + 2:].split()
                cpu += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
                rss += int(f[21])
            except (OSError, ValueError, IndexError):
                continue
        return cpu / tick, rss * page

    def starved(pid):
        # Seconds the process was ready to run but kept waiting for a CPU (the machine's load).
        try:
            with open("/proc/%d/schedstat" % pid) as f:
                return int(f.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def run_test(fd, wake, f):
        # The index, the CPU budget and the wall-clock backstop in ms, the resident-memory bound
        # in bytes (0: none), how to run the program, its fields, its stdin.
        index, budget, wall, resident, mode, stdin = f[0], int(f[1]) / 1000, int(f[2]) / 1000, int(f[3]), f[4], f[-1]
        pipes = [os.pipe() for _ in range(3)]
        pid = os.fork()
        if pid == 0:
            try:
                forget(*wake)
                for std, p in enumerate(pipes):
                    os.dup2(p[0] if std == 0 else p[1], std)
                # Files and rlimits, then no capability in the answer's namespaces, ever: not
                # even from an exec as the namespace's root (securebits NOROOT, locked).
                argv = _vtask_job(f[5:-1], 0)
                check(libc.prctl(28, 3, 0, 0, 0), "prctl")
                check(libc.prctl(47, 4, 0, 0, 0), "prctl")
                head = (ctypes.c_uint32 * 2)(0x20080522, 0)
                caps = (ctypes.c_uint32 * 6)()
                check(libc.capset(head, caps), "capset")
                check(libc.prctl(38, 1, 0, 0, 0), "prctl")
            except BaseException as e:
                put(fd, b"F", ("%s: %s" % (type(e).__name__, e)).encode())
                os._exit(SETUP_FAILED)
            os.closerange(3, 1 << 20)
            if mode == b"exec":
                # A program that cannot be forked warm (Node): this fresh process becomes it.
                try:
                    os.execv(argv[0], argv)
                except OSError as e:
                    os.write(2, ("could not start %s: %s\n" % (argv[0], e.strerror)).encode())
                    os._exit(127)
            return argv
        (in_r, in_w), (out_r, out_w), (err_r, err_w) = pipes
        for x in (in_r, out_w, err_w):
            os.close(x)
        os.set_blocking(in_w, False)
        if not stdin:
            os.close(in_w)
            in_w = -1
        streams = {out_r: b"O", err_r: b"E"}
        status = usage = None
        # over: 1 the CPU budget ran out, 2 the wall-clock backstop did, 3 the resident memory bound.
        started, over, reaped, peak = time.monotonic(), 0, 0.0, 0
        look = started + 0.05
        while streams or status is None:
            wanted = [fd, wake[0], *streams]
            ready, writable, _ = select.select(wanted, [in_w] if in_w >= 0 else [], [], 0.05 if status is None else None)
            now = time.monotonic()
            # The budget is the CPU time of the test's whole tree, or the time its program ran or
            # slept (elapsed less the time it waited for a CPU), whichever is more: the machine's
            # load counts in neither, and a sleep past the budget is a timeout, as it is for the
            # peers' runners. The wall-clock backstop is the last resort (schedstat unreadable).
            if status is None and not over and now >= look:
                look = now + 0.05
                cpu, rss = tree()
                peak = max(peak, rss)
                if reaped + cpu > budget or now - started - starved(pid) > budget:
                    over = 1
                elif resident and rss > resident:
                    over = 3
                elif now - started > wall:
                    over = 2
                if over:
                    killall()
            if writable:
                try:
                    stdin = stdin[os.write(in_w, stdin[:65536]):]
                except OSError:
                    stdin = b""
                if not stdin:
                    os.close(in_w)
                    in_w = -1
            for r in ready:
                if r in streams:
                    data = os.read(r, 65536)
                    if data:
                        put(fd, streams[r], data)
                    else:
                        os.close(r)
                        del streams[r]
                elif r == wake[0]:
                    os.read(r, 4096)
                elif r == fd:
                    kind, payload = frame(fd)
                    if kind is None:
                        killall()
                        os._exit(0)
                    if kind == b"K" and payload == index:
                        killall()
            while True:
                try:
                    p, st, ru = os.wait4(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if p == 0:
                    # What the program left behind goes with it; its pipes then close.
                    if status is not None:
                        killall()
                    break
                reaped += ru.ru_utime + ru.ru_stime
                if p == pid:
                    status, usage = st, ru
                    killall()
        if in_w >= 0:
            os.close(in_w)
        while True:
            try:
                _, _, ru = os.wait4(-1, 0)
                reaped += ru.ru_utime + ru.ru_stime
            except ChildProcessError:
                break
        # The tree's sum (what the resident bound watches) only where that bound applies: under
        # RLIMIT_AS the peak is the largest process's, as in a sandbox of its own.
        kib = max(usage.ru_maxrss, peak // 1024 if resident else 0)
        put(fd, b"X", b"%d %d %d %d" % (status, round(reaped * 1000), kib, over))
        return None

    wake = wakeup()
    keepers = {}

    def spawn(slot):
        pid = os.fork()
        if pid == 0:
            argv = None
            try:
                argv = keeper(slot, wake)
            except BaseException as e:
                try:
                    put(first + slot, b"F", ("%s: %s" % (type(e).__name__, e)).encode())
                except BaseException:
                    pass
            if argv is None:
                os._exit(SETUP_FAILED)
            return argv
        keepers[pid] = slot
        return None

    for slot in range(slots):
        argv = spawn(slot)
        if argv is not None:
            return argv
    while True:
        ready = select.select([0, wake[0]], [], [])[0]
        if 0 in ready and not os.read(0, 4096):
            killall()
            os._exit(0)
        if wake[0] in ready:
            os.read(wake[0], 4096)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            slot = keepers.pop(pid, None)
            if slot is None:
                continue
            os.write(3, b"exit %d %d\n" % (slot, status))
            # A keeper that could not make its namespaces is not forked again: vtask falls back.
            if os.waitstatus_to_exitcode(status) != SETUP_FAILED:
                argv = spawn(slot)
                if argv is not None:
                    return argv
def _vtask_end(argv):
    # Ends the program as the interpreter would (threads joined, atexit handlers, output flushed,
    # the program's globals freed), without tearing down every module of the interpreter: that
    # teardown is most of a forked run's CPU, and nothing of it is the program's.
    import os, sys, atexit
    try:
        _vtask_main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    atexit._run_exitfuncs()
    sys.modules["__main__"].__dict__.clear()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = 120
    os._exit(code & 0xFF)
_vtask_end(_vtask_zygote())
`;
