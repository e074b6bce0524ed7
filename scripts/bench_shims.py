"""Verdicts per second through the Python shims against one ``vtask serve``, each beside its
baseline measured in the same run: the way the shims sent before batching (a new connection per
request, one request per sample, or per distinct verifier and prompt), reimplemented here only.
Each figure also gives the CPU per verdict of this process and of the server's processes (from
/proc): a fact about the work, where a loaded machine makes the rates swing. Prints one JSON object.

    python3 scripts/bench_shims.py ROWS.jsonl PAIRS.json URL ROWS_PER_CASE_SCALE SERVER_PIDS [URL_ONE_WORKER]

URL is `vtask serve --workers auto`; URL_ONE_WORKER, the same files served by one process;
SERVER_PIDS, the two servers' process ids (comma-separated).
"""

import json
import os
import random
import sys
import threading
import time
import urllib.request

from vtask_reward.client import Client, Item, prompt_text, verifier_of
from vtask_reward.trl import vtask_reward
from vtask_reward.verl import compute_score, compute_score_batch

rows_path, pairs_path, url, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
server_pids = [int(p) for p in sys.argv[5].split(",")]
one_worker = sys.argv[6] if len(sys.argv) > 6 else None
rows = {r["task_id"]: r for r in map(json.loads, open(rows_path))}
pairs = [p for p in json.load(open(pairs_path)) if p["task_id"] in rows]
random.seed(1)
TICK = os.sysconf("SC_CLK_TCK")


def sample(n):
    """``n`` shuffled (row, response) pairs, as a trainer's batch mixes tasks."""
    out = [random.choice(pairs) for _ in range(n)]
    return [(rows[p["task_id"]], p["response"]) for p in out]


def verl_args(row, response):
    extra = {"vtask_verifier": row["vtask_verifier"], "prompt_text": prompt_text(row["prompt"]), "task_id": row["task_id"]}
    return "vtask", response, row["solution"], extra


# The baseline: what the shims did before, one urllib request (a new connection) per group of
# responses sharing a verifier and prompt, and so one per sample for per-sample calls.
def old_post(target, body):
    req = urllib.request.Request(target + "/verify", data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.loads(res.read())["results"]


def old_grouped(items, target=url):
    groups = {}
    for i, item in enumerate(items):
        groups.setdefault(json.dumps([item.verifier, item.prompt], sort_keys=True), (item, []))[1].append(i)
    scores = [None] * len(items)
    for first, members in groups.values():
        results = old_post(target, {"verifier": first.verifier, "prompt": first.prompt or "", "responses": [items[i].response for i in members]})
        for i, v in zip(members, results):
            scores[i] = float(v["score"])
    return scores


def item_of(row, response):
    return Item(verifier_of(row["vtask_verifier"], row["solution"]), prompt_text(row["prompt"]), response)


def tree_cpu(pid):
    """CPU seconds used so far by ``pid`` and its living children (a server's workers)."""
    def own(p):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            return 0.0
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        children = []
    return own(pid) + sum(own(c) for c in children)


def server_cpu():
    return sum(tree_cpu(p) for p in server_pids)


def compare(samples, ways, slices=8):
    """Verdicts/s of each way (``{name: fn(samples)}``) over ``samples``, and its CPU ms per verdict
    here and in the servers. The samples are cut in ``slices`` and every way runs each slice in
    turn (the order rotating), so a machine whose load swings from second to second (another
    user's job starting) lands on every way alike instead of on whichever ran then."""
    names = list(ways)
    spent = {name: [0.0, 0.0, 0.0] for name in names}  # wall, this process's CPU, the server's CPU
    size = -(-len(samples) // slices)
    for k, start in enumerate(range(0, len(samples), size)):
        chunk = samples[start:start + size]
        for name in names[k % len(names):] + names[:k % len(names)]:
            w0, c0, s0 = time.perf_counter(), time.process_time(), server_cpu()
            ways[name](chunk)
            for i, d in enumerate((time.perf_counter() - w0, time.process_time() - c0, server_cpu() - s0)):
                spent[name][i] += d
    n = len(samples)
    out = {name: round(n / wall) for name, (wall, _, _) in spent.items()}
    out["cpu_ms_per_verdict"] = {name: {"client": round(1000 * c / n, 3), "server": round(1000 * s / n, 3)} for name, (_, c, s) in spent.items()}
    return out


def threaded(threads, per_row):
    def run(batch):
        chunks = [batch[k::threads] for k in range(threads)]
        workers = [threading.Thread(target=lambda c=c: [per_row(*x) for x in c]) for c in chunks]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return run


def in_chunks(size, fn):
    def run(batch):
        for start in range(0, len(batch), size):
            fn(batch[start:start + size])
    return run


figures = {}
n = lambda k: max(16, int(k * scale))  # noqa: E731
# Warm up the server's workers (and this process) on both ways first, so neither pays for it.
warm = sample(512)
old_grouped([item_of(*x) for x in warm])
compute_score_batch(*map(list, zip(*[verl_args(*x) for x in warm])))

figures["verl_per_sample_seq"] = compare(sample(n(600)), {
    "new": lambda batch: [compute_score(*verl_args(*x)) for x in batch],
    "baseline": lambda batch: [old_grouped([item_of(*x)]) for x in batch],
}, slices=24)
figures["verl_per_sample_16_threads"] = compare(sample(n(1600)), {
    "new": threaded(16, lambda r, s: compute_score(*verl_args(r, s))),
    "baseline": threaded(16, lambda r, s: old_grouped([item_of(r, s)])),
})
big = sample(n(8192))


def verl_batch(chunk):
    args = [verl_args(*x) for x in chunk]
    compute_score_batch(*map(list, zip(*args)))


figures["verl_batch_256"] = compare(big, {"new": in_chunks(256, verl_batch), "baseline": in_chunks(256, lambda c: old_grouped([item_of(*x) for x in c]))})


def trl_call(chunk):
    vtask_reward([r["prompt"] for r, _ in chunk], [s for _, s in chunk], vtask_verifier=[r["vtask_verifier"] for r, _ in chunk],
                 solution=[r["solution"] for r, _ in chunk])


figures["trl_reward_64"] = compare(big, {"new": in_chunks(64, trl_call), "baseline": in_chunks(64, lambda c: old_grouped([item_of(*x) for x in c]))})


def clients_of(count, target, post):
    """``count`` client threads, each posting its share of a batch 64 responses at a time."""
    def run(batch):
        items = [item_of(*x) for x in batch]
        ts = [threading.Thread(target=post, args=(target, items[k::count])) for k in range(count)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return run


def post_new(target, part):
    client = Client(url=target)
    for start in range(0, len(part), 64):
        client.verify_many([{"verifier": i.verifier, "prompt": i.prompt, "responses": [i.response]} for i in part[start:start + 64]])


def post_old(target, part):
    for start in range(0, len(part), 64):
        old_grouped(part[start:start + 64], target)


# The server alone: C clients, each with its own client, posting batches of 64 responses; and
# with 16 clients, `--workers auto` beside the same files served by one process (the default).
for clients in (1, 4, 16):
    figures[f"server_{clients}_clients"] = compare(big, {"new": clients_of(clients, url, post_new), "baseline": clients_of(clients, url, post_old)})
if one_worker:
    figures["server_16_clients_workers"] = compare(big, {"auto": clients_of(16, url, post_new), "one": clients_of(16, one_worker, post_new)})
print(json.dumps(figures))
