"""A TRL reward function: rows exported by ``vtask export --format trl``.

    from vtask_reward import vtask_reward
    trainer = GRPOTrainer(model=..., reward_funcs=vtask_reward, train_dataset=dataset, ...)

GRPOTrainer passes every dataset column as a keyword argument, so each completion is scored
with its row's ``vtask_verifier``. With ``environment_factory=trl_environments(...)`` it also
passes the rollouts' ``environments``: each completion is then scored with its environment's
trajectory (the calls it carried out and its final state), so an agent task's ``trajectory``
and ``state`` checks score as in ``vtask run``.

A verdict that could not be given (no judge model, a script that is missing, a timeout) scores
0 and is logged; the trainer's metrics show the share of them as ``vtask/undecided`` (TRL hands
reward functions ``log_metric``), and ``VTASK_UNDECIDED=raise`` (or ``undecided="raise"``)
stops the run instead. ``vtask_reward.client.undecided_count()`` counts them too.

Each call sends all its completions to ``vtask serve`` as one request (per 1,024 completions),
whatever their verifiers.
"""

from .client import Item, completion_text, is_undecided, prompt_text, verdict_groups, verifier_of


def vtask_reward(prompts, completions, vtask_verifier=None, solution=None, environments=None, task_id=None, file=None,
                 log_metric=None, undecided=None, **kwargs):
    """One score per completion, 0 to 1, as ``vtask test`` would give it."""
    n = len(completions)

    def column(values):
        return values if values is not None else [None] * n

    trajectories = [_trajectory(e) for e in environments] if environments is not None else [None] * n
    items = [
        Item(verifier_of(v, s), prompt_text(p), completion_text(c), t, task, f)
        for p, c, v, s, t, task, f in zip(prompts, completions, column(vtask_verifier), column(solution), trajectories,
                                          column(task_id), column(file))
    ]
    verdicts = verdict_groups(items, undecided=undecided)
    if callable(log_metric) and n:
        log_metric("vtask/undecided", sum(map(is_undecided, verdicts)) / n)
    return [float(v["score"]) for v in verdicts]


def _trajectory(environment):
    # Environments of other kinds than vtask's (trl_env) keep no trajectory.
    record = getattr(environment, "_vtask_trajectory", None)
    return record() if callable(record) else None
