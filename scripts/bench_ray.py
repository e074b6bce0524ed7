"""Ray Data scoring throughput beside one ``vtask serve`` without Ray, on the same rows, and where
the CPU goes. Prints one JSON object.

    VTASK_CLI="node out/cli.js" python3 scripts/bench_ray.py ROWS.parquet PAIRS.json TASKS_DIR N WORKERS,... [ROUNDS [BATCH]]

The ways, each on the same N rows (``vtask export --format trl`` rows joined with their cases'
responses, repeated and shuffled):

- ``one_server``: the best a user does without Ray: one ``vtask serve --workers auto`` and the
  package's client given the whole table in one call (``verdict_groups``: rows of one verifier
  and prompt travel together), 4,096 responses per request as Ray's blocks (the client's default
  is 1,024, and the server spends less per row on larger requests), the rows read from the
  table inside the timing, as the Ray workers read theirs;
- ``ray_W``: ``score_dataset`` with W workers sharing the node's server, the rows an Arrow
  dataset in Ray's object store (as ``read_parquet`` hands them on).

The ways take turns, ROUNDS times (3), so a load that swings from second to second lands on each
alike; each gives its median rows/s, its CPU per row by role and the processes it started by role, read from /proc
(``tree_cpu.py``): ``driver`` (this process: the client, or Ray's executor), ``server`` (vtask
serve and its workers), ``scoring`` (Ray's processes running the scoring tasks), ``ray`` (the
rest of Ray: raylet, GCS, agents, idle workers), and the cores it got (its CPU seconds over its
wall seconds, median): on a machine other jobs load, a way's rate is those cores over its CPU
per row. Before the rounds, Ray starts and the job's first dataset (the same rows, with the most
workers) starts the node's server and the scoring workers (``ray_warmup_s``): a job pays that once.
"""

import json
import logging
import os
import statistics
import sys
import time

import pandas as pd
import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tree_cpu import TreeCpu  # noqa: E402

from vtask_reward.client import Client, Item, prompt_text, verdict_groups, verifier_of  # noqa: E402
from vtask_reward.ray import VtaskServer  # noqa: E402

rows_path, pairs_path, tasks_dir, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
counts = [int(w) for w in sys.argv[5].split(",")]
rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 3
# BATCH: score_dataset's batch_size, when not its default.
batch = {"batch_size": int(sys.argv[7])} if len(sys.argv) > 7 and sys.argv[7] != "default" else {}

ROLES = [
    ("server", lambda cmd: " serve " in cmd),
    ("scoring", lambda cmd: cmd.startswith("ray::Map")),
    ("ray", lambda cmd: "ray" in cmd),
]
# A Ray worker process is idle (ray::IDLE) between tasks: its role is looked at again.
meter = TreeCpu(ROLES, provisional=("ray",)).start()

pairs = pd.read_parquet(rows_path).merge(pd.DataFrame(json.load(open(pairs_path))), on="task_id")
table = pd.concat([pairs] * (n // len(pairs) + 1), ignore_index=True).iloc[:n].sample(frac=1, random_state=1)
figures = {"rows": n, "rounds": rounds, **batch}


def one_server(client):
    items = [
        Item(verifier_of(v, s), prompt_text(p), r)
        for v, s, p, r in zip(table["vtask_verifier"], table["solution"], table["prompt"], table["response"])
    ]
    verdicts = verdict_groups(items, client)
    assert len(verdicts) == n


import ray  # noqa: E402

from vtask_reward.ray import score_dataset  # noqa: E402

t0 = time.monotonic()
ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
ray.data.DataContext.get_current().enable_progress_bars = False
figures["ray_init_s"] = round(time.monotonic() - t0, 1)
dataset = ray.data.from_arrow(pa.Table.from_pandas(table, preserve_index=False)).materialize()
t0 = time.monotonic()
score_dataset(dataset, tasks=[tasks_dir], concurrency=max(counts), **batch).materialize()
figures["ray_warmup_s"] = round(time.monotonic() - t0, 1)


def ray_way(workers):
    def run():
        assert score_dataset(dataset, tasks=[tasks_dir], concurrency=workers, **batch).materialize().count() == n

    return run


with VtaskServer([tasks_dir], workers="auto") as server:
    client = Client(url=server.url, batch=4096)
    one_server(client)  # its first run, as Ray's first dataset: the server's code is compiled
    ways = {"one_server": lambda: one_server(client), **{f"ray_{w}": ray_way(w) for w in counts}}
    names = list(ways)
    rates = {name: [] for name in names}
    cpu = {name: {} for name in names}
    started = {name: {} for name in names}
    cores = {name: [] for name in names}
    for k in range(rounds):
        for name in names[k % len(names):] + names[:k % len(names)]:
            with meter.phase() as spent:
                t0 = time.monotonic()
                ways[name]()
                seconds = time.monotonic() - t0
            rates[name].append(round(n / seconds))
            cores[name].append(sum(spent.cpu.values()) / seconds)
            for role, s in spent.cpu.items():
                cpu[name][role] = cpu[name].get(role, 0.0) + s
            for role, count in spent.started.items():
                started[name][role] = started[name].get(role, 0) + count
ray.shutdown()
meter.stop()
for name in names:
    figures[name] = {
        "rows_per_s": round(statistics.median(rates[name])),
        "rows_per_s_each_round": rates[name],
        "cpu_ms_per_row": {role: round(1000 * s / (n * rounds), 4) for role, s in sorted(cpu[name].items())},
        "cpu_ms_per_row_total": round(1000 * sum(cpu[name].values()) / (n * rounds), 4),
        "processes_started": started[name],
        "cores": round(statistics.median(cores[name]), 2),
    }
print(json.dumps(figures))
