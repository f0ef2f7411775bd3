"""Exact inference over a compiled circuit: ``log P(e)`` and every free variable's posterior.

Weights: a label indicator ``theta`` weighs its CPT value ``c`` when true and 1
when false; a state indicator weighs 1 either way. The weighted count of the
circuit is then ``P(e)`` divided by the product of the constant labels
(:attr:`~prunelab.circuit.encoding.CircuitEncoding.log_constant`), and the
probability that a state indicator is true in a weighted draw is the posterior of
that state (:func:`~prunelab.circuit.passes.outward_py`).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from functools import partial
from typing import NamedTuple

import numpy as np

from ..compiled import CompiledNetwork, network_key
from ..network import BayesianNetwork
from .compiler import MAX_CIRCUIT_SIZE, MAX_COMPILE_SECONDS, Circuit, compile_cnf
from .encoding import ImpossibleEvidenceError, encode_network
from .passes import decode_nb, draw_nb, outward_nb, upward_nb, vtree_log_sums_nb
from .processes import checked_amount, checked_seconds
from .sdd_file import TRUE
from .vtree import Vtree, dissection_vtree, elimination_vtree

__all__ = [
    "AUTO_COMPILE_SECONDS", "VTREES", "CircuitPasses", "check_vtree_choice", "circuit_for", "compile_circuit",
    "circuit_inference",
    "exact_weights", "passes_for", "log_count", "posterior_state",
]


class CircuitPasses(NamedTuple):
    """Work arrays for the passes over one circuit (allocated once, reused every step)."""

    sums: np.ndarray
    val: np.ndarray
    reach: np.ndarray
    gap: np.ndarray
    p_true: np.ndarray
    p_false: np.ndarray
    stack: np.ndarray
    value: np.ndarray
    log_true: np.ndarray
    log_false: np.ndarray


def passes_for(circuit: Circuit) -> CircuitPasses:
    """Fresh work arrays for ``circuit``; weights all one (``log_true = log_false = 0``).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit import compile_circuit
    >>> circuit = compile_circuit(compile_network(load_network("deterministic_pair")))
    >>> passes = passes_for(circuit)
    >>> passes.val.shape == (circuit.n_nodes,), passes.log_true.tolist() == [0.0] * (circuit.encoding.n_booleans + 1)
    (True, True)
    """
    nb = circuit.encoding.n_booleans + 1
    nv = circuit.vtree.n_nodes
    return CircuitPasses(
        np.zeros(nv), np.zeros(circuit.n_nodes), np.zeros(circuit.n_nodes), np.zeros(nv), np.zeros(nb), np.zeros(nb),
        np.zeros(2 * nv + 2, dtype=np.int64), np.zeros(nb, dtype=np.int8), np.zeros(nb), np.zeros(nb),
    )


VTREES = ("dissection", "turned", "elimination")
"""Vtrees :func:`compile_circuit` builds by name (``vtree=``); :attr:`Circuit.vtree_name` is one of them."""


def compile_circuit(net: CompiledNetwork, names=None, *, max_size: int = MAX_CIRCUIT_SIZE,
                    max_seconds: float = MAX_COMPILE_SECONDS, minimize: bool = False, conjoin: str = "family",
                    vtree: str | Vtree = "dissection", race: bool = True, what: str = "the network") -> Circuit:
    """Encode, build the vtree, and compile ``net`` (a network with its evidence).

    The time cap counts from the call: encoding and vtree included. The vtrees
    named are built in the compiler's capped child (the rival's in its own), so
    that the cap stops their building too; caps of the wrong type or value are
    refused first. Evidence on every variable compiles to the constant true (one
    node over an empty vtree): its count is the one state's weight.

    Parameters
    ----------
    net : CompiledNetwork
    names : sequence of str, optional
        Variable names, for messages.
    max_size, max_seconds, minimize, conjoin, what
        As in :func:`~prunelab.circuit.compiler.compile_cnf`.
    vtree : {"dissection", "turned", "elimination"} or Vtree, default "dissection"
        :func:`~prunelab.circuit.vtree.dissection_vtree` (spectral bisection);
        ``"turned"``, the same dissection with the whole network's cut turned at
        right angles (``dissection_vtree(..., turn_root=True)``; on some grids only
        this one compiles: see :mod:`prunelab.circuit.compiler`);
        :func:`~prunelab.circuit.vtree.elimination_vtree` (measured 36 times larger
        on a 90 % grid of side 30, and past a 60 s cap on another); or a
        :class:`~prunelab.circuit.vtree.Vtree` over the Booleans of ``net``'s
        encoding (:func:`~prunelab.circuit.encoding.encode_network`), e.g. the
        ``vtree`` of a circuit compiled before. The circuit's
        :attr:`~prunelab.circuit.compiler.Circuit.vtree_name` says which one it is for.
    race : bool, default True
        With ``vtree="dissection"`` only: race it against ``"turned"``, the rival
        starting after :data:`~prunelab.circuit.compiler.RACE_AFTER_SECONDS` (see
        :func:`~prunelab.circuit.compiler.compile_cnf`), and return the first
        diagram finished, its :attr:`~prunelab.circuit.compiler.Circuit.vtree_name`
        naming the winner. Not with ``minimize``. Where both run, which one wins
        depends on timing: the answers are the same (to rounding), but circuit draws
        for a seed are not; ``race=False``, or the winner's name passed as
        ``vtree=``, fixes the vtree. The other vtrees compile alone.

    Returns
    -------
    Circuit

    Raises
    ------
    ValueError
        An unknown vtree name, or a Vtree whose leaves are not the encoding's Booleans;
        a cap that is not finite or is negative, named.
    TypeError
        ``vtree`` neither a name nor a Vtree; a cap of the wrong type, named.
    CircuitTooLargeError
        A cap was reached (:func:`~prunelab.circuit.compiler.compile_cnf`), while the
        vtree was built included.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit import compile_circuit
    >>> net = compile_network(load_network("asia"))
    >>> circuit = compile_circuit(net)
    >>> circuit.size > 0, circuit.vtree_name
    (True, 'dissection')
    >>> compile_circuit(net, vtree="turned").vtree_name
    'turned'
    """
    started = time.perf_counter()
    check_vtree_choice(vtree)
    checked_amount("max_size", max_size, "elements")
    max_seconds = checked_seconds("max_seconds", max_seconds)
    enc = encode_network(net, names)
    if enc.n_booleans == 0:
        return _constant_circuit(enc, vtree if isinstance(vtree, str) else "given")
    if isinstance(vtree, Vtree):
        _check_leaves(vtree, enc.n_booleans)
        vt, name = vtree, "given"
    elif vtree == "elimination":
        vt, name = partial(elimination_vtree, net, enc), vtree
    else:
        vt, name = partial(dissection_vtree, net, enc, turn_root=vtree == "turned"), vtree
    rivals = [partial(dissection_vtree, net, enc, turn_root=True)] if vtree == "dissection" and race and not minimize \
        else []
    return compile_cnf(enc, vt, max_size=max_size, max_seconds=max_seconds, minimize=minimize, conjoin=conjoin,
                       what=what, started=started, rivals=rivals, names=[name, "turned"][:1 + len(rivals)])


def _constant_circuit(enc, name: str) -> Circuit:
    """The circuit of a CNF without Booleans (every variable observed): the constant true over an empty vtree."""
    empty = np.zeros(0, dtype=np.int64)
    vt = Vtree(empty, empty, empty, empty, empty, empty, empty, -1, empty)
    arrays = (np.array([TRUE], dtype=np.int8), np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64),
              np.zeros(2, dtype=np.int64), empty, empty)
    for a in arrays:
        a.setflags(write=False)
    return Circuit(*arrays, vt, enc, name)


def check_vtree_choice(vtree) -> None:
    """Refuse a ``vtree=`` that is neither a name of :data:`VTREES` nor a :class:`~prunelab.circuit.vtree.Vtree`.

    Examples
    --------
    >>> check_vtree_choice("turned")
    >>> check_vtree_choice("metis")
    Traceback (most recent call last):
    ...
    ValueError: vtree must be one of ('dissection', 'turned', 'elimination') or a Vtree, got 'metis'
    """
    if isinstance(vtree, Vtree):
        return
    if not isinstance(vtree, str):
        raise TypeError(f"vtree must be one of {VTREES} or a Vtree, got a {type(vtree).__name__}")
    if vtree not in VTREES:
        raise ValueError(f"vtree must be one of {VTREES} or a Vtree, got {vtree!r}")


def _check_leaves(vtree: Vtree, n_booleans: int) -> None:
    leaves = np.sort(np.asarray(vtree.leaf_boolean))
    if leaves.shape[0] != n_booleans or not np.array_equal(leaves, np.arange(1, n_booleans + 1)):
        raise ValueError(f"the vtree given has {leaves.shape[0]} leaves, not one for each of the {n_booleans} "
                         f"Booleans of this network's encoding: was it built for another network or evidence?")


def _choice_key(vtree) -> str | tuple:
    """A vtree choice as a cache key: its name, or a digest of a given Vtree's shape and leaves."""
    if not isinstance(vtree, Vtree):
        return vtree
    digest = hashlib.sha1()
    for a in (vtree.left, vtree.right, vtree.leaf_boolean):
        digest.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return "given", digest.hexdigest()


AUTO_COMPILE_SECONDS = 120.0
"""Compile cap when a method turns to the circuit by itself (``"auto"``), so that a network without
the structure a circuit needs is refused in minutes; asking for the circuit by name allows
:data:`~prunelab.circuit.compiler.MAX_COMPILE_SECONDS`."""

_CACHE_SIZE = 4
_circuits: OrderedDict = OrderedDict()
_lock = threading.Lock()


def circuit_for(net: CompiledNetwork, *, max_seconds: float = MAX_COMPILE_SECONDS,
                max_size: int = MAX_CIRCUIT_SIZE, race: bool = False, vtree: str | Vtree = "dissection") -> Circuit:
    """The circuit of ``net``, compiled on first use and cached by content and vtree (the last few).

    Exact inference and prune sampling's circuit draws share it. A compilation
    that reached a cap is not cached (it raised). Exact inference asks for a raced
    compilation (``race=True``, see :func:`compile_circuit`), whose vtree can depend on
    timing; samplers name their vtree (``"dissection"`` unless told), so that their
    draws for a seed never do. A raced circuit is cached under the name of the vtree
    that won as well, so a sampler then told that name (its
    :attr:`~prunelab.circuit.compiler.Circuit.vtree_name`) draws over it without
    compiling again; and a race is not run where the dissection's or the turned
    cut's circuit is cached already (the answers are the same).

    Parameters
    ----------
    net : CompiledNetwork
    max_seconds : float, default :data:`~prunelab.circuit.compiler.MAX_COMPILE_SECONDS`
        The compile cap, if it compiles now.
    max_size : int, default :data:`~prunelab.circuit.compiler.MAX_CIRCUIT_SIZE`
        The cap on the elements alive while it compiles, if it compiles now.
    race : bool, default False
        Race the dissection against the turned cut (:func:`compile_circuit`); answers are the same either way.
    vtree : {"dissection", "turned", "elimination"} or Vtree, default "dissection"
        The vtree when not racing (:func:`compile_circuit`).

    Raises
    ------
    ValueError
        A bad ``vtree`` (:func:`check_vtree_choice`), or ``race=True`` with a ``vtree`` other than the dissection.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("asia"))
    >>> raced = circuit_for(net, race=True)
    >>> circuit_for(net, vtree=raced.vtree_name) is raced  # the winner, not compiled again
    True
    """
    check_vtree_choice(vtree)
    if race and not (isinstance(vtree, str) and vtree == "dissection"):
        raise ValueError(f"race=True races the dissection against the turned cut; vtree={_choice_key(vtree)!r} "
                         f"is one vtree: ask for it with race=False")
    net_key = network_key(net)
    keys = [(net_key, name) for name in ("race", "dissection", "turned")] if race else [(net_key, _choice_key(vtree))]
    with _lock:
        for key in keys:
            if key in _circuits:
                _circuits.move_to_end(key)
                return _circuits[key]
    circuit = compile_circuit(net, max_seconds=max_seconds, max_size=max_size, race=race, vtree=vtree)
    with _lock:
        _circuits[keys[0]] = circuit
        if race:  # the winner is the circuit its vtree compiles alone (canonical, the same arrays)
            _circuits.setdefault((net_key, circuit.vtree_name), circuit)
        while len(_circuits) > _CACHE_SIZE:
            _circuits.popitem(last=False)
    return circuit


def exact_weights(circuit: Circuit, net: CompiledNetwork, work: CircuitPasses) -> None:
    """Set ``work``'s weights to the CPT values: ``theta`` true weighs ``c``, everything else 1."""
    theta = circuit.encoding.theta_label
    work.log_true[:] = 0.0
    work.log_false[:] = 0.0
    is_theta = theta >= 0
    work.log_true[is_theta] = np.log(net.cpt[theta[is_theta]])


def log_count(circuit: Circuit, work: CircuitPasses) -> float:
    """``log`` of the weighted model count under ``work``'s weights (upward pass included)."""
    if circuit.encoding.n_booleans == 0:  # the constant true: one model, of weight 1
        return 0.0
    vt = circuit.vtree
    vtree_log_sums_nb(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
    upward_nb(circuit.kind, circuit.literal, circuit.node_vtree, circuit.elem_ptr, circuit.prime, circuit.sub,
              vt.left, vt.right, work.sums, work.log_true, work.log_false, work.val)
    root = circuit.n_nodes - 1
    top = work.val[root]
    if top == -math.inf:
        return -math.inf
    rv = circuit.node_vtree[root]
    return float(top + work.sums[vt.root] - (work.sums[rv] if rv >= 0 else 0.0))


def circuit_inference(bn: BayesianNetwork, net: CompiledNetwork, circuit: Circuit
                      ) -> tuple[float, dict[str, np.ndarray]]:
    """``log P(e)`` and the posterior of every free variable, from one upward and one outward pass.

    Parameters
    ----------
    bn : BayesianNetwork
    net : CompiledNetwork
        ``bn`` with the evidence the circuit was compiled for.
    circuit : Circuit

    Returns
    -------
    log_probability : float
        ``log P(e)``; ``-inf`` if the evidence is impossible (the marginals are then empty).
    marginals : dict of str to numpy.ndarray
        For every free variable, in ``bn.variables`` order, its posterior.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit import compile_circuit, circuit_inference
    >>> bn = load_network("asia")
    >>> net = compile_network(bn, {"dysp": "yes"})
    >>> log_p, marginals = circuit_inference(bn, net, compile_circuit(net))
    >>> round(float(marginals["bronc"][0]), 6)
    0.833967
    """
    work = passes_for(circuit)
    exact_weights(circuit, net, work)
    log_wmc = log_count(circuit, work)
    if log_wmc == -math.inf:
        return -math.inf, {}
    if net.free.shape[0] == 0:
        return log_wmc + circuit.encoding.log_constant, {}
    vt = circuit.vtree
    outward_nb(circuit.kind, circuit.literal, circuit.node_vtree, circuit.elem_ptr, circuit.prime, circuit.sub,
               vt.left, vt.right, vt.boolean, vt.parent, vt.post_order, vt.root, work.sums, work.log_true,
               work.log_false, work.val, work.reach, work.gap, work.p_true, work.p_false)
    enc = circuit.encoding
    out = {}
    for i in net.free.tolist():
        booleans = enc.state_boolean[enc.state_ptr[i]:enc.state_ptr[i + 1]]
        if net.cardinality[i] == 2:
            post = np.array([work.p_false[booleans[0]], work.p_true[booleans[0]]])
        else:
            post = work.p_true[booleans].copy()
        post = np.clip(post, 0.0, None)
        post /= post.sum()
        out[bn.variables[i]] = post
    return log_wmc + enc.log_constant, out


def posterior_state(rng: np.random.Generator, net: CompiledNetwork, circuit: Circuit,
                    work: CircuitPasses | None = None) -> np.ndarray:
    """One state drawn exactly from ``P(x | e)``: the CPT weights, one upward pass, one weighted draw down.

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
        The network with the evidence the circuit was compiled for.
    circuit : Circuit
    work : CircuitPasses, optional
        Work arrays to reuse (:func:`passes_for`); their weights are overwritten.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        State indices in network order, evidence set.

    Raises
    ------
    ImpossibleEvidenceError
        If ``P(e) = 0`` (the weighted count is zero).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit import compile_circuit, posterior_state
    >>> net = compile_network(load_network("deterministic_pair"), {"B": "1"})
    >>> posterior_state(np.random.default_rng(0), net, compile_circuit(net)).tolist()
    [1, 1]
    """
    work = passes_for(circuit) if work is None else work
    exact_weights(circuit, net, work)
    if log_count(circuit, work) == -math.inf:
        raise ImpossibleEvidenceError("the evidence is impossible: P(e) = 0 (the circuit's weighted count is zero)")
    c, vt, enc = circuit, circuit.vtree, circuit.encoding
    if enc.n_booleans == 0:  # every variable observed
        return np.array(net.evidence_value, dtype=np.int64)
    draw_nb(rng, c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.root, vt.leaf_lo,
            vt.leaf_hi, vt.leaf_boolean, work.sums, work.log_true, work.log_false, work.val, work.stack, work.value)
    x = np.array(net.evidence_value, dtype=np.int64)
    decode_nb(enc.state_ptr, enc.state_boolean, net.cardinality, net.free, work.value, x)
    return x
