"""Scores exported rows through one trainer path, exactly as that trainer calls it.

    python3 verdict_matrix.py PATH ENTRIES.json OUT.json [ROWS | GRADER | TASKS_DIR SERVE_OPTION...]

ENTRIES is a list of ``{"key", "row", "response", "calls"}``: a row as ``vtask export`` wrote it,
a case's response and, for agent tasks, the case's tool calls (``[{tool: args}]``, a list being
one turn of parallel calls). PATH is one of:

- ``verl``: ``compute_score(data_source, solution_str, ground_truth, extra_info)`` per sample, and
  ``compute_score_batch`` by keyword over the whole batch, as verl's reward managers call them;
- ``trl``: ``vtask_reward`` once over the batch with every column as a keyword, as GRPOTrainer
  calls it, with ``environments`` from ``trl_environments`` in which each case's calls were made
  through the environment's tool methods (what the model's tool calls run);
- ``open-instruct``: ``VtaskVerifier()(tokenized_prediction, prediction, label)`` per row;
- ``openai-rft``: the python grader's ``grade(sample, item)`` from ``ROWS.grader.json``;
- ``ray``: ``score_dataset`` over the rows with a ``response`` column (its own ``vtask serve``
  of TASKS_DIR, with the ``vtask serve`` options that follow it).

OUT maps each key to its score (and ``undecided``, and for TRL agent rows the trajectory sent).
"""

import json
import logging
import os
import sys

path, entries_path, out_path = sys.argv[1:4]
entries = json.load(open(entries_path))
out = {}


def chat(response):
    return [{"role": "assistant", "content": response}]


if path == "verl":
    from vtask_reward.client import undecided_count
    from vtask_reward.verl import compute_score, compute_score_batch

    for e in entries:
        r = e["row"]
        one = compute_score(r["data_source"], e["response"], r["reward_model"]["ground_truth"], r["extra_info"])
        out[e["key"]] = {"score": one["score"], "undecided": one["vtask_undecided"]}
    batch = compute_score_batch(
        data_sources=[e["row"]["data_source"] for e in entries], solution_strs=[e["response"] for e in entries],
        ground_truths=[e["row"]["reward_model"]["ground_truth"] for e in entries], extra_infos=[e["row"]["extra_info"] for e in entries],
    )
    for e, b in zip(entries, batch):
        out[e["key"]]["batch"] = b["score"]
    out["_undecided"] = undecided_count()
elif path == "trl":
    from vtask_reward.trl import vtask_reward
    from vtask_reward.trl_env import trl_environments

    base_dir = os.path.dirname(os.path.abspath(sys.argv[4]))
    rows = [e["row"] for e in entries]
    factories = trl_environments(rows, base_dir=base_dir) if any(r.get("environment") for r in rows) else {None: None}
    environments = []
    for e in entries:
        factory = factories[e["row"].get("environment")]
        env = factory() if factory else None
        if env is not None:
            env.reset(**{k: v for k, v in e["row"].items() if k != "environment"})  # as GRPOTrainer resets it
            for turn in e.get("calls") or []:
                for call in turn if isinstance(turn, list) else [turn]:
                    (tool, args), = call.items()
                    try:
                        getattr(env, tool)(**(args or {}))
                    except AttributeError:
                        pass  # a tool the environment does not have: TRL answers the model, no call is made
        environments.append(env)
    columns = {k: [r.get(k) for r in rows] for k in {k for r in rows for k in r} - {"prompt"}}
    metrics = []
    scores = vtask_reward(
        prompts=[r["prompt"] for r in rows], completions=[chat(e["response"]) for e in entries],
        environments=environments if any(environments) else None, log_metric=lambda name, value: metrics.append([name, value]),
        **columns,
    )
    for e, s, env in zip(entries, scores, environments):
        record = getattr(env, "_vtask_trajectory", None)
        out[e["key"]] = {"score": s, "trajectory": record() if callable(record) else None}
    out["_metrics"] = metrics
elif path == "open-instruct":
    from vtask_reward.open_instruct import VtaskVerifier

    verifier = VtaskVerifier()
    for e in entries:
        out[e["key"]] = {"score": verifier([], e["response"], e["row"]["ground_truth"]).score}
elif path == "openai-rft":
    namespace = {}
    exec(json.load(open(sys.argv[4]))["source"], namespace)
    for e in entries:
        out[e["key"]] = {"score": namespace["grade"]({"output_text": e["response"]}, e["row"])}
elif path == "ray":
    import ray
    from vtask_reward.ray import score_dataset

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    ray.data.DataContext.get_current().enable_progress_bars = False
    items = [{**e["row"], "response": e["response"], "matrix_key": e["key"]} for e in entries]
    scored = score_dataset(ray.data.from_items(items), tasks=[sys.argv[4]], concurrency=1, batch_size=len(items),
                           serve_args=sys.argv[5:]).to_pandas()
    for _, r in scored.iterrows():
        out[r["matrix_key"]] = {"score": float(r["vtask_score"]), "undecided": bool(r["vtask_undecided"])}
    ray.shutdown()
else:
    sys.exit(f"unknown path {path}")

json.dump(out, open(out_path, "w"))
