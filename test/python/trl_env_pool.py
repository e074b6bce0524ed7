"""TRL's use of vtask environments, as GRPOTrainer makes it, without the trainer.

    python3 trl_env_pool.py ENV_DIR OUT.json

Builds the factories from a row of the key-value store, makes four instances and resets them
in a sequential loop as GRPOTrainer does, twice (two steps), each rollout calling ``get``. OUT
gets how long each reset loop took, the answers, the process ids each instance used per step,
each rollout's trajectory, a cut rollout's trajectory, and the processes alive after
``close_environments()``. With ``VTASK_URL`` (a ``vtask serve`` of the key-value task), it also
calls ``vtask_reward`` as GRPOTrainer calls it, the four instances handed as ``environments``
beside completions alternately answered and cut by the turn limit (each holding the right
answer), and keeps the rewards and the ``vtask_reason`` column it logged.
"""

import json
import os
import sys
import time

from proc_tree import descendants
from vtask_reward import vtask_reward
from vtask_reward.environment import live_environments
from vtask_reward.trl_env import close_environments, trl_environments

env_dir, out_path = sys.argv[1], sys.argv[2]
row = {"prompt": [{"role": "user", "content": "fr?"}], "environment": "kv_store.mjs", "environment_args": "{}", "max_turns": 4,
       "task_id": "kv", "vtask_verifier": json.dumps({"match": {"answer": "Paris", "tag": "answer"}})}
factory = trl_environments([row], base_dir=env_dir, pool=2)["kv_store.mjs"]
instances = [factory() for _ in range(4)]
steps = []
for step in range(2):
    t = time.perf_counter()
    for env in instances:  # GRPOTrainer's loop: one reset after another
        env.reset(**{k: v for k, v in row.items() if k != "environment"})
    reset_seconds = time.perf_counter() - t
    answers = [env.get(key="fr") for env in instances]
    steps.append({
        "reset_seconds": reset_seconds, "ready_seconds": time.perf_counter() - t, "answers": answers,
        "pids": [env._env._proc.pid for env in instances], "trajectories": [env._vtask_trajectory() for env in instances],
    })
call = {"type": "function", "function": {"name": "get", "arguments": {"key": "fr"}}}
cut = instances[0]._vtask_trajectory([{"role": "assistant", "content": "<answer>Paris</answer>", "tool_calls": [call]}])
answered = instances[0]._vtask_trajectory([{"role": "assistant", "content": "<answer>Paris</answer>"}])
scored = None
if os.environ.get("VTASK_URL"):
    # TRL's completion of a rollout: the call turn, the tool's answer, then the last turn; cut
    # by max_tool_calling_iterations, that last turn's calls were never answered.
    def rollout(cut):
        last = {"role": "assistant", "content": "<answer>Paris</answer>", **({"tool_calls": [call]} if cut else {})}
        return [{"role": "assistant", "content": "", "tool_calls": [call]}, {"role": "tool", "name": "get", "content": '"Paris"'}, last]

    extra, batch = {}, [row] * 4
    rewards = vtask_reward(
        prompts=[r["prompt"] for r in batch], completions=[rollout(cut=i % 2 == 1) for i in range(4)],
        completion_ids=[[0]] * 4, environments=instances, trainer_state=None,
        log_extra=lambda column, values: extra.setdefault(column, []).extend(values), log_metric=lambda name, value: None,
        **{k: [r[k] for r in batch] for k in row if k != "prompt"},
    )
    scored = {"rewards": rewards, "reasons": extra.get("vtask_reason")}
alive_before = live_environments()
close_environments()
result = {"steps": steps, "cut": cut, "answered": answered, "scored": scored, "alive_before_close": alive_before,
          "alive_after_close": live_environments(), "processes_after_close": descendants()}
with open(out_path, "w") as f:
    json.dump(result, f)
print(json.dumps([{k: v for k, v in s.items() if k.endswith("seconds")} for s in steps]))
