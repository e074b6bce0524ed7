"""Scores (task, response) pairs with Ray Data, one ``vtask serve`` per Ray node.

    python3 ray_score.py ROWS.parquet CASES.json TASKS_DIR PIDS_FILE OUT.json

ROWS are ``vtask export --format trl`` rows; CASES are ``{"task_id", "response"}`` pairs joined
to them. ``VTASK_CLI`` names a command that appends its pid to PIDS_FILE and runs vtask, so the
servers can be counted and watched until they exit after ``ray.shutdown()``.

Three datasets: the pairs read, joined and scored in one pipeline (2 workers, blocks of 4); the
same pairs again as a second dataset of the job (one worker), which must reuse the node's server;
and the pairs as one Arrow block scored in blocks of 8 by a server of one process (``workers=1``),
whose ``/health`` counts the ``/verify`` requests it took: one per block, whatever its verifiers.
"""

import json
import logging
import math
import os
import select
import sys
import time

import pandas as pd
import pyarrow as pa

t0 = time.monotonic()
import ray  # noqa: E402

from vtask_reward.client import Client  # noqa: E402
from vtask_reward.ray import node_server_url, score_dataset  # noqa: E402

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
columns = ["task_id", "response", "vtask_score", "vtask_pass"]
# The second dataset with the defaults: twice the CPUs in scoring tasks, each reserving a quarter
# of one, beside the reading tasks of the same pipeline.
again = score_dataset(pairs, tasks=[tasks_dir]).to_pandas()
servers_after_second_dataset = len(open(pids_path).readlines())

# One block of every pair, in an order that mixes the verifiers; a server of one process, so its
# /health counts every request.
BLOCK = 8
table = pd.read_parquet(rows_path).merge(pd.DataFrame(json.load(open(cases_path))), on="task_id").sample(frac=1, random_state=3)
one_block = ray.data.from_arrow(pa.Table.from_pandas(table, preserve_index=False)).materialize()
by_block = score_dataset(one_block, tasks=[tasks_dir], concurrency=2, batch_size=BLOCK, workers=1).to_pandas()
health = Client(url=node_server_url([tasks_dir], workers=1)).health()
verifiers_per_block = [table["vtask_verifier"].iloc[k:k + BLOCK].nunique() for k in range(0, len(table), BLOCK)]

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
    "servers_after_second_dataset": servers_after_second_dataset,
    "second_dataset_agrees": sorted(map(tuple, again[columns].values.tolist())) == sorted(map(tuple, scored[columns].values.tolist())),
    "one_block": {
        "rows": len(table),
        "blocks": math.ceil(len(table) / BLOCK),
        "verifiers_per_block": verifiers_per_block,
        "verify_requests": health["verify_requests"],
        "agrees": sorted(map(tuple, by_block[columns].values.tolist())) == sorted(map(tuple, scored[columns].values.tolist())),
    },
    "servers_running_after_shutdown": still_running,
    "seconds": {"import": round(t_init - t0, 1), "scoring": round(t_scored - t_init, 1)},
}, open(out_path, "w"))
