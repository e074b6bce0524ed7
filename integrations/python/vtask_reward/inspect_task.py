"""Inspect AI: the tasks of a folder written by ``vtask export --format inspect``.

    inspect eval tasks.py@vtask_train --model openai-api/NAME/MODEL

``vtask_task`` reads the folder's ``json_dataset`` file (samples with ``id``, ``input`` as chat
messages, ``target``, and vtask's fields in ``metadata``) and returns a ``Task`` whose solver sends
each sample's messages with the tasks' sampling settings and whose scorer, ``vtask_scorer``, asks
``vtask serve`` for the verdict of the sample's own verifier: the Score's value is the verdict's
score (0 to 1), its explanation the reason, its metadata the verdict (``pass``, ``details``). A
verdict that could not be given is unscored (NaN, left out of the metrics) where Inspect has
``Score.unscored``, and an error of the sample otherwise: never a 0.

Agent tasks: the solver ``vtask_agent`` resets a fresh environment for the sample (``vtask env``,
vtask's sandbox; see ``environment.py``), offers its tools to the model (Inspect ``ToolInfo``s
from the environment's schemas), carries out the model's calls there, at most ``max_turns``
turns, and keeps the calls and the environment's final state for the scorer, so ``trajectory``
and ``state`` checks score as in ``vtask run``.

Importing this module imports Inspect; the scorer's core, ``package_rows.VerdictBatcher``, needs no Inspect.
"""

import asyncio
import json
import os

from inspect_ai import Task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import ChatMessageTool, GenerateConfig, get_model
from inspect_ai.scorer import Score, mean, scorer, stderr
from inspect_ai.solver import generate, solver
from inspect_ai.tool import ToolInfo, ToolParams

from .client import VtaskError
from .environment import AsyncEnvironment, EnvironmentFailure, args_of, resolve
from .package_rows import VerdictBatcher, info_of, is_undecided, keeps, note_undecided, serve_client

TRAJECTORY = "vtask_trajectory"
ENV_ERROR = "vtask_environment_error"


def _generate_config(config):
    config = dict(config or {})
    if "stop" in config:
        stop = config.pop("stop")
        config["stop_seqs"] = [stop] if isinstance(stop, str) else list(stop)
    return GenerateConfig(**config)


def vtask_task(data_file, ids=None, tags=None, bands=None, limit=None, config=None, serve_url=None, serve_args=()):
    """The samples of ``data_file`` (filtered by ``ids``, ``tags``, ``bands``; at most ``limit``) as a Task."""
    dataset = json_dataset(data_file).filter(lambda s: keeps(info_of(s.metadata), ids, tags, bands))
    if limit is not None:
        dataset = dataset[: int(limit)]
    agents = any(info_of(s.metadata).get("environment") for s in dataset)
    data_dir = os.path.dirname(os.path.abspath(data_file))
    return Task(
        dataset=dataset,
        solver=vtask_agent(data_dir) if agents else generate(),
        scorer=vtask_scorer(data_dir, serve_url, list(serve_args)),
        config=_generate_config(config),
    )


@scorer(metrics=[mean(), stderr()])
def vtask_scorer(data_dir, serve_url=None, serve_args=None):
    """The verdict of the sample's vtask verifier, from ``vtask serve``: the samples scored at one
    moment go in one request (``VerdictBatcher``)."""

    batcher = []  # made at the first sample: the server starts only when scoring does

    async def score(state, target):
        if not batcher:
            batcher.append(VerdictBatcher(await asyncio.to_thread(serve_client, data_dir, serve_url, serve_args or ())))
        prompt = state.input if isinstance(state.input, str) else state.user_prompt.text
        verdict = await batcher[0].verdict(state.metadata, prompt, state.output.completion, state.store.get(TRAJECTORY), state.store.get(ENV_ERROR))
        if is_undecided(verdict):
            note_undecided([verdict])
            if not hasattr(Score, "unscored"):
                raise VtaskError(f"vtask: undecided verdict ({verdict['error']}): {verdict.get('reason', '')}")
            return Score.unscored(answer=state.output.completion, explanation=verdict.get("reason"), metadata=verdict)
        return Score(value=float(verdict["score"]), answer=state.output.completion, explanation=verdict.get("reason"),
                     metadata={k: v for k, v in verdict.items() if k not in ("score", "reason")})

    return score


def _tool_info(tool):
    params = tool.get("parameters") or {"type": "object", "properties": {}}
    return ToolInfo(name=tool["name"], description=tool.get("description") or tool["name"], parameters=ToolParams.model_validate(params))


@solver
def vtask_agent(data_dir, timeout=30.0):
    """Agent tasks: the model with the sample's environment's tools, at most ``max_turns`` turns;
    other samples: one generation."""
    free = {}  # environment path -> processes ready for another sample

    async def solve(state, generate_):
        info = info_of(state.metadata)
        if not info.get("environment"):
            return await generate_(state)
        path = resolve(info["environment"], data_dir)
        env = free.setdefault(path, []).pop() if free.get(path) else AsyncEnvironment(info["environment"], data_dir, timeout)
        calls = []
        try:
            try:
                tools = [_tool_info(t) for t in await env.reset(args_of(info.get("environment_args")))]
            except EnvironmentFailure as e:
                state.store.set(ENV_ERROR, str(e))
                return state
            model = get_model()
            cut = False
            for turn in range(int(info.get("max_turns") or 10)):
                state.output = await model.generate(state.messages, tools=tools)
                state.messages.append(state.output.message)
                cut = bool(state.output.message.tool_calls)
                if not cut:
                    break
                for call in state.output.message.tool_calls:
                    try:
                        out = await env.call(call.function, call.arguments)
                    except EnvironmentFailure as e:
                        out = {"error": str(e)}
                    calls.append({"tool": call.function, "args": call.arguments, **out})
                    text = json.dumps(out["result"] if "result" in out else {"error": out["error"]})
                    state.messages.append(ChatMessageTool(content=text, tool_call_id=call.id, function=call.function))
            record = {"calls": calls, "state": await env.state()}
            if cut:
                record["stop"] = "max_turns"  # the turn limit cut it: no final answer
            state.store.set(TRAJECTORY, record)
        except EnvironmentFailure as e:
            state.store.set(ENV_ERROR, str(e))
        finally:
            free.setdefault(path, []).append(env)
        return state

    return solve


__all__ = ["vtask_task", "vtask_scorer", "vtask_agent"]
