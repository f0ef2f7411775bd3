"""Prune sampling's uniform draw over a compiled circuit: ``uniform="circuit"``.

Where the counting plan of :mod:`prunelab.samplers.prune.draws` needs junction-tree
tables that do not fit, the network with its evidence is compiled once into a
decision diagram (:mod:`prunelab.circuit`) whose models are the feasible states,
each with its label indicators. A prune step then

1. prunes around ``x`` exactly as every other ``uniform=`` does (same labels, same
   random numbers: :func:`prunelab.samplers.prune.pruning.prune_around`);
2. weighs each label indicator 1 if its label was kept and 0 if it was pruned, so
   the weighted count of the circuit is ``|S|``, the size of the pruned set;
3. counts bottom-up and draws top-down (:mod:`prunelab.circuit.passes`): every
   member of ``S`` is drawn with probability ``1 / |S|``, up to the rounding of
   the log-space counts.

The circuit is compiled once, for one fixed vtree: the dissection, or the one
``vtree=`` names (:func:`~prunelab.samplers.prune.draws.registry.sampler_vtree`), never a
race, so the draws for a seed do not depend on timing.

:func:`step` is the numpy reference and :func:`run_chain` the numba path; they
consume the generator in the same order (the pruning, then the draw's
``random()`` calls) and give identical draws.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numba
import numpy as np

from prunelab.circuit import VTREES, Circuit, CircuitPasses, circuit_for, passes_for
from prunelab.circuit.passes import (
    decode_nb,
    decode_py,
    draw_nb,
    draw_py,
    outward_nb,
    outward_py,
    reachable_nb,
    upward_nb,
    upward_py,
    vtree_log_sums_nb,
    vtree_log_sums_py,
)
from prunelab.compiled import CompiledNetwork, PlanCache
from prunelab.samplers.chain import start_chain

from ..plan import Pruning, pruning_of
from ..pruning import prune_around_nb
from ..rao_blackwell import NO_RAO_BLACKWELL, RaoBlackwellSums, record_step_nb
from .registry import sampler_vtree

__all__ = ["CircuitPrunePlan", "plan", "draw", "marginals", "run_chain", "compile_circuit_prune_plan",
           "circuit_prune_chain_nb"]

class CircuitPrunePlan(NamedTuple):
    """What a circuit prune step needs, compiled once per (network, evidence).

    Attributes
    ----------
    circuit : Circuit
    theta_boolean, theta_label : int64
        Every label indicator and its label.
    pruning : Pruning
        As in :class:`prunelab.samplers.prune.plan.PrunePlan` (the same sets: labels with
        ``0 < c < 1`` that some feasible state uses).
    """

    circuit: Circuit
    theta_boolean: np.ndarray
    theta_label: np.ndarray
    pruning: Pruning


def compile_circuit_prune_plan(net: CompiledNetwork, circuit: Circuit | None = None,
                               vtree: str = "dissection") -> CircuitPrunePlan:
    """Compile ``net``'s circuit for ``vtree`` (or take ``circuit``, compiled for ``net``) and the pruning lists.

    The circuit is :func:`prunelab.circuit.circuit_for` ``(net, vtree=vtree)``: one
    fixed vtree, so the draws for a seed depend on the network, the evidence, the
    vtree named and the seed only. A circuit given is used as it is.

    A label indicator is *used* when some model makes it true (a satisfiable path
    from the root reaches its positive literal); the labels that every state uses
    (their rows mention only observed variables) are used too.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.circuit import compile_circuit_prune_plan
    >>> plan = compile_circuit_prune_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.pruning.random_label.tolist()
    [0, 1]
    """
    circuit = circuit_for(net, vtree=vtree) if circuit is None else circuit
    enc = circuit.encoding
    n_nodes = circuit.n_nodes
    reached = np.zeros(enc.n_booleans + 1, dtype=np.bool_)
    reachable_nb(circuit.kind, circuit.literal, circuit.elem_ptr, circuit.prime, circuit.sub,
                 np.zeros(n_nodes, dtype=np.bool_), np.zeros(n_nodes, dtype=np.bool_), reached)
    theta_boolean = np.flatnonzero(enc.theta_label >= 0).astype(np.int64)
    theta_label = enc.theta_label[theta_boolean]
    used = theta_label[reached[theta_boolean]]
    random_label = np.unique(np.concatenate([used, enc.constant_label])).astype(np.int64)
    base_kept = net.cpt > 0.0
    base_kept[theta_label[~reached[theta_boolean]]] = False
    for a in (theta_boolean, theta_label):
        a.setflags(write=False)
    return CircuitPrunePlan(circuit, theta_boolean, theta_label, pruning_of(net, random_label, base_kept))


_plans = {name: PlanCache(partial(compile_circuit_prune_plan, vtree=name)) for name in VTREES}


def plan(net: CompiledNetwork, vtree: str = "dissection") -> CircuitPrunePlan:
    """The :class:`CircuitPrunePlan` of ``net`` over the vtree named ``vtree``, compiled on first use and cached.

    Cached by the content of ``net`` and the vtree's name (one of :data:`prunelab.circuit.VTREES`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> plan(compile_network(load_network("asia")), "turned").circuit.vtree_name
    'turned'
    """
    return _plans[sampler_vtree("circuit", vtree)](net)


def _set_weights(kept, theta_boolean, theta_label, log_true):
    for k in range(theta_boolean.shape[0]):
        log_true[theta_boolean[k]] = 0.0 if kept[theta_label[k]] else -math.inf


_set_weights_nb = numba.njit(cache=True, nogil=True)(_set_weights)


def _root_log_count(val, node_vtree, sums, vt_root):
    root = val.shape[0] - 1
    if val[root] == -math.inf:
        return -math.inf
    rv = node_vtree[root]
    return val[root] + sums[vt_root] - (sums[rv] if rv >= 0 else 0.0)


_root_log_count_nb = numba.njit(cache=True, nogil=True)(_root_log_count)


def _draw_pruned(rng, circuit: Circuit, net: CompiledNetwork, plan: CircuitPrunePlan, work: CircuitPasses,
                 kept, y, upward, sums_pass, draw, set_weights, root_log_count, decode):
    """Weigh, count and draw once; returns ``log |S|``. The body both paths share, with their passes."""
    c, vt, enc = circuit, circuit.vtree, circuit.encoding
    set_weights(kept, plan.theta_boolean, plan.theta_label, work.log_true)
    sums_pass(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
    upward(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, work.sums,
           work.log_true, work.log_false, work.val)
    log_size = root_log_count(work.val, c.node_vtree, work.sums, vt.root)
    draw(rng, c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.root, vt.leaf_lo,
         vt.leaf_hi, vt.leaf_boolean, work.sums, work.log_true, work.log_false, work.val, work.stack, work.value)
    decode(enc.state_ptr, enc.state_boolean, net.cardinality, net.free, work.value, y)
    return log_size


def draw(rng: np.random.Generator, net: CompiledNetwork, x: np.ndarray, kept: np.ndarray,
         plan: CircuitPrunePlan) -> tuple[np.ndarray, float]:
    """The uniform draw of one prune step given its pruning ``kept`` (numpy reference).

    Returns the next state and ``|S|`` (``inf`` past float64's range).
    """
    work = passes_for(plan.circuit)
    y = np.array(x, dtype=np.int64)
    log_size = _draw_pruned(rng, plan.circuit, net, plan, work, kept, y, upward_py, vtree_log_sums_py, draw_py,
                            _set_weights, _root_log_count, decode_py)
    return y, _size(log_size)


def _add_marginals(state_ptr, state_boolean, cardinality, free, p_true, p_false, offsets, out):
    """Add every free variable's marginal, read off the Booleans' ``p_true``/``p_false``, to ``out``."""
    for k in range(free.shape[0]):
        i = free[k]
        lo = state_ptr[i]
        if cardinality[i] == 2:
            out[offsets[i]] += p_false[state_boolean[lo]]
            out[offsets[i] + 1] += p_true[state_boolean[lo]]
        else:
            for v in range(cardinality[i]):
                out[offsets[i] + v] += p_true[state_boolean[lo + v]]


_add_marginals_nb = numba.njit(cache=True, nogil=True)(_add_marginals)


def _outward_marginals(circuit: Circuit, net: CompiledNetwork, work: CircuitPasses, offsets, out, outward, add):
    """After the upward pass: the pruned set's marginals (the outward pass), added to ``out``."""
    c, vt, enc = circuit, circuit.vtree, circuit.encoding
    outward(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.boolean, vt.parent,
            vt.post_order, vt.root, work.sums, work.log_true, work.log_false, work.val, work.reach, work.gap,
            work.p_true, work.p_false)
    add(enc.state_ptr, enc.state_boolean, net.cardinality, net.free, work.p_true, work.p_false, offsets, out)


def marginals(net: CompiledNetwork, kept: np.ndarray, plan: CircuitPrunePlan) -> np.ndarray:
    """``E[1{X_i = s} | S]`` of the pruned set that ``kept`` leaves, by the outward pass (numpy reference).

    The Rao-Blackwell term of a circuit prune step (:mod:`prunelab.samplers.prune.rao_blackwell`):
    with the pruning's 0/1 weights, the outward pass gives every Boolean's
    probability of being true under the uniform distribution on ``S``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws import circuit
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> kept = np.ones(net.n_labels, dtype=bool)  # S = {(0, 0), (1, 1)}
    >>> np.round(circuit.marginals(net, kept, circuit.plan(net)), 12).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    c, vt = plan.circuit, plan.circuit.vtree
    work = passes_for(c)
    _set_weights(np.asarray(kept, dtype=np.bool_), plan.theta_boolean, plan.theta_label, work.log_true)
    vtree_log_sums_py(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
    upward_py(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, work.sums,
              work.log_true, work.log_false, work.val)
    offsets = np.concatenate([[0], np.cumsum(net.cardinality)]).astype(np.int64)
    out = np.zeros(int(offsets[-1]))
    observed = np.flatnonzero(net.evidence_value >= 0)
    out[offsets[observed] + net.evidence_value[observed]] = 1.0
    _outward_marginals(c, net, work, offsets, out, outward_py, _add_marginals)
    return out


def _size(log_size: float) -> float:
    return math.exp(log_size) if log_size < 709.0 else math.inf


@numba.njit(cache=True, nogil=True)
def circuit_prune_chain_nb(rng, net, plan, random_c, work, kept, marked, x_labels, x, n_draws, draws, sizes, rb):
    """``n_draws`` circuit prune steps from ``x``, in place (the body of :func:`run_chain`); with ``rb``'s sums.

    ``random_c`` are the keep probabilities of ``plan.pruning.random_label`` (``plan.pruning.random_c``, or their powers
    ``c^beta`` for a tempered replica of :mod:`prunelab.samplers.prune.tempered`, which shares ``work``).
    """
    c = plan.circuit
    vt = c.vtree
    enc = c.encoding
    random_label = plan.pruning.random_label
    n = x.shape[0]
    for t in range(n_draws):
        prune_around_nb(rng, net, x, random_label, random_c, kept, marked, x_labels)
        _set_weights_nb(kept, plan.theta_boolean, plan.theta_label, work.log_true)
        vtree_log_sums_nb(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
        upward_nb(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, work.sums,
                  work.log_true, work.log_false, work.val)
        log_size = _root_log_count_nb(work.val, c.node_vtree, work.sums, vt.root)
        if rb.checkpoints.shape[0] > 0:
            outward_nb(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.boolean,
                       vt.parent, vt.post_order, vt.root, work.sums, work.log_true, work.log_false, work.val,
                       work.reach, work.gap, work.p_true, work.p_false)
            _add_marginals_nb(enc.state_ptr, enc.state_boolean, net.cardinality, net.free, work.p_true,
                              work.p_false, rb.offsets, rb.running)
            record_step_nb(rb)
        draw_nb(rng, c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.root,
                vt.leaf_lo, vt.leaf_hi, vt.leaf_boolean, work.sums, work.log_true, work.log_false, work.val,
                work.stack, work.value)
        decode_nb(enc.state_ptr, enc.state_boolean, net.cardinality, net.free, work.value, x)
        for i in range(n):
            draws[t, i] = x[i]
        sizes[t] = math.exp(log_size) if log_size < 709.0 else math.inf


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int,
              plan: CircuitPrunePlan | None = None, rb: RaoBlackwellSums = NO_RAO_BLACKWELL):
    """``n_draws`` prune steps with circuit draws (numba path): ``(draws, sizes)``.

    With ``rb`` (:func:`prunelab.samplers.prune.rao_blackwell.rao_blackwell_sums`), every step
    also adds its pruned set's marginals (:func:`marginals`) to ``rb``'s running sums.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.circuit import run_chain
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> draws, sizes = run_chain(np.random.default_rng(1), net, [0, 0], 3)
    >>> draws.shape, bool((sizes >= 1).all())
    ((3, 2), True)
    """
    n_draws, x, x_labels, draws = start_chain(net, x0, n_draws)
    plan = _plans["dissection"](net) if plan is None else plan
    work = passes_for(plan.circuit)
    sizes = np.empty(n_draws, dtype=np.float64)
    kept = plan.pruning.base_kept.copy()
    marked = np.zeros(net.n_labels, dtype=np.bool_)
    circuit_prune_chain_nb(rng, net, plan, plan.pruning.random_c, work, kept, marked, x_labels, x, n_draws, draws,
                           sizes, rb)
    return draws, sizes
