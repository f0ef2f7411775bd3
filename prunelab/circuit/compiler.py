"""Compile a network with evidence into a sentential decision diagram (PySDD), and export it as arrays.

The CNF of :mod:`prunelab.circuit.encoding` is compiled *bottom-up by region*:
every clause is attached to the lowest vtree node whose leaves hold all its
Booleans, and the diagram of a vtree node is the conjunction of its two children's
diagrams and its own clauses. Each apply then works on a region of the network
(one side of a dissection), not on the whole CNF at once, which keeps the
intermediate diagrams near the size of the final one.

The clauses a node owns are those that cross its cut, and every apply that
conjoins one of them into the node's diagram walks that whole diagram: at the
root of a 90 % grid of side 36 the 178 crossing clauses took 7.4 of the 11.4 s,
conjoining the two halves none. So a node's clauses are first conjoined a family
at a time (the clauses of one CPT, at most :data:`FAMILY_CLAUSES` of them) into a
small diagram of their own, and each such part then meets the node's diagram in
one apply (``conjoin="family"``; ``"clause"`` is the one-clause-at-a-time order):
1.5-2 times less CPU on 90 % grids of sides 36 and 40, and 90 % 40 x 40 seed 1 in
58 s of CPU where clause by clause ran past 300 s. Larger parts were slower on
multi-valued networks, whose large CPTs make large parts: CPU seconds for parts
of at most 1 (clause by clause) / 8 / 32 / unlimited clauses were 0.64 / 0.49 /
0.61 / 2.1 on alarm and 1.08 / 0.66 / 13.2 / - on hailfinder with its frozen
evidence, while 90 % grids were the same at 8 and 32.

On the largest grids all the cost is at the root. On 90 % 46 x 46 seed 1 both
halves compile in 2 s of CPU (345 k and 86 k elements); conjoining the 46
families that cross the root's cut is everything else: the root's elements
multiply as the cut's families come in (1, 2, 3, 5, ... 120 after 21 of them,
5.9 M elements alive, for the default cut with the halves swapped), because the
right half's function depends on more and more of the left half's boundary. How
fast they multiply depends on where the network's determinism puts the
information, not on the cut's weight: the grid cut at right angles had 10
elements after 20 families (1.5 M alive) and 40 after 24 (3.1 M), and compiled
(12.7 M elements, 296 s of CPU, 1.0 GiB), where the default cut had been refused
after 737 s with 5.9 M alive; on 90 % 40 x 40 seed 1 the turned cut took 31 s of
CPU (8.2 M) against 58 s (10.3 M), on 36 x 36 seed 1 both 3.6 s. Which of the two cuts is cheaper cannot be read off
the graph (both cross 46 arcs), so :func:`compile_cnf` can *race* vtrees
(``rivals=``): a rival starts in its own child when the compilations running have
gone :data:`RACE_AFTER_SECONDS` without finishing, the first diagram finished
wins, and the racers share the size cap. Networks that compile in less never
start a rival. :func:`~prunelab.circuit.inference.compile_circuit` races the
dissection against the same dissection with the root's cut turned at right
angles (``dissection_vtree(..., turn_root=True)``).

The compiler is the SDD library (Darwiche's, through PySDD); everything after it
is ours: the diagram is written in the library's text format, read back into
flat arrays with numba (:mod:`prunelab.circuit.sdd_file`), and the counting and
drawing passes run over those arrays (:mod:`prunelab.circuit.passes`).

Caps. Compilation stops with :class:`CircuitTooLargeError`, naming the size
reached, when the diagrams alive exceed ``max_size`` elements
(:data:`MAX_CIRCUIT_SIZE`) or the compilation has run for ``max_seconds``.
The library compiles in a forked child process that reports its size as it
goes, so the time cap holds even inside one long apply (which the library
cannot interrupt: a 10 s cap used to end after 13-60 s on some pgmpy networks);
the child's diagram comes back through the text export, as it would anyway. A
vtree may be given as a function that builds it, called in the child, so that
the cap counts its building too (the spectral dissection of a 90 % grid of side
30 took 13 s, which a 3 s cap used not to see). The child dies with its parent
and has caps of its own (:mod:`~prunelab.circuit.processes`): CPU seconds, and
address space at :data:`CHILD_ELEMENT_BYTES` per element of ``max_size`` past
what it inherited. Caps of the wrong type or value are refused before anything
forks. Where the platform cannot fork, the compilation runs in the calling
process and the time cap is checked between applies and after the vtree is built.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ..extras import require
from .encoding import CircuitEncoding
from .processes import checked_amount, checked_seconds, enter_child, parent_gone
from .sdd_file import parse_sdd
from .vtree import Vtree, read_vtree, write_vtree

__all__ = [
    "CHILD_ELEMENT_BYTES", "CONJOIN", "FAMILY_CLAUSES", "Circuit", "CircuitTooLargeError", "MAX_CIRCUIT_SIZE",
    "MAX_COMPILE_SECONDS", "RACE_AFTER_SECONDS",
    "compile_cnf",
]

MAX_CIRCUIT_SIZE = 100_000_000
"""Largest diagram (elements alive in the manager) compiled before refusing: about 6 GiB in the SDD library."""

CONJOIN = ("family", "clause")
"""Values of ``conjoin=`` in :func:`compile_cnf`."""

FAMILY_CLAUSES = 8
"""Most clauses of one family conjoined into a part of their own before the part meets the node's diagram."""

MAX_COMPILE_SECONDS = 600.0
"""Longest compilation before refusing (checked between applies)."""

RACE_AFTER_SECONDS = 20.0
"""How long the compilations running go without finishing before :func:`compile_cnf` starts the next rival."""

CHILD_ELEMENT_BYTES = 128
"""Address space a compiling child may add, past what it inherited, per element of ``max_size`` (1 GiB more).

Twice the SDD library's use (about 6 GiB at :data:`MAX_CIRCUIT_SIZE`): a backstop
for when the parent cannot watch; the parent's size cap comes first.
"""

VtreeSource = Vtree | Callable[[], Vtree]
"""A vtree, or a function of no arguments that builds it (called in the capped child)."""


class CircuitTooLargeError(ValueError):
    """The diagram outgrew its cap; the message names the size reached and where."""


class Circuit(NamedTuple):
    """A compiled circuit as flat arrays (children before parents; the root is the last node).

    Attributes
    ----------
    kind : int8 (n_nodes,)
        :data:`~prunelab.circuit.sdd_file.FALSE`, ``TRUE``, ``LITERAL`` or ``DECISION``.
    literal : int64 (n_nodes,)
        The signed Boolean of a literal node.
    node_vtree : int64 (n_nodes,)
        The vtree position a node is normalised for, -1 for the constants.
    elem_ptr, prime, sub : int64
        CSR list of a decision node's elements ``(prime, sub)``.
    vtree : Vtree
    encoding : CircuitEncoding
    vtree_name : str
        Which vtree the diagram is for: ``"dissection"``, ``"turned"`` or
        ``"elimination"`` (:data:`~prunelab.circuit.inference.VTREES`) when
        :func:`~prunelab.circuit.inference.compile_circuit` chose it by name, and
        after a race the name of the vtree that won; ``"given"`` for a vtree passed
        in. Pass it as ``vtree=`` to compile, or to sample over, the same circuit again.
    """

    kind: np.ndarray
    literal: np.ndarray
    node_vtree: np.ndarray
    elem_ptr: np.ndarray
    prime: np.ndarray
    sub: np.ndarray
    vtree: Vtree
    encoding: CircuitEncoding
    vtree_name: str = "given"

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return int(self.kind.shape[0])

    @property
    def size(self) -> int:
        """Number of elements (the SDD library's "size")."""
        return int(self.prime.shape[0])


def _clause_regions(enc: CircuitEncoding, vt: Vtree, conjoin: str = "family") -> list[list[list[int]]]:
    """For every vtree position, the clauses whose Booleans all lie under it and under neither child, in groups.

    ``conjoin="family"`` groups a position's clauses by the variable that owns the
    latest of their Booleans (for a CPT's clauses, its child: the clauses of one
    family); ``"clause"`` makes every clause a group of its own.
    """
    n = enc.n_clauses
    if n == 0:
        return [[] for _ in range(vt.n_nodes)]
    rank = np.empty(enc.n_booleans + 1, dtype=np.int64)
    rank[vt.leaf_boolean] = np.arange(vt.leaf_boolean.shape[0])
    leaf_pos = np.empty(vt.leaf_boolean.shape[0], dtype=np.int64)
    leaves = np.flatnonzero(vt.left < 0)
    leaf_pos[vt.leaf_lo[leaves]] = leaves
    booleans = np.abs(enc.clause_literal)
    starts = enc.clause_ptr[:-1]
    ranks = rank[booleans]
    lo, hi = np.minimum.reduceat(ranks, starts), np.maximum.reduceat(ranks, starts)
    u = leaf_pos[lo]
    up = vt.leaf_hi[u] <= hi
    while up.any():  # climb, all clauses at once, to the lowest node whose leaves hold the clause
        u[up] = vt.parent[u[up]]
        up = vt.leaf_hi[u] <= hi
    key = np.maximum.reduceat(enc.owner[booleans], starts) if conjoin == "family" else np.arange(n)
    order = np.lexsort((np.arange(n), key, u))
    regions: list[list[list[int]]] = [[] for _ in range(vt.n_nodes)]
    cut = np.flatnonzero((np.diff(u[order]) != 0) | (np.diff(key[order]) != 0)) + 1
    for group in np.split(order, cut):
        for piece in range(0, group.shape[0], FAMILY_CLAUSES):
            regions[int(u[group[0]])].append(group[piece:piece + FAMILY_CLAUSES].tolist())
    return regions


def compile_cnf(enc: CircuitEncoding, vt: VtreeSource, *, max_size: int = MAX_CIRCUIT_SIZE,
                max_seconds: float = MAX_COMPILE_SECONDS, minimize: bool = False, conjoin: str = "family",
                what: str = "the network", started: float | None = None, isolate: bool = True,
                rivals: Sequence[VtreeSource] = (), race_after: float = RACE_AFTER_SECONDS,
                names: Sequence[str] | None = None) -> Circuit:
    """Compile the CNF ``enc`` for the vtree ``vt`` and return the diagram's arrays.

    Parameters
    ----------
    enc : CircuitEncoding
    vt : Vtree or callable
        The vtree, or a function of no arguments that builds it: called in the
        compiler's child, so that the time cap counts its building (in this process
        where the compilation is not isolated).
    max_size : int, default :data:`MAX_CIRCUIT_SIZE`
        Refuse once the manager holds more live elements than this (an integer, 0 or more).
    max_seconds : float, default :data:`MAX_COMPILE_SECONDS`
        Refuse once compilation has run this long (a hard stop: see the module
        docstring; finite, 0 or more: 0 refuses at the first check).
    minimize : bool, default False
        Let the SDD library rotate and swap the vtree as diagrams grow (dynamic
        minimisation); slower to compile, sometimes much smaller.
    conjoin : {"family", "clause"}, default "family"
        How a vtree node's own clauses are conjoined into its diagram: a family's
        clauses (at most :data:`FAMILY_CLAUSES`) first into a part of their own,
        then the part into the node's diagram, or one clause at a time (see the
        module docstring for the measurements).
    what : str
        Names the network in messages.
    started : float, optional
        The :func:`time.perf_counter` reading the time cap counts from (e.g. before
        the encoding and the vtree were built); default now.
    isolate : bool, default True
        Compile in a forked child process, so that the time cap is a hard stop
        (costs a fork, 40-90 ms measured on a loaded 2-core machine); False compiles
        here and checks the time cap between applies only, as a daemonic process
        (a dask worker) always does, since it may not start children.
    rivals : sequence of Vtree or callable, optional
        Further vtrees (or functions that build them, as ``vt``) to race against
        ``vt`` (isolated compilation only; a rival built equal to ``vt`` stops): each
        starts in a child of its own once the compilations running have run
        ``race_after`` seconds without finishing, and the first diagram finished
        is returned, for its own vtree; the others are stopped. The racers share
        the size cap: when together they hold more than ``max_size`` elements,
        the largest is stopped. See the module docstring for why.
    race_after : float, default :data:`RACE_AFTER_SECONDS`
    names : sequence of str, optional
        The names of ``vt`` and of each rival, one each, for the circuit's
        :attr:`Circuit.vtree_name`; default ``"given"`` for ``vt`` and
        ``"rival 1"``, ``"rival 2"``, ... for the rivals.

    Returns
    -------
    Circuit

    Raises
    ------
    CircuitTooLargeError
        A cap was reached; the message gives the size and time reached.
    TypeError, ValueError
        A cap of the wrong type or value, named, before anything forks.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> from prunelab.circuit.vtree import dissection_vtree
    >>> from prunelab.circuit.compiler import compile_cnf
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enc = encode_network(net)
    >>> circuit = compile_cnf(enc, dissection_vtree(net, enc))
    >>> int(circuit.kind[-1])  # the root is a decision node (DECISION)
    3
    """
    require("pysdd.sdd", "circuit", "compiling a circuit")  # imported here once, not in every forked child

    start = time.perf_counter() if started is None else started
    max_size = checked_amount("max_size", max_size, "elements")
    max_seconds = checked_seconds("max_seconds", max_seconds)
    race_after = checked_seconds("race_after", race_after)
    if conjoin not in CONJOIN:
        raise ValueError(f"conjoin must be one of {CONJOIN}, got {conjoin!r}")
    names = ["given", *(f"rival {k + 1}" for k in range(len(rivals)))] if names is None else list(names)
    if len(names) != 1 + len(rivals):
        raise ValueError(f"names must name the vtree and each of its {len(rivals)} rivals: got {len(names)} names")
    # a daemonic process (a dask worker, a multiprocessing pool's) may not have children: compile here then
    forked = isolate and "fork" in mp.get_all_start_methods() and not mp.current_process().daemon
    vtrees = [vt, *rivals] if forked else [vt]
    caps = _Caps(max_size, max_seconds, start, what, os.getpid())
    caps.check_clock("before its compilation started")
    with tempfile.TemporaryDirectory(prefix="prunelab-sdd-") as top:
        entries = []
        for k, v in enumerate(vtrees):
            tmp = os.path.join(top, str(k))
            os.mkdir(tmp)
            entries.append((v, tmp))
        if forked:
            won = _supervise(enc, entries, caps, minimize, conjoin, race_after)
        else:  # not isolated, or no fork (Windows): the time cap is checked between applies only
            won = 0
            built = _built(enc, vt, conjoin, entries[0][1])
            caps.check_clock("while its vtree was built")
            _compile_regions(enc, built[0], built[1], caps, minimize, entries[0][1], lambda message: None)
        vt, tmp = entries[won]
        vtree_path = os.path.join(tmp, "circuit.vtree")
        sdd_path = os.path.join(tmp, "circuit.sdd")
        if minimize or not isinstance(vt, Vtree):  # rotated by the library, or built in the child: read it back
            vt = read_vtree(vtree_path, enc.n_booleans)
        kind, lit, node_vtree, elem_ptr, prime, sub = parse_sdd(sdd_path)
    for a in (kind, lit, node_vtree, elem_ptr, prime, sub):
        a.setflags(write=False)
    return Circuit(kind, lit, node_vtree, elem_ptr, prime, sub, vt, enc, names[won])


def _built(enc: CircuitEncoding, source: VtreeSource, conjoin: str, tmp: str):
    """``(vtree, clause regions)`` of a vtree or its builder, the vtree written to ``tmp/circuit.vtree``."""
    vt = source() if callable(source) else source
    if not isinstance(vt, Vtree):
        raise TypeError(f"a vtree's builder returned a {type(vt).__name__}, not a Vtree")
    write_vtree(vt, os.path.join(tmp, "circuit.vtree"))
    return vt, _clause_regions(enc, vt, conjoin)


class _Caps(NamedTuple):
    max_size: int
    max_seconds: float
    start: float
    what: str
    parent: int  # the process that checks the caps (its children die with it)

    def message(self, live: int, seconds: float, share: float) -> str:
        return (f"compiling {self.what} into a decision diagram stopped at {live:,} elements alive after "
                f"{seconds:.1f} s (caps: {self.max_size:,} elements, {self.max_seconds:g} s), with "
                f"{share:.0%} of its Booleans compiled")

    def check_clock(self, stage: str) -> None:
        """Refuse, naming ``stage``, if the time cap has passed (between stages the library cannot interrupt)."""
        seconds = time.perf_counter() - self.start
        if seconds > self.max_seconds:
            raise CircuitTooLargeError(f"{self.message(0, seconds, 0.0)}: the cap passed {stage}")


def child_extra_bytes(max_size: int) -> int:
    """Address space a compiling process may add to what it inherited (its ``RLIMIT_AS``, a backstop).

    1 GiB, and :data:`CHILD_ELEMENT_BYTES` per element of ``max_size``.

    Examples
    --------
    >>> child_extra_bytes(0) == 2**30
    True
    """
    return 2**30 + CHILD_ELEMENT_BYTES * max_size


_PROGRESS_SECONDS = 0.05  # the child reports its size at most this often


def _supervise(enc: CircuitEncoding, entries, caps: _Caps, minimize: bool, conjoin: str, race_after: float) -> int:
    """Compile each ``(vtree or builder, folder)`` of ``entries`` in a forked child; the index of the first done.

    The first entry starts at once, each further one when the children running
    have gone ``race_after`` seconds without finishing (or at once when all
    running ones were refused). Children build their vtree, then report the size
    alive as they go; a refusal names the largest size reported, or that the vtrees
    were still being built. A child that dies (e.g. out of memory) is refused the
    same way. A rival whose vtree is the first one's stops. The others are stopped
    when one is done.
    """
    from multiprocessing.connection import wait

    ctx = mp.get_context("fork")
    running: dict = {}
    live = [0] * len(entries)
    share = [0.0] * len(entries)
    building = [True] * len(entries)
    refusals: list[str] = []
    extra_bytes = child_extra_bytes(caps.max_size)

    def launch(k: int) -> None:
        reader, writer = ctx.Pipe(duplex=False)
        source, tmp = entries[k]
        first = os.path.join(entries[0][1], "circuit.vtree") if k else None
        child = ctx.Process(target=_child, args=(enc, source, conjoin, caps, minimize, tmp, first, extra_bytes,
                                                 writer), daemon=True)
        child.start()
        writer.close()
        running[reader] = (k, child)

    def refused() -> str:
        k = max(range(len(entries)), key=live.__getitem__)
        message = caps.message(live[k], time.perf_counter() - caps.start, share[k])
        if launched > 1:
            message += f" (the largest of {launched} vtrees raced)"
        if all(building[j] for j, _ in running.values()) and running:
            message += ": the cap passed while its vtree was built"
        return message

    launched = 0
    launch(0)
    launched, next_at = 1, time.perf_counter() + race_after
    try:
        while running:
            remaining = caps.max_seconds - (time.perf_counter() - caps.start)
            if remaining <= 0:
                raise CircuitTooLargeError(refused())
            timeout = remaining if launched == len(entries) else max(0.0, min(remaining, next_at - time.perf_counter()))
            ready = wait(list(running), timeout)
            if launched < len(entries) and time.perf_counter() >= next_at:
                launch(launched)
                launched, next_at = launched + 1, time.perf_counter() + race_after
            for reader in ready:
                if reader not in running:  # stopped in this round (the shared size cap)
                    continue
                k, child = running[reader]
                try:
                    kind, *payload = reader.recv()
                except EOFError:
                    child.join()
                    refusals.append(f"{refused()}; the compiler stopped (exit code {child.exitcode}, out of memory?)")
                    del running[reader]
                    reader.close()
                    continue
                if kind == "built":
                    building[k] = False
                elif kind == "same":  # a rival built equal to the first vtree: nothing to race
                    del running[reader]
                    child.join()
                    reader.close()
                elif kind == "size":
                    live[k], share[k] = payload
                    if len(running) > 1 and sum(live[j] for j, _ in running.values()) > caps.max_size:
                        _stop_largest(running, live, share, caps, refusals)
                elif kind == "refused":
                    refusals.append(payload[0])
                    del running[reader]
                    child.join()
                    reader.close()
                elif kind == "failed":
                    raise RuntimeError(f"compiling {caps.what} failed in the compiler's process: {payload[0]}")
                else:
                    return k
            if not running and launched < len(entries):
                launch(launched)
                launched, next_at = launched + 1, time.perf_counter() + race_after
        raise CircuitTooLargeError("; ".join(refusals))
    finally:
        for reader, (_, child) in running.items():
            if child.is_alive():
                child.kill()
            child.join()
            reader.close()


def _stop_largest(running: dict, live: list, share: list, caps: _Caps, refusals: list) -> None:
    """Racers share the size cap: stop the one with the most elements alive, and record its refusal."""
    reader = max(running, key=lambda r: live[running[r][0]])
    k, child = running.pop(reader)
    child.kill()
    child.join()
    reader.close()
    refusals.append(caps.message(live[k], time.perf_counter() - caps.start, share[k])
                    + " (stopped: the vtrees raced share the size cap)")


def _child(enc, source, conjoin: str, caps: _Caps, minimize: bool, tmp: str, first: str | None, extra_bytes: int,
           writer) -> None:
    enter_child(caps.parent, cpu_seconds=caps.max_seconds, extra_bytes=extra_bytes)
    last = [0.0]

    def report(message) -> None:
        now = time.perf_counter()
        if message[0] != "size" or now - last[0] >= _PROGRESS_SECONDS:
            writer.send(message)
            last[0] = now

    try:
        vt, regions = _built(enc, source, conjoin, tmp)
        if first is not None and _same_file(first, os.path.join(tmp, "circuit.vtree")):
            writer.send(("same",))
            return
        writer.send(("built",))
        _compile_regions(enc, vt, regions, caps, minimize, tmp, report)
    except CircuitTooLargeError as err:
        writer.send(("refused", str(err)))
        return
    except Exception as err:  # noqa: BLE001 - handed to the parent, which raises it
        writer.send(("failed", f"{type(err).__name__}: {err}"))
        return
    writer.send(("done",))


def _compile_regions(enc: CircuitEncoding, vt: Vtree, regions, caps: _Caps, minimize: bool, tmp: str,
                     report) -> None:
    """The bottom-up compilation itself; writes ``circuit.sdd`` (and the vtree, if minimised) into ``tmp``."""
    from pysdd.sdd import SddManager, Vtree as SddVtree

    vtree_path = os.path.join(tmp, "circuit.vtree")
    manager = SddManager.from_vtree(SddVtree.from_file(vtree_path.encode()))
    if minimize:
        manager.auto_gc_and_minimize_on()
    else:
        manager.auto_gc_and_minimize_off()
    literal = manager.literal
    done: dict[int, object] = {}

    def check(u: int) -> None:
        if os.getpid() != caps.parent and parent_gone(caps.parent):  # a child whose parent died, no signal sent
            os._exit(1)
        if manager.dead_size() > max(manager.live_size(), 1_000_000):
            manager.garbage_collect()
        live = manager.live_size()
        seconds = time.perf_counter() - caps.start
        if live > caps.max_size or seconds > caps.max_seconds:
            raise CircuitTooLargeError(caps.message(live, seconds, _share(vt, u)))
        report(("size", live, _share(vt, u)))

    for u in vt.post_order.tolist():
        node = _owned(manager.true())
        if vt.left[u] >= 0:
            node = _apply(node, _apply(done.pop(int(vt.left[u])), done.pop(int(vt.right[u])), "and"), "and")
            check(u)
        for group in regions[u]:
            part = _owned(manager.true())
            for j, k in enumerate(group):
                clause = _owned(manager.false())
                for lit in enc.clause(k).tolist():
                    clause = _apply(clause, _owned(literal(int(lit))), "or")
                part = _apply(part, clause, "and")
                if j % 64 == 63:
                    check(u)
            node = _apply(node, part, "and")
            check(u)
        done[u] = node
        check(u)
    done[vt.root].save(os.path.join(tmp, "circuit.sdd").encode())
    if minimize:
        manager.vtree().save(vtree_path.encode())


def _same_file(a: str, b: str) -> bool:
    """Whether two files hold the same bytes (``False`` if either cannot be read yet)."""
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def _owned(node):
    node.ref()
    return node


def _apply(a, b, op: str):
    """``a op b``, referenced; the references of ``a`` and ``b`` are released."""
    out = (a & b) if op == "and" else (a | b)
    out.ref()
    a.deref()
    b.deref()
    return out


def _share(vt: Vtree, u: int) -> float:
    return float(vt.leaf_hi[u]) / max(1, vt.leaf_boolean.shape[0])
