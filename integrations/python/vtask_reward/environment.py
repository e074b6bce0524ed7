"""vtask environments on the trainer side: the environment protocol of task format section 6.

A row exported from an agent task names its environment by reference (``environment``, a
path relative to the row file, ``environment_args`` as JSON text, ``max_turns``). This module
starts such an environment as a child process and speaks its line protocol::

    env = Environment("./envs/counter.py", base_dir="data")
    tools = env.reset({"start": 3})           # OpenAI-style tool schemas
    env.call("bump", {})                      # {"result": 4} or {"error": "..."}
    env.state()                               # any JSON
    env.close()

An environment is code from the dataset, so it runs in vtask's sandbox: ``vtask env RUN``
(the ``vtask`` command, or ``VTASK_CLI`` such as ``node /path/to/out/cli.js``) starts it there
(its own folder, no network, time and memory limits, as in ``vtask run``) and relays the
protocol; JavaScript module environments and executables alike. Without vtask it is refused,
unless ``isolation="none"`` (or ``VTASK_ENV_ISOLATION=none``) says to run it unsandboxed, with
the trainer's rights (executables and ``.py`` files only). Every request waits at most
``timeout`` seconds.
"""

import json
import os
import queue
import subprocess
import sys
import threading

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


class Environment:
    def __init__(self, run, base_dir=".", timeout=30.0, isolation=None):
        self.path = resolve(run, base_dir)
        self.timeout = timeout
        self.isolation = isolation or os.environ.get("VTASK_ENV_ISOLATION") or "vtask"
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"isolation is one of {ISOLATIONS}, not {self.isolation!r}")
        self._proc = None
        self._lines = None

    def _start(self):
        self.close()
        try:
            self._proc = subprocess.Popen(
                _command(self.path, self.isolation), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, bufsize=1, cwd=os.path.dirname(self.path) or ".",
            )
        except OSError as e:
            raise EnvironmentFailure(f"{self.path}: cannot start: {e}") from e
        self._lines = queue.Queue()
        out, lines = self._proc.stdout, self._lines

        def pump():
            for line in out:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def _ask(self, message):
        if self._proc is None:
            raise EnvironmentFailure(f"{self.path}: not started (call reset first)")
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except OSError as e:
            raise EnvironmentFailure(f"{self.path}: the environment has ended ({e})") from e
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise EnvironmentFailure(f"{self.path}: no answer to {message['op']} within {self.timeout:g} s") from None
        if line is None:
            raise EnvironmentFailure(f"{self.path}: the environment ended without answering {message['op']}")
        try:
            return json.loads(line)
        except ValueError:
            raise EnvironmentFailure(f"{self.path}: answered {message['op']} with a line that is not JSON: {line[:200]!r}") from None

    def reset(self, args=None):
        """Starts a fresh process and resets it; returns the tools it declares."""
        self._start()
        out = self._ask({"op": "reset", "args": args or {}})
        tools = out.get("tools") if isinstance(out, dict) else None
        if tools is None and isinstance(out, dict) and isinstance(out.get("error"), str):
            raise EnvironmentFailure(f"{self.path}: reset failed: {out['error']}")
        if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools):
            raise EnvironmentFailure(f"{self.path}: reset did not answer {{\"tools\": [{{name, description, parameters}}]}}")
        return tools

    def call(self, tool, args):
        out = self._ask({"op": "call", "tool": tool, "args": args})
        if not isinstance(out, dict) or ("result" not in out and not isinstance(out.get("error"), str)):
            return {"error": f"the environment answered the call with neither result nor error: {json.dumps(out)[:200]}"}
        return out

    def state(self):
        return self._ask({"op": "state"})

    def close(self):
        p, self._proc = self._proc, None
        if p is not None and p.poll() is None:
            try:
                p.stdin.close()
                p.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                p.kill()
                p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


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
