"""The living descendants of this process (zombies excluded), read from /proc: what a test
checks to see that no environment process outlived its run."""

import os


def descendants():
    parent = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parent[int(pid)] = int(fields[1])
    mine, grew = {os.getpid()}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in mine} - mine
        mine |= more
        grew = bool(more)
    return sorted(mine - {os.getpid()})
