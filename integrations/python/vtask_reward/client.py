"""The HTTP client of ``vtask serve`` (spec section 5.1)."""

import json
import os
import shlex
import shutil
import urllib.error
import urllib.request


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


class Client:
    """Posts batches of responses to ``/verify`` and returns the verdicts in order."""

    def __init__(self, url=None, token=None, timeout=120.0, batch=1024):
        self.url = (url or os.environ.get("VTASK_URL") or "http://127.0.0.1:8765").rstrip("/")
        self.token = token if token is not None else os.environ.get("VTASK_SERVE_TOKEN")
        self.timeout = timeout
        self.batch = batch

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("content-type", "application/json")
        if self.token:
            req.add_header("authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read().decode("utf-8")).get("error", str(e))
            except ValueError:
                message = str(e)
            raise VtaskError(f"vtask serve at {self.url}: {e.code} {message}") from None
        except urllib.error.URLError as e:
            raise VtaskError(f"vtask serve at {self.url} cannot be reached ({e.reason}): is `vtask serve` running?") from None

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
        responses = list(responses)
        trajectories = None if trajectories is None else list(trajectories)
        if trajectories is not None and len(trajectories) != len(responses):
            raise VtaskError(f"{len(trajectories)} trajectories for {len(responses)} responses")
        out = []
        for start in range(0, len(responses), self.batch):
            body = {"responses": responses[start:start + self.batch]}
            if trajectories is not None and any(t is not None for t in trajectories[start:start + self.batch]):
                body["trajectories"] = trajectories[start:start + self.batch]
            if task is not None:
                body["task"] = task
                if file is not None:
                    body["file"] = file
            else:
                body["verifier"] = verifier
                body["prompt"] = prompt or ""
            out.extend(self._request("POST", "/verify", body)["results"])
        return out


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


def verdict_groups(items, client=None):
    """Verdicts of ``(verifier, prompt, response)`` triples, in order, one request per distinct verifier.

    An item may carry a fourth member, its trajectory (agent tasks; see ``Client.verify``).
    """
    client = client or default_client()
    groups = {}
    for i, (verifier, prompt, response, *trajectory) in enumerate(items):
        key = json.dumps([verifier, prompt], sort_keys=True)
        groups.setdefault(key, (verifier, prompt, []))[2].append((i, response, trajectory[0] if trajectory else None))
    verdicts = [None] * len(items)
    for verifier, prompt, members in groups.values():
        trajectories = [t for _, _, t in members]
        results = client.verify(
            [r for _, r, _ in members], verifier=verifier, prompt=prompt,
            trajectories=trajectories if any(t is not None for t in trajectories) else None,
        )
        for (i, _, _), result in zip(members, results):
            verdicts[i] = result
    return verdicts


def score_groups(items, client=None):
    """Scores (0 to 1) of ``(verifier, prompt, response[, trajectory])`` items, in order."""
    return [float(v["score"]) for v in verdict_groups(items, client)]
