"""A TRL reward function: rows exported by ``vtask export --format trl``.

    from vtask_reward import vtask_reward
    trainer = GRPOTrainer(model=..., reward_funcs=vtask_reward, train_dataset=dataset, ...)

GRPOTrainer passes every dataset column as a keyword argument, so each completion is scored
with its row's ``vtask_verifier``. With ``environment_factory=trl_environments(...)`` it also
passes the rollouts' ``environments``: each completion is then scored with its environment's
trajectory (the calls it carried out and its final state), so an agent task's ``trajectory``
and ``state`` checks score as in ``vtask run``. TRL hands ``environments`` in the order of
``completions`` (one instance per rollout); a completion whose last turn called tools that were
never answered (``max_tool_calling_iterations`` ended it) goes as cut by the turn limit, so its
text is no final answer and scores as a run that hit ``max_turns`` does.

Each verdict's reason goes to the trainer's completions table as the ``vtask_reason`` column
(TRL hands reward functions ``log_extra``).

A verdict that could not be given (no judge model, a script that is missing, a timeout) scores
0 and is logged; the trainer's metrics show the share of them as ``vtask/undecided`` (TRL hands
reward functions ``log_metric``), and ``VTASK_UNDECIDED=raise`` (or ``undecided="raise"``)
stops the run instead. ``vtask_reward.client.undecided_count()`` counts them too.

Each call sends all its completions to ``vtask serve`` as one request (per 1,024 completions),
whatever their verifiers.
"""

from .client import Item, completion_text, is_undecided, prompt_text, verdict_groups, verifier_of


def vtask_reward(prompts, completions, vtask_verifier=None, solution=None, environments=None, task_id=None, file=None,
                 log_metric=None, log_extra=None, undecided=None, **kwargs):
    """One score per completion, 0 to 1, as ``vtask test`` would give it."""
    n = len(completions)

    def column(values):
        return values if values is not None else [None] * n

    if environments is not None and len(environments) != n:
        raise ValueError(f"{len(environments)} environments for {n} completions: TRL hands one per rollout")
    trajectories = [_trajectory(e, c) for e, c in zip(environments, completions)] if environments is not None else [None] * n
    items = [
        Item(verifier_of(v, s), prompt_text(p), completion_text(c), t, task, f)
        for p, c, v, s, t, task, f in zip(prompts, completions, column(vtask_verifier), column(solution), trajectories,
                                          column(task_id), column(file))
    ]
    verdicts = verdict_groups(items, undecided=undecided)
    if callable(log_metric) and n:
        log_metric("vtask/undecided", sum(map(is_undecided, verdicts)) / n)
    if callable(log_extra):
        log_extra("vtask_reason", [v.get("reason") or "" for v in verdicts])
    return [float(v["score"]) for v in verdicts]


def _trajectory(environment, completion):
    # Environments of other kinds than vtask's (trl_env) keep no trajectory; the completion
    # tells whether the turn limit cut the rollout.
    record = getattr(environment, "_vtask_trajectory", None)
    return record(completion) if callable(record) else None
