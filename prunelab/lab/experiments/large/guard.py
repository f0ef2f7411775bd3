"""A pyAgrum run in a forked child, stopped if it overruns its budget (:func:`run_peer_guarded`)."""

from __future__ import annotations

import math

from prunelab.network import BayesianNetwork

from ...peers import PeerRun, run_sampler
from ..guard import guarded

__all__ = ["GUARDED_SAMPLERS", "PEER_GRACE_SECONDS", "run_peer_guarded"]


GUARDED_SAMPLERS = ("pyagrum-gibbs", "pyagrum-importance", "pyagrum-weighted")
"""Peers run in a child process that is stopped if it overruns (see :func:`run_peer_guarded`);
loopy belief propagation checks its clock at every message round and runs in the worker."""


PEER_GRACE_SECONDS = 60.0
"""A pyAgrum run is given its budget plus this long (conversion, result) before it is stopped."""


def run_peer_guarded(sampler: str, bn: BayesianNetwork, evidence, seconds: float, seed: int, timeout: float):
    """:func:`prunelab.lab.peers.run_sampler` in a forked child, stopped after ``timeout`` seconds.

    The child is :func:`~prunelab.lab.experiments.guard.guarded`'s. pyAgrum checks its
    time limit between samples, and its likelihood weighting draws again a sample
    whose weight is zero: on evidence that forward samples almost never meet, one
    sample never ends and ``setMaxTime`` is not enforced. The child is then killed
    and the run is returned with status ``"timed out"``.

    Returns
    -------
    PeerRun
        The child's run; ``"timed out"`` past ``timeout``; ``"crashed"`` where the
        sampler raised (``note``: the exception's class and message) or its process died.
    """
    out = guarded(lambda: run_sampler(sampler, bn, evidence, seconds=seconds, seed=seed), timeout, math.inf)
    if out["status"] == "answered":
        return out["value"]
    if out["status"] == "timed out":
        return PeerRun(sampler, "timed out", note=(
            f"no result {timeout:g} s after the start of a {seconds:g} s budget: pyAgrum checks its time "
            "limit only between samples, and one sample did not end (likelihood weighting draws again a "
            "sample whose weight is zero)"))
    return PeerRun(sampler, "crashed", note=f"{out['error']}: {out['message']}")
