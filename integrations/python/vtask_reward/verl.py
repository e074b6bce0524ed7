"""verl's ``custom_reward_function``: rows exported by ``vtask export --format verl``.

    custom_reward_function:
      path: /path/to/vtask_reward/verl.py
      name: compute_score            # or compute_score_batch with reward_model.reward_manager=batch
"""

try:  # verl loads this file by path, outside the package
    from .client import default_client, score_groups, verifier_of
except ImportError:  # pragma: no cover - exercised when verl imports the file directly
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from vtask_reward.client import default_client, score_groups, verifier_of


def _prompt(extra_info):
    return (extra_info or {}).get("prompt_text") or ""


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """The vtask score (0 to 1) of one response."""
    verifier = verifier_of((extra_info or {}).get("vtask_verifier"), ground_truth)
    result = default_client().verify([solution_str], verifier=verifier, prompt=_prompt(extra_info))[0]
    return float(result["score"])


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs):
    """Scores of a batch (verl's BatchRewardManager), one request per distinct verifier."""
    items = [
        (verifier_of((extra or {}).get("vtask_verifier"), gt), _prompt(extra), response)
        for response, gt, extra in zip(solution_strs, ground_truths, extra_infos)
    ]
    return score_groups(items)
