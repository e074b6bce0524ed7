"""TRL environments from rows exported by ``vtask export --format trl`` (agent tasks).

    from vtask_reward import vtask_reward
    from vtask_reward.trl_env import trl_environments
    dataset = load_dataset("json", data_files="data/train.jsonl")["train"]
    trainer = GRPOTrainer(..., reward_funcs=vtask_reward, train_dataset=dataset,
                          environment_factory=trl_environments(dataset, base_dir="data"))

GRPOTrainer routes each row to the environment its ``environment`` column names and calls the
environment's ``reset`` with the row's other columns; each tool the environment declares
becomes a method (named, typed and documented from its JSON Schema, which is how TRL shows
tools to the model). ``reset`` restarts the environment process, so every rollout starts
fresh. A tool's answer reaches the model as JSON text: the result, or ``{"error": ...}``. Each
environment keeps the calls of its rollout, which ``vtask_reward`` sends with the completion.
"""

import inspect
import json

from .environment import Environment, args_of

_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _method(tool):
    name = tool["name"]
    props = (tool.get("parameters") or {}).get("properties") or {}
    required = set((tool.get("parameters") or {}).get("required") or [])

    def call(self, **kwargs):
        out = self._env.call(name, kwargs)
        self._calls.append({"tool": name, "args": kwargs, **out})
        return json.dumps(out["result"] if "result" in out else {"error": out["error"]})

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations = {}
    for key, schema in props.items():
        annotations[key] = _TYPES.get((schema or {}).get("type"), str)
        default = inspect.Parameter.empty if key in required else None
        params.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotations[key]))
    annotations["return"] = str
    call.__name__ = call.__qualname__ = name
    call.__signature__ = inspect.Signature(params, return_annotation=str)
    call.__annotations__ = annotations
    arg_lines = [f"    {k}: {(s or {}).get('description') or k}" for k, s in props.items()]
    call.__doc__ = (tool.get("description") or name) + ("\n\nArgs:\n" + "\n".join(arg_lines) if arg_lines else "") + "\n\nReturns:\n    The tool's result as JSON text."
    return call


def environment_class(run, base_dir=".", args=None, timeout=30.0):
    """A class TRL can instantiate for the environment at ``run``: its tools, probed once, as methods."""
    probe = Environment(run, base_dir, timeout)
    try:
        tools = probe.reset(args_of(args))
    finally:
        probe.close()

    def __init__(self):
        self._env = Environment(run, base_dir, timeout)
        self._calls = []

    def reset(self, environment_args=None, **_row):
        self._env.reset(args_of(environment_args))
        self._calls = []
        return None

    def state(self):
        return self._env.state()

    def trajectory(self):
        # What the reward function sends `vtask serve`: the calls since reset and the final state.
        return {"calls": list(self._calls), "state": self._env.state()}

    members = {
        "__init__": __init__, "reset": reset, "_state": state, "_vtask_trajectory": trajectory,
        "__del__": lambda self: self._env.close(),
    }
    for tool in tools:
        if tool["name"] in members or tool["name"].startswith("_"):
            raise ValueError(f"{run}: a tool cannot be named {tool['name']!r}")
        members[tool["name"]] = _method(tool)
    return type("VtaskEnvironment", (), members)


class NoEnvironment:
    """The environment of a row without one (a task that is not an agent task): no tools, no trajectory."""

    def reset(self, **_row):
        return None


def trl_environments(rows, base_dir=".", timeout=30.0):
    """``environment_factory`` for GRPOTrainer: ``{environment: factory}`` for the rows' environments.

    Rows of other tasks (``environment`` null) get ``NoEnvironment`` under ``None``, the name
    GRPOTrainer looks them up by, so a dataset may mix agent and other tasks.
    """
    found, plain = {}, False
    for row in rows:
        env = row.get("environment")
        if not env:
            plain = True
        elif env not in found:
            found[env] = row.get("environment_args")
    if not found:
        raise ValueError("no row names an environment: these rows are not from agent tasks")
    factories = {env: environment_class(env, base_dir, args, timeout) for env, args in found.items()}
    if plain:
        factories[None] = NoEnvironment
    return factories
