"""Ray: one ``vtask serve`` per Ray node, and datasets scored with Ray Data.

    import ray
    from vtask_reward.ray import score_dataset

    ray.init()
    rows = ray.data.read_parquet("rollouts.parquet")   # `vtask export --format trl` rows + a "response" column
    scored = score_dataset(rows, tasks=["data/"])   # adds vtask_score, vtask_pass, vtask_reason

The scoring tasks of a node share one ``vtask serve`` (``VtaskServer``, one process per core:
``--workers auto``), started on a free port by a named Ray actor the first task there creates
(``node_server_url``) and reused by every later task, worker and dataset with the same task
files; it lives until the Ray cluster stops. Each block of rows is one request, whatever the
rows' verifiers, over a kept-alive connection. The ``vtask`` command is the
``command`` argument, else ``VTASK_CLI`` (for example ``node /path/to/out/cli.js``), else ``vtask``
on the PATH. Importing this module does not import Ray.
"""

import atexit
import ctypes
import hashlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time

from .client import Client, Item, VtaskError, completion_text, is_undecided, prompt_text, vtask_command, verdict_groups, verifier_of

_LISTENING = "listening on "


def _libc_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Looked up once here: a child between fork and exec must not load libraries.
_PRCTL = _libc_prctl() if os.name == "posix" else None
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # Linux: the server gets SIGTERM when the process that started it dies, even by SIGKILL (as Ray
    # ends its workers), so no server outlives its worker. Elsewhere, stop() and atexit do it.
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


class VtaskServer:
    """``vtask serve TASKS --port 0`` as a child process: ``start()`` waits until it answers ``/health``."""

    def __init__(self, tasks, command=None, workers=1, start_timeout=60.0, request_timeout=120.0, args=()):
        self.tasks = [tasks] if isinstance(tasks, (str, os.PathLike)) else list(tasks)
        if not self.tasks:
            raise VtaskError("name the task files or folders the server loads")
        self.argv = vtask_command(command) + ["serve", *map(str, self.tasks), "--port", "0", "--workers", str(workers), *args]
        self.start_timeout = start_timeout
        self.request_timeout = request_timeout
        self.process = None
        self.url = None
        self._stderr = []
        self._stderr_done = False

    def start(self):
        deadline = time.monotonic() + self.start_timeout
        preexec = _die_with_parent if _PRCTL is not None else None
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            encoding="utf-8", errors="replace", preexec_fn=preexec,
        )
        atexit.register(self.stop)
        lines = queue.Queue()
        # Both pipes are drained for the server's whole life, so it never blocks writing to them.
        threading.Thread(target=self._drain, args=(self.process.stdout, lines.put), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._drain, args=(self.process.stderr, self._keep_stderr), daemon=True)
        self._stderr_reader.start()
        try:
            self.url = self._listening_url(lines, deadline)
            self.client = Client(url=self.url, timeout=self.request_timeout)
            self._wait_healthy(deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def _listening_url(self, lines, deadline):
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise VtaskError(f"`{shlex.join(self.argv)}` did not start listening in {self.start_timeout:g} s{self._why()}") from None
            if line is None:
                raise self._exited()
            if line.startswith(_LISTENING):
                return line[len(_LISTENING):].strip()

    def _wait_healthy(self, deadline):
        probe = Client(url=self.url, timeout=5.0)
        while True:
            try:
                probe.health()
                return
            except VtaskError:
                if self.process.poll() is not None:
                    raise self._exited() from None
                if time.monotonic() >= deadline:
                    raise VtaskError(f"vtask serve at {self.url} did not answer /health in {self.start_timeout:g} s{self._why()}") from None
                time.sleep(0.05)

    @staticmethod
    def _drain(pipe, put):
        for line in pipe:
            put(line)
        put(None)

    def _keep_stderr(self, line):
        # The first paragraph says what went wrong (vtask's error, or a crash's message); the
        # usage text or stack trace after it would drown it.
        if line is None or self._stderr_done:
            return
        if line.strip():
            self._stderr.append(line.rstrip())
        self._stderr_done = len(self._stderr) >= 5 or (not line.strip() and bool(self._stderr))

    def _exited(self):
        # Its last words first: the error lines may still be in the pipe when stdout closes.
        self._stderr_reader.join(timeout=5)
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = "none (it closed its output but still runs)"
        return VtaskError(f"`{shlex.join(self.argv)}` exited with code {code}{self._why()}")

    def _why(self):
        return ": " + " | ".join(self._stderr) if self._stderr else ""

    def stop(self, timeout=10.0):
        """Stops the server (SIGTERM, then SIGKILL after ``timeout`` seconds); safe to call twice."""
        process, self.process = self.process, None
        atexit.unregister(self.stop)
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)

    def __enter__(self):
        return self.start() if self.process is None else self

    def __exit__(self, *exc):
        self.stop()


_NODE_NAMESPACE = "vtask"


def node_server_url(tasks, command=None, workers="auto", start_timeout=60.0, serve_args=()):
    """The URL of this node's ``vtask serve`` of ``tasks``, started by the first caller on the node.

    The server is held by a detached, named Ray actor (namespace ``vtask``, name
    ``vtask-serve-NODE-KEY``, no CPU reserved: the server's own processes do the work), so workers,
    batches and datasets that score with the same task files reuse it; it stops with the cluster.
    """
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    tasks = [tasks] if isinstance(tasks, (str, os.PathLike)) else list(tasks)
    node = ray.get_runtime_context().get_node_id()
    key = hashlib.sha256(json.dumps([list(map(str, tasks)), command, str(workers), list(serve_args)]).encode()).hexdigest()[:16]
    holder = ray.remote(_ServerHolder).options(
        name=f"vtask-serve-{node[:16]}-{key}", namespace=_NODE_NAMESPACE, get_if_exists=True, lifetime="detached",
        num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
    ).remote(tasks, command, workers, start_timeout, tuple(serve_args))
    return ray.get(holder.url.remote())


class _ServerHolder:
    """The Ray actor that keeps a node's server: started once, asked for its URL by every worker."""

    def __init__(self, tasks, command, workers, start_timeout, serve_args):
        self.server = VtaskServer(tasks, command, workers=workers, start_timeout=start_timeout, args=serve_args).start()

    def url(self):
        return self.server.url


class VtaskScorer:
    """A callable class for ``Dataset.map_batches``: the workers of a node share one server.

    A row's verifier is its ``vtask_verifier`` column (rows of ``vtask export --format trl``), else
    ``extra_info.vtask_verifier`` (``--format verl``), else a math check of its ``solution``.
    Rows whose verifier runs a program are scored by their task id (``task_id``, or
    ``extra_info.task_id``) against the server's task files. ``vtask_undecided`` marks the
    verdicts that could not be given (score 0; logged, or raised with ``VTASK_UNDECIDED=raise``).
    """

    def __init__(self, tasks, command=None, response_column="response", prefix="vtask_", workers="auto",
                 start_timeout=60.0, request_timeout=120.0, serve_args=(), request_rows=4096):
        # serve_args: more `vtask serve` options, such as the judge model (--base-url URL --model NAME).
        # request_rows: the most responses per request, so that a batch up to the server's
        # --max-batch (4096 unless serve_args says otherwise) goes as one request.
        # Outside Ray (a plain call) the scorer starts a server of its own and stops it when dropped.
        self.server = None
        if _ray_running():
            url = node_server_url(tasks, command, workers, start_timeout, serve_args)
        else:
            self.server = VtaskServer(tasks, command, workers=workers, start_timeout=start_timeout,
                                      request_timeout=request_timeout, args=tuple(serve_args)).start()
            url = self.server.url
        self.client = Client(url=url, timeout=request_timeout, batch=request_rows)
        self.response_column = response_column
        self.prefix = prefix

    def __call__(self, batch):
        responses = _column(batch, self.response_column)
        if responses is None:
            raise VtaskError(f"the batch has no {self.response_column!r} column (columns: {', '.join(map(str, batch.keys()))})")
        n = len(responses)
        prompts = _column(batch, "prompt") or [""] * n
        extras = [_plain_dict(extra) or {} for extra in (_column(batch, "extra_info") or [None] * n)]
        verifiers = _column(batch, "vtask_verifier") or [extra.get("vtask_verifier") for extra in extras]
        tasks = _column(batch, "task_id") or [extra.get("task_id") for extra in extras]
        files = _column(batch, "file") or [extra.get("file") for extra in extras]
        solutions = _column(batch, "solution") or [None] * n
        items = [
            Item(verifier_of(v, s), prompt_text(p), completion_text(r), None, task, f)
            for p, r, v, s, task, f in zip(prompts, responses, verifiers, solutions, tasks, files)
        ]
        verdicts = verdict_groups(items, self.client)
        batch[self.prefix + "score"] = [float(v["score"]) for v in verdicts]
        batch[self.prefix + "pass"] = [bool(v["pass"]) for v in verdicts]
        batch[self.prefix + "reason"] = [str(v.get("reason") or "") for v in verdicts]
        batch[self.prefix + "undecided"] = [is_undecided(v) for v in verdicts]
        return batch

    def __del__(self):
        server = getattr(self, "server", None)
        if server is not None:
            server.stop()


def _ray_running():
    try:
        import ray
    except ImportError:
        return False
    return ray.is_initialized()


def _column(batch, name):
    if name not in batch:
        return None
    values = batch[name]
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _plain_dict(value):
    return value if value is None or isinstance(value, dict) else dict(value)


# This process's scorers, by their options: a Ray worker process runs many scoring tasks, of
# this dataset and the next, and each reuses the scorer (its connection to the node's server).
_scorers = {}


def _score_batch(batch, options):
    key = json.dumps(options, sort_keys=True, default=str)
    scorer = _scorers.get(key)
    if scorer is None:
        scorer = _scorers[key] = VtaskScorer(**options)
    return scorer(batch)


def score_dataset(dataset, tasks, command=None, concurrency=None, batch_size=4096, num_cpus=0.25, **scorer_options):
    """``dataset`` with ``vtask_score``, ``vtask_pass`` and ``vtask_reason`` columns, scored by
    at most ``concurrency`` Ray tasks at once, through one ``vtask serve`` of ``tasks`` per node.

    The rows are cut into blocks of ``batch_size`` first: Ray Data gives a map one task per
    block, and a dataset read as one block (one Parquet file, one DataFrame) would otherwise be
    scored by one worker however many there are. Each block is one request to the server (up to
    4096 rows, the server's ``--max-batch``; larger ones are split). Blocks are large because each
    task costs Ray some 40 ms of CPU (measured on 2 cores), what the server spends verifying
    about 800 rows. Scoring runs as tasks, not an actor pool: Ray keeps its worker processes, so
    the next dataset of the job reuses them and their connections, where an actor pool starts
    new processes (about 2 s of CPU each) for every dataset.

    ``concurrency`` defaults to twice the cluster's CPUs: a scoring task spends about half its
    time waiting for its server's answer, so one task per core leaves the cores half idle (on 2
    cores, 4 tasks scored 28,775 rows/s where 2 scored 20,716; ``scripts/bench-ray.mjs``).

    ``num_cpus`` is what each task reserves from Ray. The verifying is done by its ``vtask serve``
    process, outside Ray's accounting, and tasks that reserved every CPU would leave none for the
    tasks that read the dataset: the pipeline would wait forever. The default, 0.25 for twice the
    CPUs in tasks, reserves half of them.
    """
    if concurrency is None:
        import ray

        concurrency = max(1, 2 * int(ray.cluster_resources().get("CPU", 1)))
    options = {"tasks": [tasks] if isinstance(tasks, (str, os.PathLike)) else list(tasks), "command": command, **scorer_options}
    return dataset.repartition(target_num_rows_per_block=batch_size).map_batches(
        _score_batch,
        fn_kwargs={"options": options},
        concurrency=concurrency,
        num_cpus=num_cpus,
        batch_size=batch_size,
        batch_format="pandas",
    )
