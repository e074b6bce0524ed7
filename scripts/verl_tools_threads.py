"""The verl tool harness with environments started the way they were before the spawn helper:
each request of an ``AsyncEnvironment`` on a thread of a pool, the process started there (the
path ``vtask_reward.environment`` takes where ``spawn`` is unavailable). The baseline of
scripts/bench-verl-tools.mjs.

    python3 scripts/verl_tools_threads.py HARNESS ARGS...
"""

import runpy
import sys

import vtask_reward.spawn

vtask_reward.spawn.available = lambda: False
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
