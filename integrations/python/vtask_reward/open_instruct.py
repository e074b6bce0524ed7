"""open-instruct's verifier interface: rows exported with ``vtask export --format open-instruct
--via-vtask`` have ``dataset: vtask``; importing this module before open-instruct builds its
verifiers registers ``VtaskVerifier`` under that name (it subclasses open-instruct's
``VerifierFunction`` when open-instruct is installed, and keeps the same call otherwise).

The ground truth is ``{task, verifier, prompt}`` JSON: the verifier is sent with the task's
prompt (what a judge reads), or, when it runs a program, the task id is (the served dataset
has the program). An undecided verdict scores 0 and is logged (``VTASK_UNDECIDED=raise``
raises); its ``reasoning`` says so. open-instruct asks for one prediction per call, so each
call is one request, over the thread's kept-alive connection.
"""

import asyncio
import json
from dataclasses import dataclass

from .client import Item, default_client, verdict_groups

try:
    from open_instruct.ground_truth_utils import VerificationResult as _Result  # type: ignore
    from open_instruct.ground_truth_utils import VerifierFunction as _Base  # type: ignore
except ImportError:  # open-instruct is not installed: the same interface, standalone
    _Base = object

    @dataclass
    class _Result:  # type: ignore[no-redef]
        score: float
        cost: float = 0.0
        reasoning: str = ""


class VtaskVerifier(_Base):  # type: ignore[misc, valid-type]
    """Scores a prediction with the vtask verifier carried in the row's ground truth."""

    def __init__(self, verifier_config=None):
        if _Base is not object:
            super().__init__("vtask", verifier_config=verifier_config, weight=1.0)
        else:
            self.name, self.weight, self.verifier_config = "vtask", 1.0, verifier_config

    def __call__(self, tokenized_prediction, prediction, label, query=None, rollout_state=None):
        spec = json.loads(label) if isinstance(label, str) else label
        prompt = spec["prompt"] if isinstance(spec.get("prompt"), str) else query or ""
        item = Item(spec["verifier"], prompt, prediction, task=spec.get("task"), file=spec.get("file"))
        result = verdict_groups([item], default_client())[0]
        reasoning = f"undecided ({result['error']}): {result.get('reason', '')}" if result.get("error") else result.get("reason", "")
        return _Result(score=float(result["score"]), reasoning=reasoning)

    async def async_call(self, tokenized_prediction, prediction, label, query=None, rollout_state=None):
        return await asyncio.to_thread(self.__call__, tokenized_prediction, prediction, label, query, rollout_state)

    @classmethod
    def get_config_class(cls):
        if _Base is not object:
            return super().get_config_class()
        return dict
