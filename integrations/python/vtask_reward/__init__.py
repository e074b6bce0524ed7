"""Score RLVR rollouts with vtask's verifiers.

Every function here is a thin client of ``vtask serve`` (HTTP, standard library only): the
verification logic lives in vtask, so a trainer scores exactly as the editor and the CLI do.
Point it at a server with ``VTASK_URL`` (default ``http://127.0.0.1:8765``) and, when the
server has one, ``VTASK_SERVE_TOKEN``.
"""

from .client import Client, UndecidedVerdict, VtaskError, default_client, undecided_count
from .trl import vtask_reward
from .verl import compute_score, compute_score_batch

__all__ = [
    "Client", "VtaskError", "UndecidedVerdict", "default_client", "undecided_count",
    "compute_score", "compute_score_batch", "vtask_reward",
]
