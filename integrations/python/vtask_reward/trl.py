"""A TRL reward function: rows exported by ``vtask export --format trl``.

    from vtask_reward import vtask_reward
    trainer = GRPOTrainer(model=..., reward_funcs=vtask_reward, train_dataset=dataset, ...)

GRPOTrainer passes every dataset column as a keyword argument, so each completion is scored
with its row's ``vtask_verifier``.
"""

from .client import completion_text, prompt_text, score_groups, verifier_of


def vtask_reward(prompts, completions, vtask_verifier=None, solution=None, **kwargs):
    """One score per completion, 0 to 1, as ``vtask test`` would give it."""
    n = len(completions)
    verifiers = vtask_verifier if vtask_verifier is not None else [None] * n
    solutions = solution if solution is not None else [None] * n
    items = [
        (verifier_of(v, s), prompt_text(p), completion_text(c))
        for p, c, v, s in zip(prompts, completions, verifiers, solutions)
    ]
    return score_groups(items)
