"""Exact answers by weighted model counting: one count per question, no diagram kept.

A compiled circuit (:mod:`~prunelab.circuit.compiler`) answers every marginal at
once and draws, but it must be built first, and on the hardest grids that is
where the time goes: the 90 % 50 x 50 grids whose diagrams outgrow their caps at
the root. A weighted model counter asks less: it sums the weights of the models of
the same CNF (:mod:`~prunelab.circuit.encoding`, ``theta`` true weighs its CPT
value ``c``, everything else 1) by search with component caching, and keeps
nothing. So one count gives ``P(e)``, and the posterior of a ``k``-state variable
takes ``k - 1`` counts more, each with one unit clause (its last state's share is
one minus the others'; see :data:`RECOUNT_BELOW` for when that state is counted too).

The counter is Ganak (Sharma, Roy, Soos and Meel; through ``pyganak``), which
counts in MPFR arithmetic at 128 bits and returns a double. The count is at most 1;
one below the double's range is shifted back into it: scaling both weights of one
``theta`` Boolean by ``2**t`` scales every model's weight, so the count, by exactly
``2**t``, and the logarithm is corrected. A count of exactly zero is told from an underflow
by the unweighted count of the same CNF (zero only if it has no model).

Each count starts afresh: Ganak simplifies the CNF (Arjun) and searches a tree
decomposition of what is left before it counts, and ``pyganak`` exposes none of
their settings. On the smaller relational networks that search is most of a count:
on mastermind_05_08_03 with its evidence files 0011-0015, 81-90 % of each count of
5-8 s (Ganak's own log, ``verbose=1``), against a few thousand decisions of counting
proper; projecting onto an independent support (``set_sampling_set``) does not
shorten it.

Caps. Ganak cannot be interrupted, so the counts run in forked children
(``n_jobs`` of them at once, each taking the next query as it finishes one), which
the parent stops when the call has run for ``max_seconds`` of wall-clock time or
the children's resident memory *together* passes ``max_bytes`` (polled, and
reported by each child with each count, so that a count past a cap is never
accepted, however the parent was scheduled); the refusal names how many of the
counts were done. Each child dies with the parent and has caps of its own
(:mod:`~prunelab.circuit.processes`). The children's standard output goes to
``os.devnull``: Ganak writes progress lines there. Where the platform cannot fork,
the counts run in the calling process, one after another, without caps.

References
----------
.. [1] S. Sharma, S. Roy, M. Soos and K. S. Meel, "GANAK: A scalable probabilistic
   exact model counter", IJCAI 2019 (we run a current release, pyganak 2.8.0).
.. [2] T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
   counting", AAAI 2005.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

import numpy as np

from ..compiled import CompiledNetwork
from ..extras import require
from ..workers import checked_jobs, worker_count
from .encoding import CircuitEncoding, encode_network, state_literal
from .processes import checked_amount, checked_seconds, enter_child, parent_gone, process_bytes

__all__ = ["CountTooHardError", "MAX_COUNT_BYTES", "MAX_COUNT_SECONDS", "RECOUNT_BELOW", "Rival", "RivalAnswered",
           "count_inference", "log_counts"]

MAX_COUNT_SECONDS = 600.0
"""Longest run of one call's counts before refusing."""

MAX_COUNT_BYTES = 8 * 2**30
"""Largest resident memory of the counting processes together before refusing."""

RECOUNT_BELOW = 1e-6
"""A last state's posterior, one minus the others', is counted as well where it comes out below this.

The difference of numbers near 1 loses the digits they share: a posterior ``p``
found so keeps about ``16 + log10(p)`` significant digits (10 at ``1e-6``), and a
posterior of zero comes out as a rounding error. Counted, it keeps the counter's
full relative accuracy; then the variable's ``k`` counts are normalised by their sum.
"""

_SHIFT_BITS = 960  # one rescaling step: 2**960 is about 1e289, inside the double's range times any c <= 1
_POLL_SECONDS = 0.05
_CHILD_BYTES = 2**30  # least address space a counting child may add to what it inherited (its own cap, a backstop)


class CountTooHardError(ValueError):
    """The counts reached their time or memory cap; the message says how many were done."""


@dataclass
class Rival:
    """A process answering the same question beside the counts (:func:`count_inference`'s ``rival=``).

    ``start()`` starts it and returns the connection it is heard on; it is called once
    the counts have gone ``after`` seconds without finishing (at once for 0), never if
    they finish first. It sends one message: ``("answer", ...)`` stops the counts
    (:class:`RivalAnswered`); anything else, or the connection's end, says it gave up,
    and the counts go on alone. What it said then is kept in ``said`` (``("gone",)``
    for the end).
    """

    start: Callable[[], Connection]
    after: float = 0.0
    connection: Connection | None = None
    said: tuple | None = None


class RivalAnswered(Exception):
    """The rival beside the counts sent its answer first; the counts were stopped.

    Attributes
    ----------
    answer : tuple
        What the rival sent, ``("answer", ...)``.
    """

    def __init__(self, answer: tuple):
        super().__init__("a rival answered before the counts were done")
        self.answer = answer


def _weights(enc: CircuitEncoding, net: CompiledNetwork) -> list[tuple[int, float]]:
    """``(theta Boolean, c)`` for every label indicator."""
    booleans = np.flatnonzero(enc.theta_label >= 0)
    return [(int(b), float(net.cpt[enc.theta_label[b]])) for b in booleans]


def _clauses(enc: CircuitEncoding) -> list[list[int]]:
    """The CNF's clauses as lists of signed Booleans, as the counter takes them (built once per call)."""
    return [enc.clause(k).tolist() for k in range(enc.n_clauses)]


def _problem(enc: CircuitEncoding, net: CompiledNetwork) -> tuple:
    """What a count needs: the number of Booleans, the clauses and the weights (built once per call)."""
    return enc.n_booleans, _clauses(enc), _weights(enc, net)


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


def _checked_queries(enc: CircuitEncoding, queries: Sequence[Sequence[int]]) -> list[list[int]]:
    queries = [[int(u) for u in q] for q in queries]
    for q in queries:
        bad = [u for u in q if u == 0 or abs(u) > enc.n_booleans]
        if bad:
            raise ValueError(f"query literal {bad[0]} is not a signed Boolean of the CNF (1..{enc.n_booleans})")
    return queries


def log_counts(enc: CircuitEncoding, net: CompiledNetwork, queries: Sequence[Sequence[int]], *,
               max_seconds: float = MAX_COUNT_SECONDS, max_bytes: int = MAX_COUNT_BYTES, n_jobs: int = 1,
               progress: bool = False, what: str = "the network") -> list[float]:
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
        Wall-clock cap on all the counts together (finite, 0 or more; 0 refuses at once).
    max_bytes : int, default :data:`MAX_COUNT_BYTES`
        Cap on the counting processes' resident memory, all of them together.
    n_jobs : int, default 1
        Counting processes at once, each taking the next query when it finishes one;
        ``-1`` every usable core (:func:`~prunelab.workers.worker_count`: at most one
        per query and per core). The counts are the same whatever ``n_jobs``.
    progress : bool, default False
        A tqdm bar (on the standard error) over the counts done; without it nothing is written.
    what : str
        How a refusal names the network.

    Returns
    -------
    list of float
        ``log`` of each weighted count, in the order of ``queries``, without
        ``enc.log_constant``; ``-inf`` where the query has no model.

    Raises
    ------
    CountTooHardError
        The counts ran past a cap; the message names the cap and how many counts were done.
    TypeError, ValueError
        A cap or ``n_jobs`` of the wrong type or value, named, or a query literal that
        is not a Boolean of ``enc``; before anything is counted.

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
    counts = _Counts(max_seconds, max_bytes, n_jobs, what)
    queries = _checked_queries(enc, queries)
    counts.problem = _problem(enc, net)
    with _bar(progress, len(queries)) as bar:
        return counts.run(queries, bar)


class _Counts:
    """One call's counts, in one or more rounds: the caps (time from the start), the counts done and asked."""

    def __init__(self, max_seconds, max_bytes, n_jobs, what: str, rival: Rival | None = None):
        self.rival = rival  # heard until it gives up
        self.max_seconds = checked_seconds("max_seconds", max_seconds)
        self.max_bytes = checked_amount("max_bytes", max_bytes, "bytes")
        self.n_jobs = checked_jobs(n_jobs)
        require("pyganak", "counter", "exact counting")  # here, not in a forked child, which could only fail
        self.what = what
        self.problem: tuple = ()  # set by the caller once the caps are checked (_problem)
        self.start = time.perf_counter()
        self.done = self.asked = 0
        self.workers: int | None = None  # counting processes, set by the first round

    def run(self, queries: list[list[int]], bar) -> list[float]:
        """The log counts of ``queries``, in their order."""
        self.asked += len(queries)
        if not queries:
            return []
        try:
            ctx = mp.get_context("fork")
        except ValueError:  # no fork (Windows): here, one after another, without caps
            out = []
            for q in queries:
                out.append(_log_count(*self.problem, q))
                self.done += 1
                if bar is not None:
                    bar.update()
            return out
        if self.workers is None:  # the call's first round: a lowered n_jobs is the caller's to hear
            self.workers = worker_count(self.n_jobs, len(queries), "counts") if self.n_jobs != 1 else 1
        n_workers = min(self.workers, len(queries))  # a later round of fewer counts: no second warning
        out: list[float | None] = [None] * len(queries)
        pending = iter(range(len(queries)))
        busy: dict = {}  # connection -> child, for the children counting a query
        peaks: dict = {}  # child pid -> the most resident memory seen or reported
        children = []
        parent = os.getpid()

        def hand_out(conn, child) -> None:
            k = next(pending, None)
            conn.send(k)
            if k is None:
                busy.pop(conn, None)
            else:
                busy[conn] = child

        try:
            for _ in range(n_workers):
                conn, child_conn = ctx.Pipe()
                inherited = [c for c, _ in children] + [conn]  # the child closes them: the parent's end is its watch
                child = ctx.Process(target=_child, args=(self.problem, queries, child_conn, inherited, parent,
                                                         self.max_seconds, max(self.max_bytes, _CHILD_BYTES)),
                                    daemon=True)
                child.start()
                child_conn.close()
                children.append((conn, child))
                peaks[child.pid] = 0
                hand_out(conn, child)
            while busy:
                for child in busy.values():
                    peaks[child.pid] = max(peaks[child.pid], process_bytes(child.pid))
                self._check_caps(peaks)
                if (self.rival is not None and self.rival.connection is None
                        and time.perf_counter() - self.start >= self.rival.after):
                    self.rival.connection = self.rival.start()
                heard = [self.rival.connection] if self.rival is not None and self.rival.connection else []
                for conn in wait(list(busy) + heard, _POLL_SECONDS):
                    if self.rival is not None and conn is self.rival.connection:
                        self._hear_rival()
                        continue
                    child = busy[conn]
                    try:
                        kind, k, payload, resident = conn.recv()
                    except EOFError:
                        child.join()
                        raise CountTooHardError(
                            f"counting {self.what} stopped with {self.done} of {self.asked} weighted counts done: "
                            f"the counter's process exited (code {child.exitcode}, out of memory?) after "
                            f"{time.perf_counter() - self.start:.1f} s") from None
                    if kind == "failed":
                        raise RuntimeError(f"counting {self.what} failed in the counter's process: {payload}")
                    peaks[child.pid] = max(peaks[child.pid], resident)
                    self._check_caps(peaks)  # the child's own peak: never a count accepted past a cap polls missed
                    out[k] = payload
                    self.done += 1
                    if bar is not None:
                        bar.update()
                    hand_out(conn, child)
        finally:
            for conn, child in children:
                if child.is_alive():
                    child.kill()
                child.join()
                conn.close()
        return out

    def _hear_rival(self) -> None:
        """An answer from the rival stops the counts; anything else (or its end) leaves them to go on alone."""
        try:
            said = self.rival.connection.recv()
        except EOFError:
            said = ("gone",)
        if said[0] == "answer":
            raise RivalAnswered(said)
        self.rival.said, self.rival = said, None

    def _check_caps(self, peaks: dict) -> None:
        resident, seconds = sum(peaks.values()), time.perf_counter() - self.start
        cap = (f"{self.max_seconds:g} s" if seconds > self.max_seconds else
               f"{self.max_bytes / 2**30:g} GiB of memory" if resident > self.max_bytes else None)
        if cap is not None:
            raise CountTooHardError(
                f"counting {self.what} reached its cap of {cap} after {seconds:.1f} s and "
                f"{resident / 2**30:.2f} GiB, with {self.done} of its {self.asked} weighted counts done")


@contextlib.contextmanager
def _bar(progress: bool, total: int):
    """A tqdm bar over ``total`` counts if ``progress`` (as :func:`prunelab.sample` shows chains), else ``None``.

    No bar at all without ``progress``: even a disabled one makes a multiprocessing lock.
    """
    if not progress:
        yield None
        return
    from tqdm import tqdm  # the text bar: tqdm.auto warns in kernels without ipywidgets

    bar = tqdm(total=total, desc="weighted counts")
    try:
        yield bar
    finally:
        bar.close()


def _child(problem, queries, conn, inherited, parent: int, max_seconds: float, extra_bytes: int) -> None:
    """Count the queries the parent hands out, by index, until it hands out ``None`` (or is gone)."""
    enter_child(parent, cpu_seconds=max_seconds, extra_bytes=extra_bytes)
    for c in inherited:
        c.close()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Ganak prints "c o intermediate count" lines to the standard output of the process
    import resource  # POSIX: this child exists only where the platform forks

    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is in bytes on macOS, KiB on Linux
    k = None
    try:
        while True:
            k = conn.recv()
            if k is None or parent_gone(parent):
                return
            value = _log_count(*problem, queries[k])
            conn.send(("count", k, value, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit))
    except EOFError:  # the parent is gone
        return
    except Exception as err:  # noqa: BLE001 - handed to the parent, which raises it
        conn.send(("failed", k, f"{type(err).__name__}: {err}", 0))


def count_inference(names: Sequence[str], net: CompiledNetwork, variables: Sequence[int] | None, *,
                    max_seconds: float = MAX_COUNT_SECONDS, max_bytes: int = MAX_COUNT_BYTES, n_jobs: int = 1,
                    progress: bool = False, what: str = "the network", rival: Rival | None = None
                    ) -> tuple[float, dict[str, np.ndarray]]:
    """``log P(e)`` and the posteriors of the chosen free variables: one count, then ``k - 1`` per variable.

    ``P(e)`` is counted first; then every state of each variable but its last, with
    that state's unit clause; the last state's posterior is one minus the others',
    except where that comes out below :data:`RECOUNT_BELOW`, where it is counted
    too (in a second round) and the variable's ``k`` counts are normalised by their
    sum. A binary variable so takes one count, or two where its second state is rare.

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
        Wall-clock cap on the whole call, every round of counts (:func:`log_counts`).
    max_bytes : int, default :data:`MAX_COUNT_BYTES`
        Cap on the counting processes' resident memory together (:func:`log_counts`).
    n_jobs : int, default 1
        Counting processes at once (:func:`log_counts`); the answers are the same whatever it is.
    progress : bool, default False
        A tqdm bar over the counts done (:func:`log_counts`).
    what : str
        How a refusal names the network.
    rival : Rival, optional
        A process answering the same question beside the counts: its answer stops
        them (:class:`RivalAnswered`, raised with it); if it gives up they go on.

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
    RivalAnswered
        The rival answered first.

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
    variables = [int(i) for i in (variables or [])]
    counts = _Counts(max_seconds, max_bytes, n_jobs, what, rival)
    enc = encode_network(net, names)
    counts.problem = _problem(enc, net)
    card = [int(k) for k in net.cardinality]

    def unit(i: int, v: int) -> list[int]:
        return [state_literal(enc.state_ptr, enc.state_boolean, net.cardinality, i, v)]

    queries = [[]] + [unit(i, v) for i in variables for v in range(card[i] - 1)]
    with _bar(progress, len(queries)) as bar:
        logs = counts.run(queries, bar)
        log_p = logs[0]
        if log_p == -math.inf:
            return -math.inf, {}
        state_logs, share, at = {}, {}, 1
        for i in variables:
            state_logs[i] = logs[at:at + card[i] - 1]
            at += card[i] - 1
            p = np.exp(np.array(state_logs[i]) - log_p)
            share[i] = np.append(p, 1.0 - math.fsum(p.tolist()))
        recount = [i for i in variables if share[i][-1] < RECOUNT_BELOW]
        if recount:
            if bar is not None:
                bar.total += len(recount)
                bar.refresh()
            for i, last in zip(recount, counts.run([unit(i, card[i] - 1) for i in recount], bar)):
                every = np.array([*state_logs[i], last])
                share[i] = np.exp(every - np.logaddexp.reduce(every))
    return log_p + enc.log_constant, {names[i]: share[i] for i in variables}
