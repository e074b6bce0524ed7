"""Ray Data scoring throughput beside one ``vtask serve`` without Ray, on the same rows: N rows
scored by one server (``--workers auto``) through the client in batches of 512, then by Ray
Data with each count of workers in WORKERS. Before those, a first small dataset starts the
node's one server (``ray_server_start_s``, with its first worker), so the worker figures compare
workers alone; each still includes starting its workers, as a scoring job pays it. Prints one
JSON object.

    VTASK_CLI="node out/cli.js" python3 scripts/bench_ray.py ROWS.parquet PAIRS.json TASKS_DIR N WORKERS,...
"""

import json
import logging
import sys
import time

import pandas as pd

from vtask_reward.client import Item, prompt_text, verdict_groups, verifier_of
from vtask_reward.ray import VtaskServer

rows_path, pairs_path, tasks_dir, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
counts = [int(w) for w in sys.argv[5].split(",")]

pairs = pd.read_parquet(rows_path).merge(pd.DataFrame(json.load(open(pairs_path))), on="task_id")
table = pd.concat([pairs] * (n // len(pairs) + 1), ignore_index=True).iloc[:n].sample(frac=1, random_state=1)
figures = {"rows": n}

# One server, no Ray: the rows in batches of 512, each one request.
items = [Item(verifier_of(v, s), prompt_text(p), r) for v, s, p, r in zip(table["vtask_verifier"], table["solution"], table["prompt"], table["response"])]
with VtaskServer([tasks_dir], workers="auto") as server:
    t0 = time.monotonic()
    for start in range(0, n, 512):
        verdict_groups(items[start:start + 512], server.client)
    figures["one_server_rows_per_s"] = round(n / (time.monotonic() - t0))

import ray  # noqa: E402

from vtask_reward.ray import score_dataset  # noqa: E402

t0 = time.monotonic()
ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
ray.data.DataContext.get_current().enable_progress_bars = False
figures["ray_init_s"] = round(time.monotonic() - t0, 1)
dataset = ray.data.from_pandas(table).materialize()
t0 = time.monotonic()
score_dataset(ray.data.from_pandas(table.iloc[:512]), tasks=[tasks_dir], concurrency=1, batch_size=512).materialize()
figures["ray_server_start_s"] = round(time.monotonic() - t0, 1)
for workers in counts:
    t0 = time.monotonic()
    scored = score_dataset(dataset, tasks=[tasks_dir], concurrency=workers, batch_size=512).materialize()
    seconds = time.monotonic() - t0
    assert scored.count() == n
    figures[f"ray_{workers}_workers_rows_per_s"] = round(n / seconds)
    figures[f"ray_{workers}_workers_s"] = round(seconds, 1)
ray.shutdown()
print(json.dumps(figures))
