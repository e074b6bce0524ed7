"""TRL environments from rows exported by ``vtask export --format trl`` (agent tasks).

    from vtask_reward import vtask_reward
    from vtask_reward.trl_env import trl_environments
    dataset = load_dataset("json", data_files="data/train.jsonl")["train"]
    trainer = GRPOTrainer(..., reward_funcs=vtask_reward, train_dataset=dataset,
                          environment_factory=trl_environments(dataset, base_dir="data"))

GRPOTrainer routes each row to the environment its ``environment`` column names and calls the
environment's ``reset`` with the row's other columns; each tool the environment declares
becomes a method (named, typed and documented from its JSON Schema, which is how TRL shows
tools to the model). A tool's answer reaches the model as JSON text: the result, or
``{"error": ...}``. Each environment keeps the calls of its rollout, which ``vtask_reward``
sends with the completion.

GRPOTrainer keeps its environment instances and resets them for every rollout. Each instance
owns one ``vtask env`` process for its whole life, and ``reset`` asks it for a fresh
environment (no new process); ``reset`` only sends the request, so the instances TRL resets one
after another get ready at the same time, and the reply is read at the rollout's first call.
``pool`` processes per environment are started as soon as the factory is made (the probe
that reads the tools is the first), so the first step does not wait for them either. Every
process is closed at exit, or by ``close_environments()``.
"""

import inspect
import json

from .environment import Environment, EnvironmentFailure, args_of, close_all

_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _method(tool):
    name = tool["name"]
    props = (tool.get("parameters") or {}).get("properties") or {}
    required = set((tool.get("parameters") or {}).get("required") or [])

    def call(self, **kwargs):
        self._ready()
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


def _cut(completion):
    # TRL stops a rollout at max_tool_calling_iterations after a turn with tool calls: its last
    # message is then an assistant turn whose calls were never answered.
    last = completion[-1] if isinstance(completion, list) and completion else None
    return isinstance(last, dict) and last.get("role") == "assistant" and bool(last.get("tool_calls"))


def environment_class(run, base_dir=".", args=None, timeout=30.0, pool=4):
    """A class TRL can instantiate for the environment at ``run``: its tools, probed once, as methods.

    ``pool`` processes are started at once (the probe's is kept), for the first instances.
    """
    probe = Environment(run, base_dir, timeout)
    try:
        tools = probe.reset(args_of(args))
    except BaseException:
        probe.close()
        raise
    spares = [probe]
    for _ in range(max(0, pool - 1)):
        spare = Environment(run, base_dir, timeout)
        spare.start()  # does not wait: the process starts while the trainer gets ready
        spares.append(spare)

    def __init__(self):
        self._env = spares.pop(0) if spares else Environment(run, base_dir, timeout)
        self._env.start()
        self._calls = []
        self._failed = None

    def reset(self, environment_args=None, **_row):
        self._env.begin_reset(args_of(environment_args))
        self._calls = []
        self._failed = None
        return None

    def ready(self):
        # The reply to the reset in flight: a failed reset fails every use of this rollout's environment.
        if self._failed is None:
            try:
                self._env.finish_reset()
            except EnvironmentFailure as e:
                self._failed = str(e)
        if self._failed is not None:
            raise EnvironmentFailure(self._failed)

    def state(self):
        self._ready()
        return self._env.state()

    def trajectory(self, completion=None):
        # What the reward function sends `vtask serve`: the calls since reset and the final state;
        # with the completion, a rollout cut by the turn limit says so (it has no final answer).
        record = {"calls": list(self._calls), "state": state(self)}
        if _cut(completion):
            record["stop"] = "max_turns"
        return record

    members = {
        "__init__": __init__, "reset": reset, "_ready": ready, "_state": state, "_vtask_trajectory": trajectory,
        "_close": lambda self: self._env.close(), "__del__": lambda self: self._env.close(),
    }
    for tool in tools:
        if tool["name"] in members or tool["name"].startswith("_"):
            raise ValueError(f"{run}: a tool cannot be named {tool['name']!r}")
        members[tool["name"]] = _method(tool)
    return type("VtaskEnvironment", (), members)


def close_environments():
    """Closes every environment process of this process (spares included); also done at exit."""
    close_all()


class NoEnvironment:
    """The environment of a row without one (a task that is not an agent task): no tools, no trajectory."""

    def reset(self, **_row):
        return None


def trl_environments(rows, base_dir=".", timeout=30.0, pool=4):
    """``environment_factory`` for GRPOTrainer: ``{environment: factory}`` for the rows' environments.

    Rows of other tasks (``environment`` null) get ``NoEnvironment`` under ``None``, the name
    GRPOTrainer looks them up by, so a dataset may mix agent and other tasks. ``pool``
    processes per environment are started at once, for the first instances.
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
    factories = {env: environment_class(env, base_dir, args, timeout, pool) for env, args in found.items()}
    if plain:
        factories[None] = NoEnvironment
    return factories
