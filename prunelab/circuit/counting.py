"""Exact answers by weighted model counting: one count per question, no diagram kept.

A compiled circuit (:mod:`~prunelab.circuit.compiler`) answers every marginal at
once and draws, but it must be built first, and on the hardest grids that is
where the time goes: the 90 % 50 x 50 grids whose diagrams outgrow their caps at
the root. A weighted model counter asks less: it sums the weights of the models of
the same CNF (:mod:`~prunelab.circuit.encoding`, ``theta`` true weighs its CPT
value ``c``, everything else 1) by search with component caching, and keeps
nothing. So one count gives ``P(e)``, and ``k`` counts with a unit clause each give
the posterior of one ``k``-state variable (their sum is ``P(e)``).

The counter is Ganak (Sharma, Roy, Soos and Meel; through ``pyganak``), which
counts in MPFR arithmetic at 128 bits and returns a double. The count is at most 1;
one below the double's range is shifted back into it: scaling both weights of one
``theta`` Boolean by ``2**t`` scales every model's weight, so the count, by exactly
``2**t``, and the logarithm is corrected. A count of exactly zero is told from an underflow
by the unweighted count of the same CNF (zero only if it has no model).

Caps. Ganak cannot be interrupted, so the counts run in a forked child, which the
parent stops when they have run for ``max_seconds`` or its resident memory passes
``max_bytes`` (polled, and reported by the child with each count, so that a count
past a cap is never accepted, however the parent was scheduled); the refusal names
how many of the counts were done. The child's standard output goes to
``os.devnull``: Ganak writes progress lines there. Where the platform cannot fork,
the counts run in the calling process without caps.

References
----------
.. [1] S. Sharma, S. Roy, M. Soos and K. S. Meel, "GANAK: A scalable probabilistic
   exact model counter", IJCAI 2019 (we run a current release, pyganak 2.8.0).
.. [2] T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
   counting", AAAI 2005.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Sequence

import numpy as np

from ..compiled import CompiledNetwork
from ..extras import require
from .encoding import CircuitEncoding, encode_network, state_literal

__all__ = ["AUTO_COUNT_SECONDS", "CountTooHardError", "MAX_COUNT_BYTES", "MAX_COUNT_SECONDS", "count_inference",
           "log_counts"]

MAX_COUNT_SECONDS = 600.0
"""Longest run of one call's counts before refusing."""

AUTO_COUNT_SECONDS = 120.0
"""Cap on the counts when exact inference turns to them by itself (``method="auto"``)."""

MAX_COUNT_BYTES = 8 * 2**30
"""Largest resident memory of the counting process before refusing."""

_SHIFT_BITS = 960  # one rescaling step: 2**960 is about 1e289, inside the double's range times any c <= 1
_POLL_SECONDS = 0.05


class CountTooHardError(ValueError):
    """The counts reached their time or memory cap; the message says how many were done."""


def _weights(enc: CircuitEncoding, net: CompiledNetwork) -> list[tuple[int, float]]:
    """``(theta Boolean, c)`` for every label indicator."""
    booleans = np.flatnonzero(enc.theta_label >= 0)
    return [(int(b), float(net.cpt[enc.theta_label[b]])) for b in booleans]


def _clauses(enc: CircuitEncoding) -> list[list[int]]:
    """The CNF's clauses as lists of signed Booleans, as the counter takes them (built once per call)."""
    return [enc.clause(k).tolist() for k in range(enc.n_clauses)]


def _one_count(n_booleans: int, clauses, weights, units: Sequence[int], shift: int, weighted: bool = True):
    """One count of the CNF with ``units`` as unit clauses, ``shift`` bits spread over the first thetas."""
    import pyganak

    counter = pyganak.WeightedCounter(prec=128) if weighted else pyganak.Counter()
    counter.new_vars(n_booleans)
    counter.add_clauses(clauses + [[int(u)] for u in units])
    if weighted:
        left = shift
        for b, c in weights:
            step = min(_SHIFT_BITS, left)
            counter.set_lit_weight(b, math.ldexp(c, step))
            counter.set_lit_weight(-b, math.ldexp(1.0, step))
            left -= step
    return counter.count()


def _log_count(n_booleans: int, clauses, weights, units: Sequence[int]) -> float:
    """``log`` of the weighted count (``-inf`` if the CNF with ``units`` has no model), whatever its size.

    The count is at most 1: summing the free variables out from the leaves up, a free
    variable's own CPT row sums to 1 and an observed child's entries are at most 1. So
    only an underflow needs a shift, upwards, by ``_SHIFT_BITS`` per ``theta`` pair.
    """
    if n_booleans == 0:  # everything observed: the one empty state
        return 0.0
    for shift in range(0, _SHIFT_BITS * len(weights) + 1, _SHIFT_BITS):
        value = _one_count(n_booleans, clauses, weights, units, shift)
        if value >= 2.0**-900 or (value > 0.0 and shift == _SHIFT_BITS * len(weights)):
            return math.log(value) - shift * math.log(2.0)
        if value == 0.0 and shift == 0 and _one_count(n_booleans, clauses, weights, units, 0, weighted=False) == 0:
            return -math.inf
    raise OverflowError(f"a weighted count underflows the double's range even shifted by {shift} bits")


def log_counts(enc: CircuitEncoding, net: CompiledNetwork, queries: Sequence[Sequence[int]], *,
               max_seconds: float = MAX_COUNT_SECONDS, max_bytes: int = MAX_COUNT_BYTES,
               what: str = "the network") -> list[float]:
    """``log`` of the weighted model count of ``enc`` with each query's literals as unit clauses.

    Parameters
    ----------
    enc : CircuitEncoding
        The CNF of ``net`` (:func:`~prunelab.circuit.encoding.encode_network`).
    net : CompiledNetwork
        The network and evidence it encodes (the ``theta`` weights are its CPT values).
    queries : sequence of sequences of int
        Signed Booleans of ``enc`` to assert, one count per query; ``[]`` counts the CNF itself.
    max_seconds : float, default :data:`MAX_COUNT_SECONDS`
        Wall-clock cap on all the counts together.
    max_bytes : int, default :data:`MAX_COUNT_BYTES`
        Cap on the counting process's resident memory.
    what : str
        How a refusal names the network.

    Returns
    -------
    list of float
        ``log`` of each weighted count, without ``enc.log_constant``; ``-inf`` where
        the query has no model.

    Raises
    ------
    CountTooHardError
        The counts ran past a cap; the message names the cap and how many counts were done.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit import encode_network
    >>> net = compile_network(load_network("asia"), {"dysp": "yes"})
    >>> enc = encode_network(net)
    >>> [float(round(x, 6)) for x in log_counts(enc, net, [[]])]  # log P(dysp = yes), the constant is 0 here
    [-0.83018]
    """
    queries = [[int(u) for u in q] for q in queries]
    for q in queries:
        bad = [u for u in q if u == 0 or abs(u) > enc.n_booleans]
        if bad:
            raise ValueError(f"query literal {bad[0]} is not a signed Boolean of the CNF (1..{enc.n_booleans})")
    require("pyganak", "counter", "exact counting")  # here, not in the forked child, which could only fail
    problem = (enc.n_booleans, _clauses(enc), _weights(enc, net))
    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return [_log_count(*problem, q) for q in queries]
    reader, writer = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(problem, queries, writer), daemon=True)
    start = time.perf_counter()
    child.start()
    writer.close()
    out: list[float] = []
    peak = 0

    def check_caps(resident: int) -> None:
        nonlocal peak
        peak, seconds = max(peak, resident), time.perf_counter() - start
        cap = (f"{max_seconds:g} s" if seconds > max_seconds else
               f"{max_bytes / 2**30:g} GiB of memory" if peak > max_bytes else None)
        if cap is not None:
            raise CountTooHardError(
                f"counting {what} reached its cap of {cap} after {seconds:.1f} s and "
                f"{peak / 2**30:.2f} GiB, with {len(out)} of its {len(queries)} weighted counts done")

    try:
        while len(out) < len(queries):
            check_caps(_resident_bytes(child.pid))
            if not reader.poll(_POLL_SECONDS):
                continue
            try:
                kind, payload, resident = reader.recv()
            except EOFError:
                child.join()
                raise CountTooHardError(
                    f"counting {what} stopped with {len(out)} of {len(queries)} weighted counts done: the "
                    f"counter's process exited (code {child.exitcode}, out of memory?) after "
                    f"{time.perf_counter() - start:.1f} s") from None
            if kind == "failed":
                raise RuntimeError(f"counting {what} failed in the counter's process: {payload}")
            check_caps(resident)  # the child's own peak: a count is never accepted past a cap the polls missed
            out.append(payload)
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        reader.close()
    return out


def _child(problem, queries, writer) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Ganak prints "c o intermediate count" lines to the standard output of the process
    try:
        import resource  # POSIX: this child exists only where the platform forks

        unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is in bytes on macOS, KiB on Linux
        for q in queries:
            value = _log_count(*problem, q)
            writer.send(("count", value, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit))
    except Exception as err:  # noqa: BLE001 - handed to the parent, which raises it
        writer.send(("failed", f"{type(err).__name__}: {err}", 0))


def _resident_bytes(pid: int) -> int:
    """Resident memory of a process (Linux ``/proc``; 0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def count_inference(names: Sequence[str], net: CompiledNetwork, variables: Sequence[int] | None, *,
                    max_seconds: float = MAX_COUNT_SECONDS,
                    what: str = "the network") -> tuple[float, dict[str, np.ndarray]]:
    """``log P(e)`` and the posteriors of the chosen free variables, ``k`` weighted counts per variable.

    Parameters
    ----------
    names : sequence of str
        The network's variable names (``bn.variables``).
    net : CompiledNetwork
        The network with its evidence; its CNF is :func:`~prunelab.circuit.encoding.encode_network`'s.
    variables : sequence of int or None
        Indices of free variables whose posterior to count, in the order returned;
        ``None`` or empty: none (one count, ``P(e)`` only).
    max_seconds : float, default :data:`MAX_COUNT_SECONDS`
        Cap on all the counts together (:func:`log_counts`).
    what : str
        How a refusal names the network.

    Returns
    -------
    log_probability : float
        ``log P(e)``, ``-inf`` if the evidence is impossible (the posteriors are then empty).
    marginals : dict of str to numpy.ndarray
        The posterior of each chosen variable.

    Raises
    ------
    ImpossibleEvidenceError
        A deterministic zero mentions only observed variables (from the encoding).
    CountTooHardError
        The counts reached a cap (:func:`log_counts`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> bn = load_network("asia")
    >>> net = compile_network(bn, {"dysp": "yes"})
    >>> log_p, post = count_inference(bn.variables, net, [bn.variables.index("bronc")])
    >>> round(float(post["bronc"][0]), 6)
    0.833967
    """
    variables = list(variables or [])
    enc = encode_network(net, names)
    card = net.cardinality
    queries = [[state_literal(enc.state_ptr, enc.state_boolean, card, i, v)] for i in variables
               for v in range(int(card[i]))] or [[]]
    logs = np.array(log_counts(enc, net, queries, max_seconds=max_seconds, what=what))
    first = logs[:int(card[variables[0]])] if variables else logs
    log_p = float(np.logaddexp.reduce(first))
    if log_p == -math.inf:
        return -math.inf, {}
    out, at = {}, 0
    for i in variables:
        k = int(card[i])
        out[names[i]] = np.exp(logs[at:at + k] - np.logaddexp.reduce(logs[at:at + k]))
        at += k
    return log_p + enc.log_constant, out
