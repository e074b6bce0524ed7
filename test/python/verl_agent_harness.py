"""verl's tool agent loop, as far as vtask's tool sees it, on one asyncio event loop.

    python3 verl_agent_harness.py ENV_DIR OUT.json [TRAJECTORIES [MAX_SESSIONS]]
    python3 verl_agent_harness.py ENV_DIR OUT.json --rows ROWS.jsonl CONFIG.json

With ``--rows``, one trajectory per row, all in one run over one tool config: as verl's rollout
does, the row is offered the tools its ``tools_kwargs`` keys name (their schemas from the
config), each is created with the trajectory's request id and its own ``create_kwargs``, the
row's first tool is called with ``{"key": "fr"}`` or ``{"a": 2, "b": 3}`` (what its schema
requires), and every tool is released. OUT gets, per row, the tools offered and the answer.

Starts TRAJECTORIES trajectories at once over the key-value store environment: as verl does,
each tool of the row is created with the trajectory's request id, the model's calls are
executed, and every tool is released when the trajectory ends. Each trajectory stores its own
number and reads it back (so environments shared between trajectories would show). One more
trajectory is abandoned without release and must be closed by the idle timeout. A heartbeat
coroutine measures how late the event loop runs it; the baseline is the same heartbeat on
otherwise idle event loops: this process's before the run, and four other processes' during it
(``idle_loop.py``: on a busy machine every loop wakes late, and 16 environments starting load it
more). OUT gets the answers, the event-loop lag and its baselines, the most environments seen
alive, and the processes (vtask env relays and environments) still alive after the run.
"""

import asyncio
import json
import os
import subprocess
import sys
import time

from proc_tree import descendants
from vtask_reward.spawn import helper_pids
from vtask_reward.verl_tools import EnvironmentToolMixin, live_sessions, sessions

env_dir, out_path = sys.argv[1], sys.argv[2]
rows_given = len(sys.argv) > 3 and sys.argv[3] == "--rows"
trajectories = int(sys.argv[3]) if len(sys.argv) > 3 and not rows_given else 16
max_sessions = int(sys.argv[4]) if len(sys.argv) > 4 and not rows_given else 64
TOOLS = ("get", "set", "list")
REF = {"environment": "kv_store.mjs", "environment_args": json.dumps({"data": {}}), "max_turns": 4, "task_id": "kv"}


class Tool(EnvironmentToolMixin):
    """verl's BaseTool as the mixin needs it: a name and the config of the tool config file."""

    def __init__(self, name, config):
        self.name, self.config = name, config


config = {"type": "native", "base_dir": env_dir, "max_sessions": max_sessions, "timeout": 120}
tools = {name: Tool(name, config) for name in TOOLS}
seen_alive = []
starts = []  # seconds each trajectory waited for its environment


async def trajectory(i, release=True):
    request_id = f"req-{i}"
    t = time.perf_counter()
    for tool in tools.values():
        await tool.create(request_id, **REF)
    starts.append(time.perf_counter() - t)
    answers = []
    for name, args in (("set", {"key": "n", "value": str(i)}), ("get", {"key": "n"})):
        text, _, metrics = await tools[name].execute(request_id, args)
        answers.append(json.loads(text))
        seen_alive.append(metrics["vtask_live_environments"])
    for tool in tools.values():
        await tool.calc_reward(request_id)
        if release:
            await tool.release(request_id)
    return answers


async def heartbeat(lag, key, done):
    """Wakes every 10 ms until ``done``; ``lag[key]``: the latest wake-up, in seconds."""
    while not done.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        lag[key] = max(lag.get(key, 0.0), time.perf_counter() - t - 0.01)


def idle_loops(count):
    """``count`` processes each running an otherwise idle event loop (``idle_loop.py``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    loops = [subprocess.Popen([sys.executable, os.path.join(here, "idle_loop.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(count)]
    for p in loops:
        p.stdout.readline()  # "ready"
    return loops


def idle_lag_ms(loops):
    """The latest wake-up of the idle loops (ms), after stopping them."""
    worst = 0.0
    for p in loops:
        p.stdin.close()
        worst = max(worst, float(p.stdout.readline()))
        p.wait()
    return worst


async def main():
    lag = {"max": 0.0}
    done = asyncio.Event()
    # This process's loop with nothing else to do, for one second.
    asyncio.get_running_loop().call_later(1.0, done.set)
    await heartbeat(lag, "idle", done)
    done.clear()
    others = idle_loops(4)
    beat = asyncio.ensure_future(heartbeat(lag, "max", done))
    start = time.perf_counter()
    answers = await asyncio.gather(*(trajectory(i) for i in range(trajectories)))
    elapsed = time.perf_counter() - start
    lag["run"] = lag["max"]
    lag["others"] = await asyncio.get_running_loop().run_in_executor(None, idle_lag_ms, others) / 1000
    config["idle_timeout"] = 1  # from now on, an environment idle for 1 s is closed at the next create
    await trajectory("abandoned", release=False)
    alive_abandoned = live_sessions()
    abandoned = sessions.get("req-abandoned")
    await asyncio.sleep(1.5)
    await tools["get"].create("after-idle", **REF)  # a new trajectory sweeps the idle one
    alive_after_sweep = live_sessions()
    abandoned_closed = sessions.get("req-abandoned") is None and not abandoned.env.running()
    for tool in tools.values():
        await tool.release("after-idle")
    done.set()
    await beat
    await asyncio.sleep(0.5)  # let the relays exit after their stdin closed
    return {
        "answers": answers, "seconds": elapsed, "max_lag_ms": lag["run"] * 1000, "max_lag_whole_ms": lag["max"] * 1000, "idle_lag_ms": lag["idle"] * 1000,
        "idle_loops_lag_ms": lag["others"] * 1000, "fastest_start_ms": min(starts) * 1000, "max_alive": max(seen_alive), "abandoned_closed": abandoned_closed,
        "alive_abandoned": alive_abandoned, "alive_after_sweep": alive_after_sweep, "alive_at_end": live_sessions(),
        # Every process this one started, but the helper that starts them (it lives as long as this process).
        "processes_at_end": [p for p in descendants() if p not in helper_pids()], "helpers": len(helper_pids()),
    }


async def rows_mode(rows_path, config_path):
    config = json.load(open(config_path))
    by_name = {e["tool_schema"]["function"]["name"]: (Tool(e["tool_schema"]["function"]["name"], e["config"]), e["tool_schema"]) for e in config["tools"]}
    out = []
    for i, line in enumerate(open(rows_path)):
        kwargs = json.loads(line)["extra_info"]["tools_kwargs"]
        offered = [name for name in kwargs if name in by_name]  # verl: the tools the row's keys name
        request_id = f"row-{i}"
        for name in offered:
            await by_name[name][0].create(request_id, **kwargs[name]["create_kwargs"])
        first = offered[0]
        required = by_name[first][1]["function"]["parameters"].get("required") or []
        args = {"key": "fr"} if "key" in required else {"a": 2, "b": 3}
        text, _, _ = await by_name[first][0].execute(request_id, args)
        for name in offered:
            await by_name[name][0].release(request_id)
        out.append({"offered": offered, "answer": json.loads(text)})
    return {"rows": out, "alive_at_end": live_sessions()}


if rows_given:
    result = asyncio.run(rows_mode(sys.argv[4], sys.argv[5]))
    with open(out_path, "w") as f:
        json.dump(result, f)
    sys.exit(0)
result = asyncio.run(main())
with open(out_path, "w") as f:
    json.dump(result, f)
print(json.dumps({k: v for k, v in result.items() if k != "answers"}))
