"""The HTTP client of ``vtask serve`` (spec section 5.1)."""

import http.client
import json
import logging
import os
import shlex
import shutil
import threading
import time
import urllib.parse
from collections import namedtuple

log = logging.getLogger("vtask_reward")


class VtaskError(RuntimeError):
    """The server answered with an error, or could not be reached."""


def vtask_command(command=None):
    """The command that runs vtask, as a list: ``command``, else ``VTASK_CLI``, else ``vtask``."""
    command = command or os.environ.get("VTASK_CLI") or "vtask"
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv or shutil.which(argv[0]) is None:
        raise VtaskError(
            f"the vtask command {argv[:1]} is not found: install vtask, or set VTASK_CLI (e.g. 'node /path/to/out/cli.js')"
        )
    return argv


# A kept-alive connection the server closed between two requests: sent again once, on a new one.
_STALE = (http.client.RemoteDisconnected, http.client.CannotSendRequest, http.client.BadStatusLine,
          ConnectionResetError, BrokenPipeError)


class Client:
    """Posts batches of responses to ``/verify`` and returns the verdicts in order.

    Each thread keeps one connection alive (no TCP handshake per request); at most ``in_flight``
    requests of this client are outstanding at once, and a request the server turns away as busy
    (503) is sent again after its ``Retry-After``, at most ``retries`` times.
    """

    def __init__(self, url=None, token=None, timeout=120.0, batch=1024, in_flight=8, retries=6):
        self.url = (url or os.environ.get("VTASK_URL") or "http://127.0.0.1:8765").rstrip("/")
        self.token = token if token is not None else os.environ.get("VTASK_SERVE_TOKEN")
        self.timeout = timeout
        self.batch = batch
        self.retries = retries
        self._parts = urllib.parse.urlsplit(self.url)
        self._window = threading.BoundedSemaphore(max(1, in_flight))
        self._local = threading.local()

    def _connection(self, fresh=False):
        local = self._local
        # A forked process must not share its parent's socket.
        if fresh or getattr(local, "pid", None) != os.getpid() or local.conn is None:
            if getattr(local, "conn", None) is not None and local.pid == os.getpid():
                local.conn.close()
            kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
            local.conn, local.pid = kind(self._parts.hostname, self._parts.port, timeout=self.timeout), os.getpid()
        return local.conn

    def _exchange(self, method, path, data):
        headers = {"content-type": "application/json", "connection": "keep-alive"}
        if self.token:
            headers["authorization"] = "Bearer " + self.token
        for attempt in (0, 1):
            conn = self._connection(fresh=attempt > 0)
            try:
                conn.request(method, self._parts.path + path, body=data, headers=headers)
                res = conn.getresponse()
                return res.status, res.getheader("retry-after"), res.read()
            except _STALE:
                conn.close()
                if attempt:
                    raise
            except BaseException:
                conn.close()
                raise

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        for attempt in range(self.retries + 1):
            try:
                with self._window:
                    status, retry_after, raw = self._exchange(method, path, data)
            except (OSError, http.client.HTTPException) as e:
                raise VtaskError(f"vtask serve at {self.url} cannot be reached ({e}): is `vtask serve` running?") from None
            if status == 503 and attempt < self.retries:
                time.sleep(_backoff(retry_after, attempt))
                continue
            if status >= 400:
                try:
                    message = json.loads(raw.decode("utf-8")).get("error", raw[:200])
                except ValueError:
                    message = raw[:200].decode("utf-8", "replace")
                raise VtaskError(f"vtask serve at {self.url}: {status} {message}")
            return json.loads(raw.decode("utf-8"))

    def health(self):
        return self._request("GET", "/health")

    def verify(self, responses, task=None, verifier=None, prompt=None, file=None, trajectories=None):
        """Verdicts (dicts with ``pass``, ``score``, ``reason``) for ``responses``, in order.

        Name a ``task`` of the files the server loaded (and its ``file`` when the id repeats), or
        give a ``verifier`` as a dict (``{"math": {"answer": "72"}}``) with its ``prompt``.
        ``trajectories`` (agent tasks) has one entry per response, or None for one without:
        ``{"calls": [{"tool", "args", "result" or "error"}], "state": ...}``, so that the
        verifier's ``trajectory`` and ``state`` checks score as in ``vtask run``.
        """
        request = {"responses": list(responses), "trajectories": trajectories}
        if task is not None:
            request["task"], request["file"] = task, file
        else:
            request["verifier"], request["prompt"] = verifier, prompt or ""
        answer = self.verify_many([request])[0]
        if "error" in answer:
            raise VtaskError(f"vtask serve at {self.url}: {answer['status']} {answer['error']}")
        return answer["results"]

    def verify_many(self, requests):
        """Answers of several ``/verify`` requests (dicts with ``responses`` and ``task`` or
        ``verifier``), in order, sent as batches of at most ``batch`` responses each: one HTTP
        request per batch, whatever the verifiers. Each answer is ``{"results": [...]}``, or
        ``{"error", "status"}`` for a request the server refused (the others are still scored).
        """
        pieces = []  # (request index, the item sent), a request longer than a batch in pieces
        for k, request in enumerate(requests):
            item = {key: value for key, value in request.items() if value is not None}
            responses = list(item.get("responses", ()))
            trajectories = item.pop("trajectories", None)
            trajectories = None if trajectories is None else list(trajectories)
            if trajectories is not None and len(trajectories) != len(responses):
                raise VtaskError(f"{len(trajectories)} trajectories for {len(responses)} responses")
            for start in range(0, max(1, len(responses)), self.batch):
                piece = dict(item, responses=responses[start:start + self.batch])
                if trajectories is not None and any(t is not None for t in trajectories[start:start + self.batch]):
                    piece["trajectories"] = trajectories[start:start + self.batch]
                pieces.append((k, piece))
        answers = [{"results": []} for _ in requests]
        for chunk in _chunks(pieces, self.batch):
            for (k, _), answer in zip(chunk, self._request("POST", "/verify", {"items": [p for _, p in chunk]})["items"]):
                if "error" in answer:
                    answers[k] = answer
                elif "error" not in answers[k]:
                    answers[k]["results"].extend(answer["results"])
        return answers


def _backoff(retry_after, attempt):
    """Seconds to wait before asking a busy server again: its ``Retry-After``, growing with each try."""
    try:
        base = float(retry_after)
    except (TypeError, ValueError):
        base = 0.5
    return min(30.0, max(base, 0.25) * (1.5 ** attempt))


def _chunks(pieces, limit):
    """Consecutive runs of ``pieces`` with at most ``limit`` responses each (a larger piece alone)."""
    chunk, size = [], 0
    for piece in pieces:
        n = len(piece[1]["responses"])
        if chunk and size + n > limit:
            yield chunk
            chunk, size = [], 0
        chunk.append(piece)
        size += n
    if chunk:
        yield chunk


_default = None


def default_client():
    """One client per process, configured from the environment."""
    global _default
    if _default is None:
        _default = Client()
    return _default


def verifier_of(vtask_verifier=None, ground_truth=None):
    """The verifier of a row: its ``vtask_verifier`` JSON, else a math check of its ground truth."""
    if vtask_verifier:
        return json.loads(vtask_verifier) if isinstance(vtask_verifier, str) else vtask_verifier
    if ground_truth is None:
        raise VtaskError("the row has neither vtask_verifier nor a ground truth")
    return {"math": {"answer": str(ground_truth)}}


def completion_text(completion):
    """The answer of a completion: conversational ones are lists of messages, the last one answers."""
    completion = _plain(completion)
    if isinstance(completion, list):
        return _plain(completion[-1])["content"] if completion else ""
    return completion


def prompt_text(prompt):
    """The last user message of a conversational prompt, or the prompt itself."""
    prompt = _plain(prompt)
    if isinstance(prompt, list):
        users = [m["content"] for m in map(_plain, prompt) if m.get("role") == "user"]
        return users[-1] if users else ""
    return prompt or ""


def _plain(value):
    # Columnar readers (Ray Data, pandas over pyarrow) hand lists over as numpy arrays.
    return value.tolist() if hasattr(value, "tolist") and not isinstance(value, (str, bytes)) else value


# One response to score: its row's verifier and prompt, the response, and optionally the agent's
# trajectory and the row's task id and file (what scores it by id; see ``by_task``).
Item = namedtuple("Item", "verifier prompt response trajectory task file", defaults=(None, None, None))

# Verifier kinds that run a program named in the verifier: a served dataset resolves it against
# its own files, so such a row is scored by task id, never by sending the verifier inline.
PROGRAM_KINDS = frozenset({"script"})


def runs_program(verifier):
    """Whether ``verifier`` (a dict, or composites of them) has a kind that runs a program."""
    if isinstance(verifier, dict):
        return any(k in PROGRAM_KINDS or runs_program(v) for k, v in verifier.items())
    if isinstance(verifier, list):
        return any(runs_program(v) for v in verifier)
    return False


def by_task(item):
    """Whether the item is scored by its task id against the served dataset (see ``PROGRAM_KINDS``)."""
    if not runs_program(item.verifier):
        return False
    if not item.task:
        raise VtaskError(
            "this row's verifier runs a program, so it is scored by task id against `vtask serve` started on the "
            "dataset, and the row has no task id (export it with vtask)"
        )
    return True


def verdict_groups(items, client=None, undecided=None):
    """Verdicts of ``Item``s (or ``(verifier, prompt, response[, trajectory])`` tuples), in order.

    One HTTP request for the lot (per ``client.batch`` responses), whatever the verifiers: the
    responses of a verifier and prompt travel as one batch item; rows whose verifier runs a program
    go by task id. Each undecided verdict is reported (see ``note_undecided``).
    """
    verdicts = plain_verdicts(items, client)
    note_undecided(verdicts, items, undecided)
    return verdicts


def plain_verdicts(items, client=None):
    """``verdict_groups`` without reporting the undecided verdicts (the caller does)."""
    client = client or default_client()
    groups = {}
    for i, raw in enumerate(items):
        item = raw if isinstance(raw, Item) else Item(*raw)
        by_id = by_task(item)
        key = json.dumps(["task", item.task] if by_id else ["inline", item.verifier, item.prompt], sort_keys=True)
        groups.setdefault(key, (by_id, item, []))[2].append((i, item.response, item.trajectory))
    groups = list(groups.values())
    requests = [_request_of(by_id, first, members) for by_id, first, members in groups]
    answers = client.verify_many(requests)
    # An id in several served files: the row's own file tells them apart.
    again = [k for k, a in enumerate(answers) if 'add "file"' in a.get("error", "") and groups[k][1].file]
    for k, answer in zip(again, client.verify_many([dict(requests[k], file=groups[k][1].file) for k in again])):
        answers[k] = answer
    verdicts = [None] * len(items)
    for (_, _, members), answer in zip(groups, answers):
        if "error" in answer:
            raise VtaskError(f"vtask serve at {client.url}: {answer['status']} {answer['error']}")
        for (i, _, _), result in zip(members, answer["results"]):
            verdicts[i] = result
    return verdicts


def _request_of(by_id, first, members):
    trajectories = [t for _, _, t in members]
    request = {"responses": [r for _, r, _ in members], "trajectories": trajectories if any(t is not None for t in trajectories) else None}
    if by_id:
        request["task"] = first.task
    else:
        request["verifier"], request["prompt"] = first.verifier, first.prompt or ""
    return request


def score_groups(items, client=None, undecided=None):
    """Scores (0 to 1) of ``Item``s, in order."""
    return [float(v["score"]) for v in verdict_groups(items, client, undecided)]


UNDECIDED_MODES = ("warn", "raise")
_LOGGED_EACH = 10  # the first undecided verdicts are logged one by one, then one line per 100
_undecided = {"count": 0, "by_error": {}}


class UndecidedVerdict(VtaskError):
    """A verdict could not be given (no judge model, script missing, timeout, crash) and the run said to raise."""


def undecided_mode(mode=None):
    mode = mode or os.environ.get("VTASK_UNDECIDED") or "warn"
    if mode not in UNDECIDED_MODES:
        raise ValueError(f"VTASK_UNDECIDED is one of {UNDECIDED_MODES}, not {mode!r}")
    return mode


def is_undecided(verdict):
    """A verdict that could not be given: it carries ``error`` (its score 0 says nothing about the response)."""
    return bool(verdict.get("error"))


def undecided_count():
    """Undecided verdicts this process has scored as 0, and how many of each error (``timeout``, ``unavailable``, ...)."""
    return {"count": _undecided["count"], "by_error": dict(_undecided["by_error"])}


def reset_undecided():
    _undecided["count"] = 0
    _undecided["by_error"].clear()


def note_undecided(verdicts, items=(), mode=None):
    """Counts and logs the undecided verdicts; raises ``UndecidedVerdict`` when ``mode`` (or
    ``VTASK_UNDECIDED``) is ``raise``. Returns how many of ``verdicts`` were undecided."""
    mode = undecided_mode(mode)
    found = 0
    for i, v in enumerate(verdicts):
        if not is_undecided(v):
            continue
        found += 1
        _undecided["count"] += 1
        _undecided["by_error"][v["error"]] = _undecided["by_error"].get(v["error"], 0) + 1
        n = _undecided["count"]
        item = items[i] if i < len(items) else None
        task = item.task if isinstance(item, Item) else None
        what = f"task {task!r}: " if task else ""
        message = f"vtask: undecided verdict ({v['error']}) scored 0: {what}{v.get('reason', '')}"
        if mode == "raise":
            raise UndecidedVerdict(message + " (VTASK_UNDECIDED=raise)")
        if n <= _LOGGED_EACH:
            log.warning("%s", message)
        elif n % 100 == 0:
            log.warning("vtask: %d undecided verdicts scored 0 so far (%s); the last: %s", n, _undecided["by_error"], message)
    return found
