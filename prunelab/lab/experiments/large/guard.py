"""A pyAgrum run in a child process, stopped if it overruns its budget (:func:`run_peer_guarded`)."""

from __future__ import annotations

import sys
from pathlib import Path

from prunelab.network import BayesianNetwork
import pickle
from ...peers import run_sampler
import os
import subprocess
import tempfile
from ...peers import PeerRun

__all__ = ["GUARDED_SAMPLERS", "PEER_GRACE_SECONDS", "run_peer_guarded"]


GUARDED_SAMPLERS = ("pyagrum-gibbs", "pyagrum-importance", "pyagrum-weighted")
"""Peers run in a child process that is stopped if it overruns (see :func:`run_peer_guarded`);
loopy belief propagation checks its clock at every message round and runs in the worker."""


PEER_GRACE_SECONDS = 60.0
"""A pyAgrum run is given its budget plus this long (process start, conversion) before it is stopped."""


def _peer_child() -> None:
    """Body of :func:`run_peer_guarded`'s child: pickled arguments on stdin, the pickled result to a file."""
    out, sampler, bn, evidence, seconds, seed = pickle.load(sys.stdin.buffer)
    try:
        result = run_sampler(sampler, bn, evidence, seconds=seconds, seed=seed)
    except Exception as exc:  # sent to the parent, which raises it  # noqa: BLE001
        result = exc
    Path(out).write_bytes(pickle.dumps(result))


def run_peer_guarded(sampler: str, bn: BayesianNetwork, evidence, seconds: float, seed: int, timeout: float):
    """:func:`prunelab.lab.peers.run_sampler` in a child process, stopped after ``timeout`` seconds.

    pyAgrum checks its time limit between samples, and its likelihood weighting
    draws again a sample whose weight is zero: on evidence that forward samples
    almost never meet, one sample never ends and ``setMaxTime`` is not enforced. The
    child (a fresh interpreter, which works inside joblib's workers too) is then
    killed and the run is returned with status ``"timed out"``.

    Returns
    -------
    PeerRun

    Raises
    ------
    Exception
        What the sampler raised in the child.
    """
    package_root = str(Path(__file__).resolve().parents[4])  # the folder holding prunelab/
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    code = "from prunelab.lab.experiments.large.guard import _peer_child; _peer_child()"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.pickle"
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, env=env)
        try:
            _, err = child.communicate(pickle.dumps((str(out), sampler, bn, evidence, seconds, seed)), timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return PeerRun(sampler, "timed out", note=(
                f"no result {timeout:g} s after the start of a {seconds:g} s budget: pyAgrum checks its time "
                "limit only between samples, and one sample did not end (likelihood weighting draws again a "
                "sample whose weight is zero)"))
        if not out.exists():  # the child died without a word (a crash in the C++ library)
            last = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
            return PeerRun(sampler, "crashed", note=f"the peer's process ended with exit code {child.returncode}: "
                                                    f"{last[0][:300]}")
        result = pickle.loads(out.read_bytes())
    if isinstance(result, Exception):
        raise result
    return result
