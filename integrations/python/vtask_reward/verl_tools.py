"""verl's tool agent loop over vtask environments (rows from ``vtask export --format verl``).

verl reads the tool schemas from one tool config file; this module writes it from the rows
(starting each environment once to ask for its tools) and provides the tool class it names::

    python -m vtask_reward.verl_tools data/train.parquet -o data/tools.yaml

    actor_rollout_ref.rollout.multi_turn.enable=True
    actor_rollout_ref.rollout.multi_turn.tool_config_path=data/tools.yaml
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=6   # the tasks' max_turns

A row's ``extra_info.tools_kwargs.vtask.create_kwargs`` names its environment; verl's loop
creates and releases a tool per call, so ``EnvironmentTool`` keeps one environment per
trajectory (verl's ``request_id``), started at the trajectory's first call, and closes the
oldest when more than ``max_sessions`` are open.
"""

import argparse
import collections
import json
import os
import sys

from .environment import Environment, args_of, openai_tool

TOOLS_KEY = "vtask"


def _refs(rows):
    for row in rows:
        kw = ((row.get("extra_info") or {}).get("tools_kwargs") or {}).get(TOOLS_KEY) or {}
        ref = kw.get("create_kwargs") or {}
        if ref.get("environment"):
            yield ref


def verl_tool_config(rows, base_dir=".", timeout=30.0):
    """The tool config verl loads (``{"tools": [...]}``), one entry per tool of the rows' environments."""
    seen, tools = {}, []
    for ref in _refs(rows):
        key = (ref["environment"], ref.get("environment_args") or "{}")
        if key in seen:
            continue
        seen[key] = True
        with Environment(ref["environment"], base_dir, timeout) as env:
            declared = env.reset(args_of(ref.get("environment_args")))
        for tool in declared:
            schema = openai_tool(tool)
            same = [t for t in tools if t["tool_schema"]["function"]["name"] == tool["name"]]
            if same and same[0]["tool_schema"] != schema:
                raise ValueError(f"two environments declare the tool {tool['name']!r} differently; verl has one schema per tool name")
            if not same:
                tools.append({
                    "class_name": "vtask_reward.verl_tools.EnvironmentTool",
                    "config": {"type": "native", "base_dir": os.path.abspath(base_dir)},
                    "tool_schema": schema,
                })
    if not tools:
        raise ValueError("no row names an environment: these rows are not from agent tasks")
    return {"tools": tools}


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
    a = p.parse_args(argv)
    config = verl_tool_config(_read_rows(a.rows), os.path.dirname(os.path.abspath(a.rows)))
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)  # JSON is YAML: verl's OmegaConf reads it as is
    print(f"{len(config['tools'])} tools -> {a.out}")


try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # verl is needed only where its loop runs the tools
    BaseTool = None

if BaseTool is not None:
    _sessions = collections.OrderedDict()

    class EnvironmentTool(BaseTool):
        """One tool of a vtask environment; the environment lives as long as its trajectory."""

        async def execute(self, instance_id, parameters, **kwargs):
            data = kwargs.get("agent_data")
            ref = ((getattr(data, "tools_kwargs", None) or {}).get(TOOLS_KEY) or {}).get("create_kwargs") or {}
            if not ref.get("environment"):
                return ToolResponse(text=json.dumps({"error": "this row names no vtask environment"})), 0.0, {}
            key = getattr(data, "request_id", instance_id)
            env = _sessions.get(key)
            if env is None:
                env = Environment(ref["environment"], self.config.get("base_dir", "."))
                env.reset(args_of(ref.get("environment_args")))
                _sessions[key] = env
                while len(_sessions) > int(self.config.get("max_sessions", 512)):
                    _sessions.popitem(last=False)[1].close()
            out = env.call(self.name, parameters)
            return ToolResponse(text=json.dumps(out["result"] if "result" in out else {"error": out["error"]})), 0.0, {}


if __name__ == "__main__":
    sys.exit(main())
