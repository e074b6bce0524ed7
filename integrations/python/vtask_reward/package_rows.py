"""What the packages ``vtask export`` writes for verifiers and Inspect share.

Their rows carry vtask's fields (``info`` in a verifiers row, ``metadata`` in an Inspect sample):
``task_id``, ``vtask_verifier`` (JSON text), ``tags``, ``band``, ``pass_rate``, and for agent tasks
``environment`` (relative to the row file), ``environment_args`` (JSON text) and ``max_turns``.
This module reads them, applies the loaders' filters, extracts the text of a chat message
whatever its class, and gives the ``vtask serve`` client the package scores with: the server at
``serve_url``, else ``VTASK_SERVE_URL``, else one started for the process (``vtask serve`` of the
package's data folder, stopped at exit).
"""

import asyncio
import atexit
import json
import os
import threading

from .client import Client, Item, is_undecided, note_undecided, plain_verdicts, verifier_of
from .ray import VtaskServer


def info_of(value):
    """A row's vtask fields: ``info`` is JSON text in a verifiers row (as verifiers stores it), a mapping elsewhere."""
    if isinstance(value, str):
        return json.loads(value) if value else {}
    return dict(value or {})


def _as_set(value):
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


def keeps(info, ids=None, tags=None, bands=None):
    """Whether a row with these vtask fields passes the loader's filters (``None`` keeps all)."""
    ids, tags, bands = _as_set(ids), _as_set(tags), _as_set(bands)
    if ids is not None and info.get("task_id") not in ids:
        return False
    if tags is not None and not tags.intersection(info.get("tags") or ()):
        return False
    return bands is None or info.get("band") in bands


def message_text(message):
    """The text of a chat message: a dict or a message object, its content a string or a list of parts."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    if isinstance(content, str):
        return content
    parts = []
    for part in content or ():
        text = part.get("text") if isinstance(part, dict) else getattr(part, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return "".join(parts)


def role_of(message):
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def last_user_text(messages):
    """What vtask calls the prompt: the last user message."""
    users = [message_text(m) for m in messages or () if role_of(m) == "user"]
    return users[-1] if users else ""


def answer_text(messages):
    """The response vtask scores: the last assistant message's text."""
    answers = [message_text(m) for m in messages or () if role_of(m) == "assistant"]
    return answers[-1] if answers else ""


_servers = {}
_lock = threading.Lock()


def serve_client(data_dir, serve_url=None, serve_args=()):
    """The client of the ``vtask serve`` to score with (see the module's doc)."""
    url = serve_url or os.environ.get("VTASK_SERVE_URL")
    if url:
        return Client(url=url)
    key = (os.path.abspath(data_dir), tuple(serve_args))
    with _lock:
        server = _servers.get(key)
        if server is None or server.process is None or server.process.poll() is not None:
            # The package's own folder: no task files, so every row is scored by its inline verifier.
            server = VtaskServer([key[0]], args=list(serve_args)).start()
            _servers[key] = server
    return server.client


def stop_servers():
    """Stops the servers this process started (also done at exit)."""
    with _lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()


atexit.register(stop_servers)


def undecided(reason, error="environment"):
    """The verdict of a rollout that cannot be scored (its environment failed): never a plain 0."""
    return {"pass": False, "score": 0.0, "reason": reason, "error": error}


def verdicts(client, infos, prompts, responses, trajectories, failures=None):
    """One verdict per response, in order, from one request (per 1,024 responses) to ``client``;
    a rollout whose environment failed (``failures[i]``, its reason) gets an undecided verdict."""
    failures = failures or [None] * len(responses)
    items, where = [], []
    for i, (info, prompt, response, trajectory, failed) in enumerate(zip(infos, prompts, responses, trajectories, failures)):
        if failed is None:
            items.append(Item(verifier_of(info.get("vtask_verifier")), prompt, response, trajectory, info.get("task_id"), info.get("file")))
            where.append(i)
    out = [undecided(f) if f is not None else None for f in failures]
    for i, v in zip(where, plain_verdicts(items, client) if items else []):
        out[i] = v
    return out


class VerdictBatcher:
    """Verdicts for asyncio callers that each score one response (Inspect's scorer runs once per
    sample, many samples at once): the requests of one moment (``window`` seconds, 10 ms) go to
    ``vtask serve`` together, one HTTP request per 1,024 responses, off the event loop."""

    def __init__(self, client, window=0.01):
        self.client = client
        self.window = window
        self._pending = []
        self._timer = None

    async def verdict(self, info, prompt, response, trajectory=None, failure=None):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append(((info_of(info), prompt, response, trajectory, failure), future))
        if self._timer is None:
            self._timer = loop.call_later(self.window, lambda: loop.create_task(self._flush()))
        return await future

    async def _flush(self):
        batch, self._pending, self._timer = self._pending, [], None
        columns = [list(c) for c in zip(*(item for item, _ in batch))]
        try:
            found = await asyncio.to_thread(verdicts, self.client, *columns)
        except BaseException as e:  # every waiting sample learns why
            for _, future in batch:
                if not future.done():
                    future.set_exception(e)
            return
        for (_, future), verdict in zip(batch, found):
            if not future.done():
                future.set_result(verdict)


__all__ = [
    "info_of", "keeps", "message_text", "last_user_text", "answer_text", "serve_client", "stop_servers",
    "verdicts", "VerdictBatcher", "note_undecided", "is_undecided", "undecided",
]
