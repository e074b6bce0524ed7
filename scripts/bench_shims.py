"""Verdicts per second through the Python shims against one ``vtask serve``, each beside its
baseline measured in the same run: the way the shims sent before batching (a new connection per
request, one request per sample, or per distinct verifier and prompt), reimplemented here only.
Prints one JSON object.

    python3 scripts/bench_shims.py ROWS.jsonl PAIRS.json URL ROWS_PER_CASE_SCALE
"""

import json
import random
import sys
import threading
import time
import urllib.request

from vtask_reward.client import Client, Item, prompt_text, verifier_of
from vtask_reward.trl import vtask_reward
from vtask_reward.verl import compute_score, compute_score_batch

rows_path, pairs_path, url, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
rows = {r["task_id"]: r for r in map(json.loads, open(rows_path))}
pairs = [p for p in json.load(open(pairs_path)) if p["task_id"] in rows]
random.seed(1)


def sample(n):
    """``n`` shuffled (row, response) pairs, as a trainer's batch mixes tasks."""
    out = [random.choice(pairs) for _ in range(n)]
    return [(rows[p["task_id"]], p["response"]) for p in out]


def verl_args(row, response):
    extra = {"vtask_verifier": row["vtask_verifier"], "prompt_text": prompt_text(row["prompt"]), "task_id": row["task_id"]}
    return "vtask", response, row["solution"], extra


# The baseline: what the shims did before, one urllib request (a new connection) per group of
# responses sharing a verifier and prompt, and so one per sample for per-sample calls.
def old_post(body):
    req = urllib.request.Request(url + "/verify", data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.loads(res.read())["results"]


def old_grouped(items):
    groups = {}
    for i, item in enumerate(items):
        groups.setdefault(json.dumps([item.verifier, item.prompt], sort_keys=True), (item, []))[1].append(i)
    scores = [None] * len(items)
    for first, members in groups.values():
        results = old_post({"verifier": first.verifier, "prompt": first.prompt or "", "responses": [items[i].response for i in members]})
        for i, v in zip(members, results):
            scores[i] = float(v["score"])
    return scores


def item_of(row, response):
    return Item(verifier_of(row["vtask_verifier"], row["solution"]), prompt_text(row["prompt"]), response)


def rate(n, fn):
    t0 = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t0)


def compare(n, new, baseline, rounds=3):
    """Verdicts/s of the new way and of the baseline, run in turn ``rounds`` times (the median of
    each): a machine whose load changes during the run tilts neither."""
    runs = [(rate(n, new), rate(n, baseline)) for _ in range(rounds)]
    median = lambda xs: round(sorted(xs)[len(xs) // 2])  # noqa: E731
    return {"new": median([a for a, _ in runs]), "baseline": median([b for _, b in runs])}


def threaded(batch, threads, per_row):
    def run():
        chunks = [batch[k::threads] for k in range(threads)]
        workers = [threading.Thread(target=lambda c=c: [per_row(*x) for x in c]) for c in chunks]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return run


def in_chunks(batch, size, fn):
    def run():
        for start in range(0, len(batch), size):
            fn(batch[start:start + size])
    return run


figures = {}
n = lambda k: max(16, int(k * scale))  # noqa: E731
# Warm up the server's workers (and this process) on both ways first, so neither pays for it.
warm = sample(512)
old_grouped([item_of(*x) for x in warm])
compute_score_batch(*map(list, zip(*[verl_args(*x) for x in warm])))

seq = sample(n(200))
figures["verl_per_sample_seq"] = compare(len(seq), lambda: [compute_score(*verl_args(*x)) for x in seq],
                                        lambda: [old_grouped([item_of(*x)]) for x in seq])
par = sample(n(800))
figures["verl_per_sample_16_threads"] = compare(len(par), threaded(par, 16, lambda r, s: compute_score(*verl_args(r, s))),
                                                threaded(par, 16, lambda r, s: old_grouped([item_of(r, s)])))
big = sample(n(4096))


def verl_batch(chunk):
    args = [verl_args(*x) for x in chunk]
    compute_score_batch(*map(list, zip(*args)))


figures["verl_batch_256"] = compare(len(big), in_chunks(big, 256, verl_batch), in_chunks(big, 256, lambda c: old_grouped([item_of(*x) for x in c])))


def trl_call(chunk):
    vtask_reward([r["prompt"] for r, _ in chunk], [s for _, s in chunk], vtask_verifier=[r["vtask_verifier"] for r, _ in chunk],
                 solution=[r["solution"] for r, _ in chunk])


figures["trl_reward_64"] = compare(len(big), in_chunks(big, 64, trl_call), in_chunks(big, 64, lambda c: old_grouped([item_of(*x) for x in c])))
# The server alone: C clients, each with its own client, posting batches of 64 responses.
for clients in (1, 4, 16):
    items = [item_of(*x) for x in big]

    def run_new():
        def worker(part):
            client = Client(url=url)
            for start in range(0, len(part), 64):
                client.verify_many([{"verifier": i.verifier, "prompt": i.prompt, "responses": [i.response]} for i in part[start:start + 64]])
        ts = [threading.Thread(target=worker, args=(items[k::clients],)) for k in range(clients)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    def run_old():
        def worker(part):
            for start in range(0, len(part), 64):
                old_grouped(part[start:start + 64])
        ts = [threading.Thread(target=worker, args=(items[k::clients],)) for k in range(clients)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    figures[f"server_{clients}_clients"] = compare(len(items), run_new, run_old)
print(json.dumps(figures))
