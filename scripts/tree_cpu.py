"""CPU seconds of this process and every process it started, by role, read from /proc: the
benchmarks that start servers and Ray clusters say where the CPU goes, a fact about the work
where a shared machine makes wall-clock rates swing.

    meter = TreeCpu(roles).start()     # roles: [(name, test(cmdline) -> bool)], first match wins
    with meter.phase() as spent:       # once the block ends: spent.cpu {role: seconds},
        ...                            # spent.started {role: processes started}

A process's CPU is read from its own ``/proc/PID/stat`` (user + system, its threads included),
sampled every ``interval`` seconds, so a process that starts and ends inside a phase (a Ray
worker) is counted up to its last sample: at most ``interval`` of its CPU is missed.
"""

import os
import threading
from contextlib import contextmanager

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    """(ppid, start time, CPU ticks) of ``pid``, or None once it has gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), int(fields[19]), int(fields[11]) + int(fields[12])


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


class TreeCpu:
    def __init__(self, roles, root=None, interval=0.2, provisional=("other",)):
        # provisional: roles looked at again at each sample (a Ray worker process starts idle and
        # renames itself to the actor or task it runs).
        self.roles = list(roles)
        self.provisional = frozenset(provisional) | {"other"}
        self.root = root or os.getpid()
        self.interval = interval
        self.seen = {}  # (pid, start time) -> [role, ticks at the last sample]
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def _role(self, pid):
        if pid == self.root:
            return "driver"
        line = _cmdline(pid)
        return next((name for name, test in self.roles if test(line)), "other")

    def sample(self):
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                s = _stat(int(entry))
                if s is not None:
                    stats[int(entry)] = s
        children = {}
        for pid, (ppid, _, _) in stats.items():
            children.setdefault(ppid, []).append(pid)
        tree, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, ()))
        with self._lock:
            for pid in tree:
                if pid not in stats:
                    continue
                _, started, ticks = stats[pid]
                known = self.seen.get((pid, started))
                if known is None:
                    self.seen[(pid, started)] = [self._role(pid), ticks]
                else:
                    if known[0] in self.provisional:
                        known[0] = self._role(pid)
                    known[1] = ticks

    def _run(self):
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self):
        self.sample()
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def stop(self):
        self._stop.set()

    def _totals(self):
        with self._lock:
            return {key: (role, ticks) for key, (role, ticks) in self.seen.items()}

    @contextmanager
    def phase(self):
        """Yields a ``Spent``: once the block ends, the CPU seconds each role spent in it and the
        processes of each role that started in it."""
        self.sample()
        before = self._totals()
        spent = Spent()
        yield spent
        self.sample()
        for key, (role, ticks) in self._totals().items():
            if key not in before:
                spent.started[role] = spent.started.get(role, 0) + 1
            used = ticks - before.get(key, (role, 0))[1]
            if used:
                spent.cpu[role] = spent.cpu.get(role, 0.0) + used / TICK


class Spent:
    def __init__(self):
        self.cpu = {}  # role -> CPU seconds
        self.started = {}  # role -> processes started
