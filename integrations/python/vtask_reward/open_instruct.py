"""open-instruct's verifier interface: rows exported with ``vtask export --format open-instruct
--via-vtask`` have ``dataset: vtask``; importing this module before open-instruct builds its
verifiers registers ``VtaskVerifier`` under that name (it subclasses open-instruct's
``VerifierFunction`` when open-instruct is installed, and keeps the same call otherwise).

The ground truth is ``{task, verifier, prompt}`` JSON: the verifier is sent with the task's
prompt (what a judge reads), or, when it runs a program, the task id is (the served dataset
has the program). An undecided verdict scores 0 and is logged (``VTASK_UNDECIDED=raise``
raises); its ``reasoning`` says so. open-instruct asks for one prediction per call: a plain
call is one request over the thread's kept-alive connection, and the ``async_call``s it gathers
on one event loop are sent together, as one request.
"""

import asyncio
import json
import weakref
from dataclasses import dataclass

from .client import Item, VtaskError, default_client, note_undecided, plain_verdicts, verdict_groups

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
        item = _item(prediction, label, query)
        return _result(verdict_groups([item], default_client())[0])

    async def async_call(self, tokenized_prediction, prediction, label, query=None, rollout_state=None):
        item = _item(prediction, label, query)
        verdict = await _batcher().verdict(item)
        note_undecided([verdict], [item])
        return _result(verdict)

    @classmethod
    def get_config_class(cls):
        if _Base is not object:
            return super().get_config_class()
        return dict


def _item(prediction, label, query):
    spec = json.loads(label) if isinstance(label, str) else label
    prompt = spec["prompt"] if isinstance(spec.get("prompt"), str) else query or ""
    return Item(spec["verifier"], prompt, prediction, task=spec.get("task"), file=spec.get("file"))


def _result(verdict):
    reasoning = f"undecided ({verdict['error']}): {verdict.get('reason', '')}" if verdict.get("error") else verdict.get("reason", "")
    return _Result(score=float(verdict["score"]), reasoning=reasoning)


class _Batcher:
    """Gathers the items of the ``async_call``s pending on one event loop into one request."""

    def __init__(self):
        self.pending = []

    async def verdict(self, item):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.pending.append((item, future))
        if len(self.pending) == 1:
            # Runs after the calls already scheduled with this one (asyncio.gather) have queued theirs.
            loop.call_soon(lambda: loop.create_task(self._send()))
        return await future

    async def _send(self):
        batch, self.pending = self.pending, []
        items = [item for item, _ in batch]
        try:
            verdicts = await asyncio.to_thread(plain_verdicts, items, default_client())
        except VtaskError:
            # A refused row (an unknown task id, say) fails its own call only.
            verdicts = await asyncio.gather(*(asyncio.to_thread(plain_verdicts, [item], default_client()) for item in items),
                                            return_exceptions=True)
            verdicts = [v if isinstance(v, BaseException) else v[0] for v in verdicts]
        except Exception as e:  # the server cannot be reached: every call says so
            verdicts = [e] * len(batch)
        for (_, future), verdict in zip(batch, verdicts):
            if future.done():
                continue
            if isinstance(verdict, BaseException):
                future.set_exception(verdict)
            else:
                future.set_result(verdict)


_batchers = {}


def _batcher():
    loop = asyncio.get_running_loop()
    found = _batchers.get(id(loop))
    if found is None or found[0]() is not loop:
        for key in [k for k, (ref, _) in _batchers.items() if ref() is None]:
            del _batchers[key]
        found = (weakref.ref(loop), _Batcher())
        _batchers[id(loop)] = found
    return found[1]
