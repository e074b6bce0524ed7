"""verl's tool agent loop over vtask environments (rows from ``vtask export --format verl``).

verl reads the tool schemas from one tool config file; this module writes it from the rows
(starting each environment once to ask for its tools) and provides the tool class it names::

    python -m vtask_reward.verl_tools data/train.parquet -o data/tools.yaml

    actor_rollout_ref.rollout.multi_turn.enable=True
    actor_rollout_ref.rollout.multi_turn.tool_config_path=data/tools.yaml
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=6   # the tasks' max_turns

A row's ``extra_info.tools_kwargs.vtask.create_kwargs`` names its environment. verl offers a
row the tools its ``tools_kwargs`` keys name, so ``--rows-out`` also writes the rows keyed by
their tools' names (each with the environment's create kwargs), as the environments declared
them: with the one config (one entry per tool name, each backed by ``EnvironmentTool``), one run
trains rows of several environments, each offered its own tools::

    python -m vtask_reward.verl_tools data/train.parquet -o data/tools.yaml --rows-out data/train.tools.parquet

One config for all is written only when the environments' tools agree (the same name declared
the same way); otherwise ``--split`` writes one config per environment (``tools.<name>.yaml``),
for one run per environment. Rows keyed either way are read alike.

``EnvironmentTool`` runs the environment of one trajectory: verl's ``create(instance_id)``
starts it (every tool of a trajectory shares it, counted), ``execute`` calls the tool and
``release(instance_id)`` closes it when the trajectory ends. Everything is asyncio (the
process, its pipe, every wait is bounded), so the worker's event loop never blocks on an
environment. A worker keeps at most ``max_sessions`` environments alive (config, default 64):
a further trajectory waits for a slot at most ``slot_timeout`` seconds (default 300), then its
calls answer an error; an environment idle for ``idle_timeout`` seconds (default 900) is
closed, in case a trajectory was abandoned without ``release``. ``live_sessions()`` counts the
worker's live environments.
"""

import argparse
import asyncio
import json
import os
import sys
import time
import uuid

from .environment import AsyncEnvironment, EnvironmentFailure, Environment, args_of, openai_tool

TOOLS_KEY = "vtask"
CLASS_NAME = "vtask_reward.verl_tools.EnvironmentTool"


def _ref_in(tools_kwargs):
    # A row names its environment under `vtask` (as exported) or under each of its tools' names
    # (as --rows-out writes it): every entry carries the same create_kwargs.
    entries = tools_kwargs or {}
    for key in [TOOLS_KEY] + [k for k in entries if k != TOOLS_KEY]:
        ref = (entries.get(key) or {}).get("create_kwargs") or {}
        if ref.get("environment"):
            return ref
    return {}


def _refs(rows):
    for row in rows:
        ref = _ref_in((row.get("extra_info") or {}).get("tools_kwargs"))
        if ref:
            yield ref


def _key(ref):
    return ref["environment"], ref.get("environment_args") or "{}"


def _canonical(value):
    # JSON Schema keywords whose absence means the same as their empty value.
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if not (k == "required" and v == [])}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def same_declaration(a, b):
    """Whether two OpenAI tool schemas declare the tool alike (``required: []`` is no ``required``)."""
    return json.dumps(_canonical(a), sort_keys=True) == json.dumps(_canonical(b), sort_keys=True)


def declared_tools(rows, base_dir=".", timeout=30.0):
    """``{(environment, environment_args): [tool]}``: each environment started once per distinct args."""
    declared = {}
    for ref in _refs(rows):
        if _key(ref) not in declared:
            with Environment(ref["environment"], base_dir, timeout) as env:
                declared[_key(ref)] = env.reset(args_of(ref.get("environment_args")))
    return declared


def environment_tools(rows, base_dir=".", timeout=30.0, declared=None):
    """``{environment: [OpenAI tool schema]}``: each environment started once per distinct args."""
    found = {}
    for (run, _), tools_of_args in (declared if declared is not None else declared_tools(rows, base_dir, timeout)).items():
        tools = found.setdefault(run, [])
        for tool in tools_of_args:
            schema = openai_tool(tool)
            if not any(same_declaration(t, schema) for t in tools):
                tools.append(schema)
    if not found:
        raise ValueError("no row names an environment: these rows are not from agent tasks")
    return found


def _config(schemas, base_dir):
    return {"tools": [{"class_name": CLASS_NAME, "config": {"type": "native", "base_dir": os.path.abspath(base_dir)}, "tool_schema": s}
                      for s in schemas]}


def merged_config(by_env, base_dir="."):
    """One tool config for every environment; a tool two environments declare differently is an error naming both."""
    schemas, owner = [], {}
    for env, tools in by_env.items():
        for schema in tools:
            name = schema["function"]["name"]
            if name not in owner:
                owner[name] = (env, schema)
                schemas.append(schema)
            elif not same_declaration(owner[name][1], schema):
                other = owner[name][0]
                where = f"{other} and {env}" if other != env else f"{env} (with different environment_args)"
                raise ValueError(
                    f"the tool {name!r} is declared differently by {where}; verl has one schema per tool name: "
                    "write one config per environment (--split) and train them in separate runs"
                )
    return _config(schemas, base_dir)


def verl_tool_config(rows, base_dir=".", timeout=30.0, declared=None):
    """The tool config verl loads (``{"tools": [...]}``), one entry per tool of the rows' environments."""
    return merged_config(environment_tools(rows, base_dir, timeout, declared), base_dir)


def rows_by_tool(rows, declared):
    """The rows with ``extra_info.tools_kwargs`` keyed by the names of the tools their environment
    declares, each with the environment's create_kwargs: verl offers a row the tools its keys
    name, so rows of several environments train in one run."""
    out = []
    for row in rows:
        extra = row.get("extra_info") or {}
        ref = _ref_in(extra.get("tools_kwargs"))
        if ref:
            keyed = {t["name"]: {"create_kwargs": dict(ref)} for t in declared[_key(ref)]}
            row = dict(row, extra_info=dict(extra, tools_kwargs=keyed))
        out.append(row)
    return out


def verl_tool_configs(rows, base_dir=".", timeout=30.0):
    """One tool config per environment: ``{environment: config}``."""
    by_env = environment_tools(rows, base_dir, timeout)
    return {env: merged_config({env: tools}, base_dir) for env, tools in by_env.items()}


def _read_rows(path):
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m vtask_reward.verl_tools", description="Write verl's tool config for exported agent rows.")
    p.add_argument("rows", help="rows from vtask export --format verl (.parquet, or .json: JSON lines)")
    p.add_argument("-o", "--out", required=True, help="the tool config to write (YAML)")
    p.add_argument("--split", action="store_true", help="one config per environment: OUT with the environment's name before its extension")
    p.add_argument("--rows-out", help="also write the rows with tools_kwargs keyed by their tools' names (.parquet or .jsonl)")
    a = p.parse_args(argv)
    rows, base = _read_rows(a.rows), os.path.dirname(os.path.abspath(a.rows))
    if a.rows_out and a.split:
        p.error("--rows-out makes one run for all environments: it goes without --split")
    if not a.split:
        declared = declared_tools(rows, base)
        _write(verl_tool_config(rows, base, declared=declared), a.out)
        if a.rows_out:
            _write_rows(rows_by_tool(rows, declared), a.rows_out)
        return 0
    stem, ext = os.path.splitext(a.out)
    for env, config in verl_tool_configs(rows, base).items():
        _write(config, f"{stem}.{os.path.splitext(os.path.basename(env))[0]}{ext or '.yaml'}", env)
    return 0


def every_tool_named(rows):
    """The rows with every tool name of the rows in each row's ``tools_kwargs``, a foreign tool
    with empty ``create_kwargs``. A Parquet column has one type: each row's ``tools_kwargs`` gets
    every name of the column, and a name missing from a row would read as null, on which verl's
    ``tools_kwargs.get(name, {}).get("create_kwargs")`` fails; an empty entry gives such a call no
    environment, and the tool answers it an error instead."""
    names = {}
    for row in rows:
        names.update(dict.fromkeys(((row.get("extra_info") or {}).get("tools_kwargs") or {})))
    out = []
    for row in rows:
        extra = row.get("extra_info") or {}
        own = extra.get("tools_kwargs")
        if own:
            filled = {name: own.get(name) or {"create_kwargs": {}} for name in names}
            row = dict(row, extra_info=dict(extra, tools_kwargs=filled))
        out.append(row)
    return out


def _write_rows(rows, path):
    if path.endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(every_tool_named(rows)), path)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"{len(rows)} rows, tools_kwargs by tool name -> {path}")


def _write(config, out, env=None):
    with open(out, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)  # JSON is YAML: verl's OmegaConf reads it as is
    print(f"{len(config['tools'])} tools{f' of {env}' if env else ''} -> {out}")


class Sessions:
    """The environments of one worker's trajectories, by verl's instance id: started at the
    trajectory's first ``create``, shared by its tools (counted), closed at the last
    ``release``; at most ``limit`` alive, and an idle one closed after ``idle`` seconds."""

    def __init__(self):
        self._open = {}  # instance id -> _Session
        self._slots = None
        self.limit = None

    def live(self):
        return sum(1 for s in self._open.values() if s.env is not None and s.env.running())

    async def open(self, key, ref, base_dir, limit=64, slot_timeout=300.0, idle=900.0, timeout=30.0):
        await self._sweep(idle)
        session = self._open.get(key)
        if session is None:
            session = self._open[key] = _Session()
            session.ready = asyncio.ensure_future(self._start(session, ref, base_dir, limit, slot_timeout, timeout))
        session.refs += 1
        session.used = time.monotonic()
        await asyncio.shield(session.ready)
        return session

    async def _start(self, session, ref, base_dir, limit, slot_timeout, timeout):
        if self._slots is None:
            self.limit, self._slots = limit, asyncio.Semaphore(limit)
        try:
            await asyncio.wait_for(self._slots.acquire(), slot_timeout)
        except asyncio.TimeoutError:
            session.error = f"no environment slot within {slot_timeout:g} s: {self.limit} environments are alive in this worker (max_sessions)"
            return
        session.slot = True
        session.env = AsyncEnvironment(ref["environment"], base_dir, timeout)
        try:
            await session.env.reset(args_of(ref.get("environment_args")))
        except (EnvironmentFailure, ValueError) as e:  # ValueError: bad environment_args or isolation
            session.error = str(e)

    def get(self, key):
        session = self._open.get(key)
        if session is not None:
            session.used = time.monotonic()
        return session

    async def release(self, key):
        session = self._open.get(key)
        if session is None:
            return
        session.refs -= 1
        if session.refs <= 0:
            await self._close(key)

    async def _close(self, key):
        session = self._open.pop(key, None)
        if session is None:
            return
        await asyncio.shield(session.ready)
        if session.env is not None:
            await session.env.close()
        if session.slot:
            self._slots.release()

    async def _sweep(self, idle):
        now = time.monotonic()
        for key in [k for k, s in self._open.items() if s.ready.done() and now - s.used > idle]:
            await self._close(key)

    async def close_all(self):
        for key in list(self._open):
            await self._close(key)


class _Session:
    def __init__(self):
        self.env, self.error, self.refs, self.used, self.slot, self.ready = None, None, 0, 0.0, False, None


sessions = Sessions()


def live_sessions():
    """How many trajectory environments this worker has alive."""
    return sessions.live()


def _ref_of(kwargs):
    # verl hands a row's create_kwargs as keyword arguments (or, in some loops, as create_kwargs=).
    ref = kwargs.get("create_kwargs") if isinstance(kwargs.get("create_kwargs"), dict) else kwargs
    if not ref.get("environment"):
        ref = _ref_in(getattr(kwargs.get("agent_data"), "tools_kwargs", None))
    return ref


class EnvironmentToolMixin:
    """The tool's work, on any class with verl's ``BaseTool`` attributes (``name``, ``config``)."""

    async def create(self, instance_id=None, **kwargs):
        instance_id = instance_id or str(uuid.uuid4())
        ref = _ref_of(kwargs)
        if ref.get("environment"):
            c = self.config
            await sessions.open(instance_id, ref, c.get("base_dir", "."), int(c.get("max_sessions", 64)),
                                float(c.get("slot_timeout", 300)), float(c.get("idle_timeout", 900)), float(c.get("timeout", 30)))
        return instance_id, _response("")

    async def execute(self, instance_id, parameters, **kwargs):
        session = sessions.get(instance_id)
        if session is None:
            out = {"error": "this trajectory has no vtask environment (the row names none, or it was released)"}
        elif session.error is not None:
            out = {"error": session.error}
        else:
            try:
                got = await session.env.call(self.name, parameters)
                out = got["result"] if "result" in got else {"error": got["error"]}
            except EnvironmentFailure as e:
                out = {"error": str(e)}
        return _response(json.dumps(out)), 0.0, {"vtask_live_environments": sessions.live()}

    async def calc_reward(self, instance_id, **kwargs):
        return 0.0  # vtask's verdict is the reward function's, on the whole response

    async def release(self, instance_id, **kwargs):
        await sessions.release(instance_id)


try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # verl is needed only where its loop runs the tools
    BaseTool = ToolResponse = None


def _response(text):
    return ToolResponse(text=text) if ToolResponse is not None else text


if BaseTool is not None:
    class EnvironmentTool(EnvironmentToolMixin, BaseTool):
        """One tool of a vtask environment; the environment lives as long as its trajectory."""


if __name__ == "__main__":
    sys.exit(main())
