"""Scores (task, response) pairs with Ray Data, one ``vtask serve`` per Ray node.

    python3 ray_score.py ROWS.parquet CASES.json TASKS_DIR PIDS_FILE OUT.json

ROWS are ``vtask export --format trl`` rows; CASES are ``{"task_id", "response"}`` pairs joined
to them. ``VTASK_CLI`` names a command that appends its pid to PIDS_FILE and runs vtask, so the
servers can be counted and watched until they exit after ``ray.shutdown()``.
"""

import json
import logging
import os
import select
import sys
import time

t0 = time.monotonic()
import ray  # noqa: E402

from vtask_reward.ray import score_dataset  # noqa: E402

rows_path, cases_path, tasks_dir, pids_path, out_path = sys.argv[1:6]
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
ray.data.DataContext.get_current().enable_progress_bars = False
t_init = time.monotonic()

responses = {}
for case in json.load(open(cases_path)):
    responses.setdefault(case["task_id"], []).append(case["response"])
# Read, add the responses and score in one pipeline, as a job would: the reading tasks and the
# scoring workers share the 2 CPUs.
pairs = ray.data.read_parquet(rows_path).flat_map(lambda row: [{**row, "response": r} for r in responses.get(row["task_id"], [])])
scored = score_dataset(pairs, tasks=[tasks_dir], concurrency=2, batch_size=4).to_pandas()
t_scored = time.monotonic()

pids = [int(line) for line in open(pids_path)]
ray.shutdown()


def wait_exit(pid, timeout):
    """True once ``pid`` has exited (waits on a pidfd: an event, not a poll), False after ``timeout``."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


deadline = time.monotonic() + 20
still_running = [pid for pid in pids if not wait_exit(pid, max(0.0, deadline - time.monotonic()))]
json.dump({
    "results": scored[["task_id", "response", "vtask_score", "vtask_pass", "vtask_reason"]].to_dict("records"),
    "servers_started": len(pids),
    "servers_running_after_shutdown": still_running,
    "seconds": {"import": round(t_init - t0, 1), "scoring": round(t_scored - t_init, 1)},
}, open(out_path, "w"))
