"""A TRL reward function: rows exported by ``vtask export --format trl``.

    from vtask_reward import vtask_reward
    trainer = GRPOTrainer(model=..., reward_funcs=vtask_reward, train_dataset=dataset, ...)

GRPOTrainer passes every dataset column as a keyword argument, so each completion is scored
with its row's ``vtask_verifier``. With ``environment_factory=trl_environments(...)`` it also
passes the rollouts' ``environments``: each completion is then scored with its environment's
trajectory (the calls it carried out and its final state), so an agent task's ``trajectory``
and ``state`` checks score as in ``vtask run``.
"""

from .client import completion_text, prompt_text, score_groups, verifier_of


def vtask_reward(prompts, completions, vtask_verifier=None, solution=None, environments=None, **kwargs):
    """One score per completion, 0 to 1, as ``vtask test`` would give it."""
    n = len(completions)
    verifiers = vtask_verifier if vtask_verifier is not None else [None] * n
    solutions = solution if solution is not None else [None] * n
    trajectories = [_trajectory(e) for e in environments] if environments is not None else [None] * n
    items = [
        (verifier_of(v, s), prompt_text(p), completion_text(c), t)
        for p, c, v, s, t in zip(prompts, completions, verifiers, solutions, trajectories)
    ]
    return score_groups(items)


def _trajectory(environment):
    # Environments of other kinds than vtask's (trl_env) keep no trajectory.
    record = getattr(environment, "_vtask_trajectory", None)
    return record() if callable(record) else None
