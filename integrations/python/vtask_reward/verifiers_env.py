"""verifiers (Prime Intellect): the environment of a package written by ``vtask export --format verifiers``.

    import verifiers as vf
    env = vf.load_environment("vtask-math", num_examples=10)    # the package's load_environment
    results = env.evaluate_sync(client, "MODEL", num_examples=10, rollouts_per_example=4)

The package's rows (Parquet: ``prompt``, ``answer``, ``info``) become a ``vf.SingleTurnEnv``, or a
``vf.ToolEnv`` when some are agent tasks: each rollout of an agent task gets a fresh environment
(``vtask env``, vtask's sandbox; see ``environment.py``) whose tools are the rollout's tools, and
its calls and final state are sent with the answer, so ``trajectory`` and ``state`` checks score
as in ``vtask run``. The rubric has one reward, ``vtask_reward``: every rollout of a group in one
request to ``vtask serve``. A verdict that could not be given scores 0, is logged and shows in
the ``vtask_undecided`` metric; ``VTASK_UNDECIDED=raise`` stops the run instead.

Importing this module does not import verifiers; ``make_reward`` works without it.
"""

import json
import os

from .environment import AsyncEnvironment, EnvironmentFailure, args_of, resolve
from .package_rows import answer_text, info_of, is_undecided, keeps, last_user_text, note_undecided, serve_client, verdicts


def read_rows(data_file, ids=None, tags=None, bands=None, num_examples=-1):
    """The package's rows (dicts) that pass the filters, at most ``num_examples`` (-1: all)."""
    import pyarrow.parquet as pq

    rows = [r for r in pq.read_table(data_file).to_pylist() if keeps(info_of(r.get("info")), ids, tags, bands)]
    return rows if num_examples is None or num_examples < 0 else rows[:num_examples]


def _trajectory_of(state):
    return state.get("vtask_trajectory") if hasattr(state, "get") else None


def make_reward(data_file, serve_url=None, serve_args=(), undecided=None):
    """The rubric's reward: a group function (plural arguments, as verifiers calls them) that
    scores every completion of the group in one request and keeps each verdict in its state."""
    data_dir = os.path.dirname(os.path.abspath(data_file))

    def vtask_reward(prompts, completions, infos, states=None) -> list:
        states = states if states is not None else [{} for _ in completions]
        infos = [info_of(i) for i in infos]
        trajectories = [_trajectory_of(s) for s in states]
        failures = [s.get("vtask_environment_error") if hasattr(s, "get") else None for s in states]
        found = verdicts(serve_client(data_dir, serve_url, serve_args), infos, [last_user_text(p) for p in prompts],
                         [answer_text(c) for c in completions], trajectories, failures)
        for state, verdict in zip(states, found):
            state["vtask_verdict"] = verdict
        note_undecided(found, mode=undecided)
        return [float(v["score"]) for v in found]

    return vtask_reward


def vtask_undecided(states) -> list:
    """1 for a rollout whose verdict could not be given (its reward of 0 says nothing about it)."""
    return [1.0 if is_undecided(s.get("vtask_verdict") or {}) else 0.0 for s in states]


def _parser(vf, kind):
    if kind == "boxed":
        return vf.MaybeThinkParser(extract_fn=vf.extract_boxed_answer)
    return vf.Parser()


def load_environment(data_file, ids=None, tags=None, bands=None, num_examples=-1, system_prompt=None, sampling_args=None,
                     parser="plain", serve_url=None, serve_args=(), env_timeout=30.0, **kwargs):
    """The rows of ``data_file`` (filtered) as a ``vf.SingleTurnEnv``, or a ``vf.ToolEnv`` with agent tasks."""
    import verifiers as vf
    from datasets import Dataset

    rows = read_rows(data_file, ids, tags, bands, num_examples)
    if not rows:
        raise ValueError(f"{data_file}: no task passes the filters (ids={ids!r}, tags={tags!r}, bands={bands!r})")
    if system_prompt is not None:
        # verifiers puts system_prompt before each prompt: the task's own system message gives way.
        for r in rows:
            r["prompt"] = [m for m in r["prompt"] if m.get("role") != "system"]
    dataset = Dataset.from_list(rows)
    rubric = vf.Rubric(funcs=[make_reward(data_file, serve_url, serve_args), vtask_undecided], weights=[1.0, 0.0], parser=_parser(vf, parser))
    common = dict(dataset=dataset, system_prompt=system_prompt, rubric=rubric, parser=rubric.parser, sampling_args=sampling_args, **kwargs)
    turns = [info_of(r["info"]).get("max_turns") for r in rows if info_of(r["info"]).get("environment")]
    if not turns:
        return vf.SingleTurnEnv(**common)
    return _tool_env_class(vf)(base_dir=os.path.dirname(os.path.abspath(data_file)), env_timeout=env_timeout, max_turns=max(turns), **common)


def _tool_env_class(vf):
    """``VtaskToolEnv``: a ``vf.ToolEnv`` whose tools are each rollout's own vtask environment."""
    from verifiers.types import ToolMessage

    class VtaskToolEnv(vf.ToolEnv):
        def __init__(self, base_dir=".", env_timeout=30.0, **kwargs):
            super().__init__(tools=[], **kwargs)
            self.base_dir = base_dir
            self.env_timeout = env_timeout
            self._free = {}  # environment path -> processes ready for another rollout
            self._live = {}  # trajectory id -> (environment, its path, the calls so far)

        def _acquire(self, run):
            path = resolve(run, self.base_dir)
            free = self._free.setdefault(path, [])
            return (free.pop() if free else AsyncEnvironment(run, self.base_dir, self.env_timeout)), path

        async def setup_state(self, state, **kwargs):
            info = info_of(state.get("info"))
            if not info.get("environment"):
                return await super().setup_state(state, **kwargs)
            env, path = self._acquire(info["environment"])
            self._live[state["trajectory_id"]] = (env, path, [])
            try:
                tools = await env.reset(args_of(info.get("environment_args")))
            except EnvironmentFailure as e:
                # The rollout runs without tools; its verdict is undecided (see make_reward).
                state["vtask_environment_error"] = str(e)
                tools = []
            state["tool_defs"] = self._normalize_tool_defs(
                [{"name": t["name"], "description": t.get("description", ""), "parameters": t.get("parameters") or {"type": "object", "properties": {}}} for t in tools])
            return await super().setup_state(state, **kwargs)

        @vf.stop
        async def task_turns_reached(self, state) -> bool:
            limit = info_of(state.get("info")).get("max_turns")
            return isinstance(limit, int) and len(state["trajectory"]) >= limit

        async def env_response(self, messages, state, **kwargs):
            env, _, calls = self._live[state["trajectory_id"]]
            replies = []
            for call in messages[-1].tool_calls or ():
                try:
                    args = json.loads(call.arguments or "{}")
                    out = await env.call(call.name, args) if isinstance(args, dict) else {"error": "the arguments are not a JSON object"}
                except ValueError as e:
                    args, out = call.arguments, {"error": f"the arguments are not JSON: {e}"}
                except EnvironmentFailure as e:
                    out = {"error": str(e)}
                calls.append({"tool": call.name, "args": args, **out})
                text = json.dumps(out["result"] if "result" in out else {"error": out["error"]})
                replies.append(ToolMessage(role="tool", content=text, tool_call_id=call.id))
            return replies

        @vf.cleanup
        async def vtask_release(self, state):
            # The calls and the final state go with the answer; the process serves the next rollout.
            live = self._live.pop(state.get("trajectory_id"), None)
            if live is None:
                return
            env, path, calls = live
            record = {"calls": calls}
            if not state.get("vtask_environment_error"):
                try:
                    record["state"] = await env.state()
                except EnvironmentFailure as e:
                    state["vtask_environment_error"] = str(e)
            steps = state.get("trajectory") or []
            last = (steps[-1].get("completion") or [None])[-1] if steps else None
            if last is not None and getattr(last, "tool_calls", None):
                record["stop"] = "max_turns"  # the turn limit cut it: no final answer
            state["vtask_trajectory"] = record
            self._free.setdefault(path, []).append(env)

    return VtaskToolEnv
