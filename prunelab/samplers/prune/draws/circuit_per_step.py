"""Prune sampling past compile-once: compile the *pruned* network at every step (``uniform="circuit-per-step"``).

When the whole network's circuit outgrows its caps (:mod:`prunelab.samplers.prune.draws.circuit`),
each step's pruned set can still be small to compile: after a pruning, a kept label
constrains nothing and a pruned label excludes its row, exactly as a CPT zero does.
So the pruned set ``S`` is the set of models of a CNF over the state indicators
alone (:func:`~prunelab.circuit.encoding.encode_states`): the network's own
constraints (one-hot, zeros) plus one clause per pruned label. Each step compiles
that CNF for the network's fixed dissection vtree, counts it (weights all one) and
draws one model top-down: an exact uniform draw from ``S``, at the price of one
compilation per step.

Every label with ``0 < c < 1`` whose row agrees with the evidence is pruned at
random (whether some feasible state uses it is not known without the whole
circuit; a label no feasible state uses changes nothing), so the random numbers
differ from the other ``uniform=`` options while the chain is the same.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from prunelab.circuit import CircuitEncoding, compile_cnf, passes_for
from prunelab.circuit.encoding import encode_states
from prunelab.circuit.passes import decode_nb, draw_nb, upward_nb, vtree_log_sums_nb
from prunelab.circuit.vtree import Vtree, dissection_vtree
from prunelab.compiled import CompiledNetwork, PlanCache
from prunelab.samplers.chain import start_chain

from ..plan import Pruning, pruning_of
from ..pruning import prune_around

__all__ = ["PerStepPlan", "plan", "draw", "run_chain", "compile_per_step_plan"]


class PerStepPlan(NamedTuple):
    """The fixed part of every step's CNF, and the clause each pruned label adds.

    Attributes
    ----------
    states : CircuitEncoding
        The state indicators and the network's constraints.
    vtree : Vtree
        The dissection vtree over the state indicators.
    label_ptr, label_literal : int64
        For random label ``k``, the clause "not this row":
        ``label_literal[label_ptr[k]:label_ptr[k+1]]``.
    pruning : Pruning
        As in :class:`prunelab.samplers.prune.plan.PrunePlan`, but every label with ``0 < c < 1`` whose row agrees
        with the evidence is pruned at random.
    """

    states: CircuitEncoding
    vtree: Vtree
    label_ptr: np.ndarray
    label_literal: np.ndarray
    pruning: Pruning


def compile_per_step_plan(net: CompiledNetwork) -> PerStepPlan:
    """The state encoding, the vtree and the label clauses of ``net``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.circuit_per_step import compile_per_step_plan
    >>> plan = compile_per_step_plan(compile_network(load_network("deterministic_pair")))
    >>> plan.pruning.random_label.tolist(), plan.states.n_booleans
    ([0, 1], 2)
    """
    states, labels, label_ptr, label_literal = encode_states(net)
    vtree = dissection_vtree(net, states)
    for a in (label_ptr, label_literal):
        a.setflags(write=False)
    return PerStepPlan(states, vtree, label_ptr, label_literal, pruning_of(net, labels, net.cpt > 0.0))


_plans = PlanCache(compile_per_step_plan)


def plan(net: CompiledNetwork) -> PerStepPlan:
    """The :class:`PerStepPlan` of ``net``, built on first use and cached (by content)."""
    return _plans(net)


def _step_encoding(plan: PerStepPlan, kept: np.ndarray) -> CircuitEncoding:
    """The CNF of the pruned set: the network's clauses and one clause per pruned random label."""
    base = plan.states
    pruned = np.flatnonzero(~kept[plan.pruning.random_label])
    lengths = plan.label_ptr[pruned + 1] - plan.label_ptr[pruned]
    extra = np.concatenate([plan.label_literal[plan.label_ptr[k]:plan.label_ptr[k + 1]] for k in pruned]) \
        if pruned.size else np.zeros(0, dtype=np.int64)
    ptr = np.concatenate([base.clause_ptr, base.clause_ptr[-1] + np.cumsum(lengths)])
    return base._replace(clause_ptr=ptr, clause_literal=np.concatenate([base.clause_literal, extra]))


def draw(rng: np.random.Generator, net: CompiledNetwork, x: np.ndarray, kept: np.ndarray,
         plan: PerStepPlan) -> tuple[np.ndarray, float]:
    """Compile the pruned set of ``kept``, count it and draw its next state uniformly.

    Returns the next state and ``|S|`` (``inf`` past float64's range).
    """
    # in this process: a forked child per step would cost more than most steps' compiles
    circuit = compile_cnf(_step_encoding(plan, kept), plan.vtree, what="the pruned network", isolate=False)
    work = passes_for(circuit)
    vt = circuit.vtree
    vtree_log_sums_nb(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
    upward_nb(circuit.kind, circuit.literal, circuit.node_vtree, circuit.elem_ptr, circuit.prime, circuit.sub,
              vt.left, vt.right, work.sums, work.log_true, work.log_false, work.val)
    root = circuit.n_nodes - 1
    if work.val[root] == -math.inf:
        raise AssertionError("the pruned set is empty, but it holds the current state")
    rv = circuit.node_vtree[root]
    log_size = work.val[root] + work.sums[vt.root] - (work.sums[rv] if rv >= 0 else 0.0)
    draw_nb(rng, circuit.kind, circuit.literal, circuit.node_vtree, circuit.elem_ptr, circuit.prime, circuit.sub,
            vt.left, vt.right, vt.root, vt.leaf_lo, vt.leaf_hi, vt.leaf_boolean, work.sums, work.log_true,
            work.log_false, work.val, work.stack, work.value)
    y = np.array(x, dtype=np.int64)
    decode_nb(plan.states.state_ptr, plan.states.state_boolean, net.cardinality, net.free, work.value, y)
    return y, (math.exp(log_size) if log_size < 709.0 else math.inf)


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int, plan: PerStepPlan | None = None):
    """``n_draws`` prune steps, each compiling its pruned set: ``(draws, sizes)``.

    Built from :func:`prunelab.samplers.prune.pruning.prune_around` and :func:`draw`, so it
    draws exactly as they do; the compilation is the cost of a step.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.circuit_per_step import run_chain
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> draws, sizes = run_chain(np.random.default_rng(1), net, [0, 0], 3)
    >>> draws.shape
    (3, 2)
    """
    n_draws, x, _, draws = start_chain(net, x0, n_draws)
    plan = _plans(net) if plan is None else plan
    sizes = np.empty(n_draws, dtype=np.float64)
    for t in range(n_draws):
        kept = prune_around(rng, net, x, plan)
        x, sizes[t] = draw(rng, net, x, kept, plan)
        draws[t] = x
    return draws, sizes
