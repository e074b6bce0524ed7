"""Child processes for asyncio code, started by a helper process so the trainer never forks.

Starting a process from Python (``subprocess``, ``asyncio.create_subprocess_exec``) holds the
interpreter lock until the child has called exec; on a busy machine the child may wait to be
scheduled, and meanwhile the event loop of every thread waits too: 16 environments started at
once held verl's loop for most of a second. So one helper process (this file, run as a script)
starts the children: the trainer sends it the command over a socket and gets back the pid and
the ends of the child's stdin and stdout pipes (``SCM_RIGHTS``); it watches the child's exit
through a pidfd. Every wait is an asyncio wait. The helper reaps its children, and exits when
the trainer's end of the socket closes.

Linux only (pidfd, Python 3.9+): ``available()`` says whether it can be used here.
"""

import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading

LINE_LIMIT = 64 * 1024 * 1024  # an environment's answer is one JSON line, sometimes large


def available():
    """Whether children can be started this way (Linux with pidfds, Python 3.9+)."""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


class Child:
    """A process the helper started: its pid, its stdin (a write transport), its stdout (a reader)."""

    def __init__(self, pid, pidfd, stdin, stdout):
        self.pid, self._pidfd, self.stdin, self.stdout = pid, pidfd, stdin, stdout

    def close_stdin(self):
        """Closes the child's stdin (an environment relay then ends), also once the loop has closed."""
        pipe = self.stdin.get_extra_info("pipe")
        try:
            self.stdin.close()
        except RuntimeError:  # the event loop is closed (interpreter exit): close the pipe itself
            if pipe is not None:
                pipe.close()

    def running(self):
        return self._pidfd is not None and not _readable(self._pidfd, 0)

    async def exited(self, timeout):
        """Whether the process ended within ``timeout`` seconds (its pidfd turns readable)."""
        if not self.running():
            return True
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.add_reader(self._pidfd, lambda: done.done() or done.set_result(None))
        try:
            await asyncio.wait_for(done, timeout)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            loop.remove_reader(self._pidfd)

    def kill(self):
        if self.running():
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def wait_sync(self, timeout):
        """``exited`` without an event loop (at interpreter exit)."""
        return not self.running() or _readable(self._pidfd, timeout)

    def forget(self):
        """Closes the pidfd (the process is no longer watched)."""
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


def _readable(fd, timeout):
    # poll, not select: a trainer may hold over FD_SETSIZE (1,024) descriptors.
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


class _Helper:
    """The helper process and this side's socket to it; one request at a time."""

    def __init__(self):
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen([sys.executable, os.path.abspath(__file__), str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                        stdin=subprocess.DEVNULL, close_fds=True)
        theirs.close()
        ours.setblocking(False)
        self.sock = ours
        self.lock = None  # made on the loop (Python 3.9 binds a lock to the loop it is made on)

    async def spawn(self, argv, cwd):
        loop = asyncio.get_running_loop()
        if self.lock is None:
            self.lock = asyncio.Lock()
        async with self.lock:
            await loop.sock_sendall(self.sock, json.dumps({"argv": argv, "cwd": cwd, "env": dict(os.environ)}).encode() + b"\n")
            answer = loop.create_future()

            def ready():
                try:
                    answer.set_result(socket.recv_fds(self.sock, 65536, 2))
                except BlockingIOError:
                    return
                except OSError as e:
                    answer.set_exception(e)
                loop.remove_reader(self.sock.fileno())

            loop.add_reader(self.sock.fileno(), ready)
            try:
                message, fds, _, _ = await answer
            finally:
                loop.remove_reader(self.sock.fileno())
        if not message:
            raise OSError("the process starter has ended")
        reply = json.loads(message)
        if "error" in reply:
            raise OSError(reply["error"])
        stdin_fd, stdout_fd = fds
        try:
            pidfd = os.pidfd_open(reply["pid"])
        except ProcessLookupError:  # it has already ended (and been reaped): its pipes say the rest
            pidfd = None
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(stdout_fd, "rb", 0))
        writer, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(stdin_fd, "wb", 0))
        return Child(reply["pid"], pidfd, writer, reader)


_helpers = {}  # event loop -> its helper (a lock and a socket belong to one loop)
_started = threading.Lock()


async def spawn(argv, cwd):
    """Starts ``argv`` in ``cwd`` (stderr discarded); returns its ``Child``. Raises ``OSError``."""
    loop = asyncio.get_running_loop()
    helper = _helpers.get(loop)
    if helper is None or helper.process.poll() is not None:
        # The helper itself is started once per loop, off the loop.
        helper = await loop.run_in_executor(None, _new_helper, loop)
    return await helper.spawn(argv, cwd)


def _new_helper(loop):
    with _started:
        helper = _helpers.get(loop)
        if helper is None or helper.process.poll() is not None:
            helper = _helpers[loop] = _Helper()
        return helper


def helper_pids():
    """The pids of this process's helpers (a test tells them from the children they started)."""
    return [h.process.pid for h in _helpers.values() if h.process.poll() is None]


def _serve(fd):
    """The helper: starts each requested command with pipes for stdin and stdout, sends back the
    pid and the pipes' other ends, and reaps the children as they end."""
    os.set_inheritable(fd, False)  # the children get their pipes only
    sock = socket.socket(fileno=fd)
    children = threading.Condition()
    count = [0]

    def reap():
        while True:
            with children:
                while count[0] == 0:
                    children.wait()
            try:
                os.wait()
            except ChildProcessError:
                pass
            with children:
                count[0] -= 1

    threading.Thread(target=reap, daemon=True).start()
    for line in sock.makefile("rb"):
        request = json.loads(line)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.chdir(request["cwd"])
            pid = os.posix_spawnp(request["argv"][0], request["argv"], request["env"], file_actions=[
                (os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
            with children:
                count[0] += 1
                children.notify()
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [in_w, out_r])
        except OSError as e:
            socket.send_fds(sock, [json.dumps({"error": f"{request['argv'][0]}: {e.strerror or e}"}).encode()], [])
        for f in (in_r, in_w, out_r, out_w, devnull):
            os.close(f)


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
