"""verl's ``custom_reward_function``: rows exported by ``vtask export --format verl``.

    custom_reward_function:
      path: /path/to/vtask_reward/verl.py
      name: compute_score            # per sample: reward_model.reward_manager naive, prime or dapo

``compute_score`` answers a dict, which those reward managers read as ``score`` plus extra
metrics: ``vtask_undecided`` is 1 for a verdict that could not be given (scored 0; logged, or
raised with ``VTASK_UNDECIDED=raise``), so a run training on such zeros shows it.
``compute_score_batch`` takes the same arguments as lists, by keyword (``data_sources``,
``solution_strs``, ``ground_truths``, ``extra_infos``), for a reward manager that scores a whole
batch in one call: one HTTP request per 1,024 responses, whatever their verifiers. Both keep one
connection alive per thread (no TCP connection per sample).
"""

try:  # verl loads this file by path, outside the package
    from .client import Item, default_client, is_undecided, verdict_groups, verifier_of
except ImportError:  # pragma: no cover - exercised when verl imports the file directly
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from vtask_reward.client import Item, default_client, is_undecided, verdict_groups, verifier_of


def _item(solution_str, ground_truth, extra_info):
    extra = extra_info or {}
    # The prompt (last user message) is what a judge and `repeat_prompt`-like checks read.
    return Item(
        verifier_of(extra.get("vtask_verifier"), ground_truth), extra.get("prompt_text") or "", solution_str,
        task=extra.get("task_id"), file=extra.get("file"),
    )


def _result(verdict):
    return {"score": float(verdict["score"]), "vtask_undecided": 1 if is_undecided(verdict) else 0}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, undecided=None, **kwargs):
    """The vtask verdict of one response: ``{"score": 0 to 1, "vtask_undecided": 0 or 1}``."""
    return _result(verdict_groups([_item(solution_str, ground_truth, extra_info)], default_client(), undecided)[0])


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, undecided=None, **kwargs):
    """The results of a batch, as ``compute_score`` gives each: one request for the batch (per 1,024 responses)."""
    items = [_item(s, gt, extra) for s, gt, extra in zip(solution_strs, ground_truths, extra_infos)]
    return [_result(v) for v in verdict_groups(items, default_client(), undecided)]
