"""Ray Data scoring throughput: ROWS rows scored by WORKERS Ray workers, each with its own
``vtask serve`` (``vtask_reward.ray.score_dataset``). Prints one JSON object.

    VTASK_CLI="node out/cli.js" python3 scripts/bench_ray.py ROWS.parquet PAIRS.json TASKS_DIR N WORKERS
"""

import json
import logging
import sys
import time

import pandas as pd
import ray

from vtask_reward.ray import score_dataset

rows_path, pairs_path, tasks_dir, n, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
t0 = time.monotonic()
ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
ray.data.DataContext.get_current().enable_progress_bars = False
init_s = time.monotonic() - t0

pairs = pd.read_parquet(rows_path).merge(pd.DataFrame(json.load(open(pairs_path))), on="task_id")
table = pd.concat([pairs] * (n // len(pairs) + 1), ignore_index=True).iloc[:n]
dataset = ray.data.from_pandas(table).materialize()
t0 = time.monotonic()
scored = score_dataset(dataset, tasks=[tasks_dir], concurrency=workers, batch_size=512).materialize()
score_s = time.monotonic() - t0
assert scored.count() == n
ray.shutdown()
print(json.dumps({
    "rows": n, "workers": workers, "ray_init_s": round(init_s, 1), "score_s": round(score_s, 1),
    "verdicts_per_s": round(n / score_s),
}))
