"""vtask environments on the trainer side: the environment protocol of task format section 6.

A row exported from an agent task names its environment by reference (``environment``, a
path relative to the row file, ``environment_args`` as JSON text, ``max_turns``). This module
starts such an environment as a child process and speaks its line protocol::

    env = Environment("./envs/counter.py", base_dir="data")
    tools = env.reset({"start": 3})           # OpenAI-style tool schemas
    env.call("bump", {})                      # {"result": 4} or {"error": "..."}
    env.state()                               # any JSON
    env.reset({"start": 0})                   # a fresh environment, the same process
    env.close()

The process is started once and serves every ``reset`` (each a fresh environment); it is
started again only if it ended. ``AsyncEnvironment`` is the same for asyncio code: nothing it
does blocks the event loop (its processes are started by a helper process, see ``spawn``).
Every process still running when the trainer exits is closed.

An environment is code from the dataset, so it runs in vtask's sandbox: ``vtask env RUN``
(the ``vtask`` command, or ``VTASK_CLI`` such as ``node /path/to/out/cli.js``) starts it there
(its own folder, no network, time and memory limits, as in ``vtask run``) and relays the
protocol; JavaScript module environments and executables alike. Without vtask it is refused,
unless ``isolation="none"`` (or ``VTASK_ENV_ISOLATION=none``) says to run it unsandboxed, with
the trainer's rights (executables and ``.py`` files only). Every request waits at most
``timeout`` seconds.
"""

import asyncio
import atexit
import concurrent.futures
import json
import os
import queue
import subprocess
import sys
import threading
import weakref

from . import spawn
from .client import VtaskError, vtask_command


class EnvironmentFailure(RuntimeError):
    """The environment could not be started, answered badly, or did not answer in time."""


ISOLATIONS = ("vtask", "none")


def _command(path, isolation):
    if isolation == "vtask":
        try:
            return vtask_command() + ["env", os.path.abspath(path)]
        except VtaskError as e:
            raise EnvironmentFailure(
                f"{path}: environments run in vtask's sandbox, and {e}; "
                "isolation='none' (or VTASK_ENV_ISOLATION=none) runs it unsandboxed instead"
            ) from None
    if path.endswith((".js", ".mjs", ".cjs")):
        raise EnvironmentFailure(f"{path}: a JavaScript module environment runs only through vtask (isolation='vtask')")
    if path.endswith(".py"):
        return [sys.executable, path]
    return [path]


def resolve(run, base_dir="."):
    """The environment's path: ``run`` relative to ``base_dir`` (the folder of the row file)."""
    return run if os.path.isabs(run) else os.path.normpath(os.path.join(base_dir, run))


_live = weakref.WeakSet()  # every environment with a process: closed when the trainer exits


def live_environments():
    """How many environments of this process have a running process."""
    return sum(1 for e in list(_live) if e.running())


def close_all():
    """Closes the process of every environment of this process (also run at exit)."""
    for env in list(_live):
        env.close_now() if isinstance(env, AsyncEnvironment) else env.close()


atexit.register(close_all)


def _reply(path, op, line):
    if line is None or line == "":
        raise EnvironmentFailure(f"{path}: the environment ended without answering {op}")
    try:
        return json.loads(line)
    except ValueError:
        raise EnvironmentFailure(f"{path}: answered {op} with a line that is not JSON: {line[:200]!r}") from None


def _tools(path, out):
    tools = out.get("tools") if isinstance(out, dict) else None
    if tools is None and isinstance(out, dict) and isinstance(out.get("error"), str):
        raise EnvironmentFailure(f"{path}: reset failed: {out['error']}")
    if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools):
        raise EnvironmentFailure(f"{path}: reset did not answer {{\"tools\": [{{name, description, parameters}}]}}")
    return tools


def _outcome(out):
    if not isinstance(out, dict) or ("result" not in out and not isinstance(out.get("error"), str)):
        return {"error": f"the environment answered the call with neither result nor error: {json.dumps(out)[:200]}"}
    return out


class Environment:
    """One environment process, reused across rollouts: each ``reset`` asks it for a fresh
    environment (``vtask env`` starts a new one in the sandbox per reset), so the process
    starts once; it is started again only if it has ended."""

    def __init__(self, run, base_dir=".", timeout=30.0, isolation=None):
        self.path = resolve(run, base_dir)
        self.timeout = timeout
        self.isolation = isolation or os.environ.get("VTASK_ENV_ISOLATION") or "vtask"
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"isolation is one of {ISOLATIONS}, not {self.isolation!r}")
        self._proc = None
        self._lines = None
        self._pending = False  # a reset was sent and its reply not read yet

    def running(self):
        return self._proc is not None and self._proc.poll() is None

    def start(self):
        """Starts the process (without waiting for it) unless it is running."""
        if self.running():
            return
        self.close()
        try:
            self._proc = subprocess.Popen(
                _command(self.path, self.isolation), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, bufsize=1, cwd=os.path.dirname(self.path) or ".",
            )
        except OSError as e:
            raise EnvironmentFailure(f"{self.path}: cannot start: {e}") from e
        _live.add(self)
        self._lines = queue.Queue()
        out, lines = self._proc.stdout, self._lines

        def pump():
            for line in out:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def _send(self, message):
        if self._proc is None:
            raise EnvironmentFailure(f"{self.path}: not started (call reset first)")
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except OSError as e:
            self.close()
            raise EnvironmentFailure(f"{self.path}: the environment has ended ({e})") from e

    def _receive(self, op):
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise EnvironmentFailure(f"{self.path}: no answer to {op} within {self.timeout:g} s") from None
        if line is None:
            self.close()
        return _reply(self.path, op, line)

    def _ask(self, message):
        self.finish_reset()
        self._send(message)
        return self._receive(message["op"])

    def _ask_or_reset(self, message):
        # One request as AsyncEnvironment sends it: a reset starts the process when needed.
        if message["op"] == "reset":
            self.begin_reset(message["args"])
            self._pending = False
            return self._receive("reset")
        return self._ask(message)

    def begin_reset(self, args=None):
        """Sends ``reset`` without waiting for its reply (read by ``finish_reset`` or the next
        request): environments reset one after another this way get ready at the same time."""
        self.finish_reset()
        self.start()
        self._send({"op": "reset", "args": args or {}})
        self._pending = True

    def finish_reset(self):
        """The tools of the reset in flight (None when there is none)."""
        if not self._pending:
            return None
        self._pending = False
        return _tools(self.path, self._receive("reset"))

    def reset(self, args=None):
        """A fresh environment (the process started if needed); returns the tools it declares."""
        self.begin_reset(args)
        return self.finish_reset()

    def call(self, tool, args):
        return _outcome(self._ask({"op": "call", "tool": tool, "args": args}))

    def state(self):
        return self._ask({"op": "state"})

    def close(self):
        p, self._proc, self._pending = self._proc, None, False
        _live.discard(self)
        if p is not None and p.poll() is None:
            try:
                p.stdin.close()  # the relay closes its environment and exits
                p.wait(timeout=_CLOSE_WAIT)
            except (OSError, subprocess.TimeoutExpired):
                p.kill()
                p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncEnvironment:
    """``Environment`` for asyncio code (verl's agent loop): nothing it does blocks the event loop.
    Its process is started by a helper process (``spawn``: starting one from the trainer's
    process would hold the interpreter lock until the child runs), its pipes are read and
    written by the loop, an answer of over 1 MiB is parsed on a thread, and every wait is
    bounded by ``timeout``; one request at a time per environment. Where ``spawn`` is not
    available (not Linux), each request runs on a thread of a pool instead."""

    _pool = concurrent.futures.ThreadPoolExecutor(max_workers=128, thread_name_prefix="vtask-env")

    def __init__(self, run, base_dir=".", timeout=30.0, isolation=None):
        self._env = Environment(run, base_dir, timeout, isolation)  # the checks, and the fallback
        self.path, self.timeout, self.isolation = self._env.path, timeout, self._env.isolation
        self._child = None
        self._lock = None

    def running(self):
        return self._child.running() if self._child is not None else self._env.running()

    async def _ask(self, message):
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # the protocol has no request ids: one request at a time
            if not spawn.available():
                return await asyncio.get_running_loop().run_in_executor(self._pool, self._env._ask_or_reset, message)
            if message["op"] == "reset" and not self.running():
                await self._start()
            if self._child is None:
                raise EnvironmentFailure(f"{self.path}: not started (call reset first)")
            self._child.stdin.write((json.dumps(message) + "\n").encode())
            try:
                line = await asyncio.wait_for(self._child.stdout.readline(), self.timeout)
            except asyncio.TimeoutError:
                await self.close()
                raise EnvironmentFailure(f"{self.path}: no answer to {message['op']} within {self.timeout:g} s") from None
            except ValueError:  # asyncio's limit on a line
                await self.close()
                raise EnvironmentFailure(f"{self.path}: answered {message['op']} with a line over {spawn.LINE_LIMIT} bytes") from None
            if not line:
                await self.close()
            text = line.decode("utf-8", "replace")
            if len(line) > _PARSE_ON_LOOP:
                return await asyncio.get_running_loop().run_in_executor(self._pool, _reply, self.path, message["op"], text)
            return _reply(self.path, message["op"], text)

    async def _start(self):
        await self.close()
        command = _command(self.path, self.isolation)
        try:
            self._child = await spawn.spawn(command, os.path.dirname(self.path) or ".")
        except OSError as e:
            raise EnvironmentFailure(f"{self.path}: cannot start: {e}") from e
        _live.add(self)

    async def reset(self, args=None):
        return _tools(self.path, await self._ask({"op": "reset", "args": args or {}}))

    async def call(self, tool, args):
        return _outcome(await self._ask({"op": "call", "tool": tool, "args": args}))

    async def state(self):
        return await self._ask({"op": "state"})

    async def close(self):
        child, self._child = self._child, None
        _live.discard(self)
        if child is None:
            if self._env.running():
                await asyncio.get_running_loop().run_in_executor(self._pool, self._env.close)
            return
        child.close_stdin()  # the relay closes its environment and exits
        if not await child.exited(_CLOSE_WAIT):
            child.kill()
            await child.exited(_CLOSE_WAIT)
        child.forget()

    def close_now(self):
        """``close`` without an event loop (at interpreter exit)."""
        child, self._child = self._child, None
        _live.discard(self)
        if child is None:
            return self._env.close()
        child.close_stdin()
        if not child.wait_sync(_CLOSE_WAIT):
            child.kill()
            child.wait_sync(_CLOSE_WAIT)
        child.forget()


_PARSE_ON_LOOP = 1024 * 1024  # an answer longer than this (bytes) is parsed on a thread
_CLOSE_WAIT = 5.0  # seconds a process gets to end after its stdin closed, before it is killed


def openai_tool(tool):
    """A tool as the OpenAI chat API (and verl's tool config) writes it."""
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
        },
    }


def args_of(environment_args):
    """The reset arguments of a row: JSON text (as vtask exports them) or a mapping."""
    if not environment_args:
        return {}
    return json.loads(environment_args) if isinstance(environment_args, str) else dict(environment_args)
